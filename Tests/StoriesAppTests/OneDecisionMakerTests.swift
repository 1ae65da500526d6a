@testable import StoriesFeedIO
import StoriesTestSupport
import StoriesCells
import Foundation
import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

/// The class of bug issue 11 was about: state kept in two places drifting apart. Every
/// input goes through one reducer run, nothing outlives what it was on, and drawing
/// changes nothing.
@MainActor
@Suite struct OneDecisionMakerTests {
    /// The recording from the issue: press in the viewer, drag 15 columns, `?`, release,
    /// `?`. The cube used to stay half-turned with the bar stopped for good.
    @Test func aKeyDuringADragLeavesNothingHalfFinished() {
        let d = AppDriver(width: 100, height: 30, motion: true)
        d.press(.key(.enter))
        d.wait(1)
        d.mouse(.press(.left), column: 60, row: 12)
        d.mouse(.drag(.left), column: 52, row: 12)
        d.mouse(.drag(.left), column: 45, row: 12)
        #expect(d.state.drag != nil)
        d.type("?")
        #expect(d.state.drag == nil && d.state.gesture.pointer == .idle, "the key called the drag off")
        #expect(d.lastDecision?.notes.contains("a key calls off the mouse gesture in progress") == true)
        d.mouse(.release(.left), column: 45, row: 12)
        d.type("?")
        let before = d.elapsed ?? 0
        d.wait(1)
        #expect(d.state.viewing.transition == nil)
        #expect(GesturePhase(d.state) == .viewing)
        #expect((d.elapsed ?? 0) > before + 0.9, "the bar runs again")
        d.press(.key(.right))
        #expect(d.position! == (0, 1))
        #expect(GesturePhase(d.state) == .viewing)
    }

    /// Thousands of random input sequences on the virtual clock. After each, a release and
    /// 3 s of ticks must leave no drag, no hold, no transition, and the bar running unless
    /// paused, under the help, waiting or too small; the reducer ran exactly once per input.
    @Test func randomInputSequencesEndInAConsistentState() {
        let seed: UInt64 = ProcessInfo.processInfo.environment["STORIES_SEED"].flatMap { UInt64($0) } ?? 0x5107_1E5
        var random = SplitMix(seed: seed)
        let keys: [InputEvent] = [.key(.right), .key(.left), .key(.character("]")), .key(.character("[")), .key(.enter),
                                  .key(.escape), .key(.character(" ")), .key(.character("?")), .key(.character("g")),
                                  .key(.character("i")), .key(.character("f")), .key(.down), .key(.home), .key(.end)]
        let sizes = [(90, 30), (90, 30), (80, 24), (39, 20), (60, 11), (120, 40)]
        for sequence in 0..<1000 {
            let d = GestureRig(motion: sequence % 2 == 0).d
            var inputs = 0
            var steps: [String] = []
            for _ in 0..<Int.random(in: 5...25, using: &random) {
                let column = Int.random(in: 0..<d.state.screenWidth + 5, using: &random)
                let row = Int.random(in: 0..<d.state.screenHeight + 2, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0...3:
                    let key = keys.randomElement(using: &random) ?? .key(.right)
                    steps.append("\(key)")
                    d.press(key)
                    inputs += 1
                case 4:
                    steps.append("press \(column),\(row)")
                    d.mouse(.press(.left), column: column, row: row)
                    inputs += 1
                case 5, 6:
                    steps.append("drag \(column),\(row)")
                    d.mouse(.drag(.left), column: column, row: row)
                    inputs += 1
                case 7:
                    steps.append("release \(column),\(row)")
                    d.mouse(.release(.left), column: column, row: row)
                    inputs += 1
                case 8:
                    let (width, height) = sizes.randomElement(using: &random) ?? (90, 30)
                    steps.append("resize \(width)x\(height)")
                    d.resize(width: width, height: height)
                default:
                    let seconds = Double(Int.random(in: 1...40, using: &random)) / 100
                    steps.append("wait \(seconds)")
                    d.wait(seconds)
                }
            }
            d.mouse(.release(.left), column: 1, row: 1)
            inputs += 1
            d.wait(1) // past the longest animation (0.3 s) and a hold's check: what must have ended has
            let s = d.state
            let context = "sequence \(sequence) of seed \(seed) (STORIES_SEED=\(seed)): \(steps.joined(separator: ", "))"
            #expect(s.drag == nil && !s.isHeld && s.gesture.pointer == .idle, "a gesture outlived its release: \(context)")
            #expect(s.viewing.transition == nil, "an animation never ended: \(context)")
            if let viewer = s.viewer, !viewer.isPaused, s.chrome.modal == nil, !viewer.isWaiting, s.isUsable, !s.awaitsMedia {
                #expect(viewer.playback.isRunning, "the bar stopped for no reason: \(context)")
            }
            #expect(d.engine.inputReductions == inputs, "one reducer run per input: \(context)")
            if d.engine.inputReductions != inputs || s.viewing.transition != nil || s.drag != nil { return } // one story is enough
        }
    }

    /// Interruptions that are not inputs: the story under a drag failing, the item ending
    /// under a press, the viewer closing under a hold.
    @Test func aGestureEndsWithWhatItWasOn() {
        let failing = Fixture.demo.stories[1].id
        let slow = AppDriver(width: 90, height: 30, source: MemoryFeed(load: Fixture.demo, failing: [failing: "gone"]),
                             network: AppDriver.network(latency: 1))
        slow.wait(1)
        slow.press(.key(.enter))
        slow.wait(1)                             // Ayla is open; Mika's items are on their way
        slow.press(.key(.character("]")))        // the viewer waits on Mika
        slow.mouse(.press(.left), column: 60, row: 12)
        slow.mouse(.drag(.left), column: 64, row: 12)
        #expect(slow.state.drag != nil)
        slow.wait(1)                             // Mika's items fail under the drag
        #expect(slow.state.gesture.pointer == .idle && slow.state.drag == nil)
        slow.mouse(.release(.left), column: 64, row: 12)
        #expect(slow.lastDecision?.declined.first?.reason == "no press to end", "the release finds nothing to end")

        let rig = GestureRig()
        rig.key(.enter)
        rig.wait(4.9)
        rig.mouse(.press(.left), 60, 12)         // pressed just before the item ends
        rig.wait(0.2)                            // it ends (5 s) before the hold check (250 ms)
        #expect(rig.position! == (0, 1))
        #expect(rig.state.gesture.pointer == .idle, "the press belonged to the item that ended")
        rig.mouse(.release(.left), 60, 12)
        #expect(rig.position! == (0, 1), "so its release does not tap")

        rig.mouse(.press(.left), 60, 12)
        rig.wait(0.3)
        #expect(rig.state.isHeld)
        rig.key(.escape)                         // dismissed under the hold
        #expect(!rig.state.isHeld && rig.state.gesture.pointer == .idle)
    }

    @Test func drawingTheSameStateTwiceStartsNoWorkAndChangesNothing() {
        let d = AppDriver(width: 100, height: 30, network: AppDriver.network(latency: 0.5))
        d.wait(0.5)
        d.press(.key(.enter))
        d.wait(0.5) // the viewer is open; its photo is still on its way
        let state = d.state
        let jobs = d.services.pictures.jobCount
        let reductions = d.engine.reductions
        let bytes = d.services.pictures.cache.bytesInUse
        let first = d.engine.render()
        let second = d.engine.render()
        #expect(first == second)
        #expect(d.state == state, "drawing sent nothing to the reducer")
        #expect(d.engine.reductions == reductions)
        #expect(d.services.pictures.jobCount == jobs, "drawing started no work")
        #expect(d.services.pictures.cache.bytesInUse == bytes, "drawing put nothing in the cache")
    }

    @Test func aCanvasDiffTurnsTheLastScreenIntoTheNextWithWideCharactersWhole() {
        var random = SplitMix(seed: 42)
        let graphemes: [String] = ["a", "b", " ", "山", "花", "🌸", "é", "─", "لح"]
        func randomCanvas(_ width: Int, _ height: Int) -> Canvas {
            var canvas = Canvas(width: width, height: height)
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let text = (0..<Int.random(in: 1...8, using: &random)).map { _ in graphemes.randomElement(using: &random) ?? "a" }.joined()
                let style = Style(foreground: .palette(UInt8.random(in: 0...255, using: &random)))
                canvas.text(text, x: Int.random(in: 0..<width, using: &random), y: Int.random(in: 0..<height, using: &random), style: style)
            }
            return canvas
        }
        for round in 0..<500 {
            let screen = TestScreen(width: 12, height: 4)
            var last = randomCanvas(12, 4)
            screen.draw(last)
            #expect(screen.canvas == last, "round \(round): the first frame")
            for _ in 0..<4 {
                let next = randomCanvas(12, 4)
                let diff = next.diff(from: last)
                #expect(!diff.isFull)
                screen.apply(diff)
                #expect(screen.canvas == next, "round \(round): after \(diff.changes.count) changes")
                last = next
            }
        }
        // An unchanged frame writes nothing.
        let same = randomCanvas(12, 4)
        #expect(same.diff(from: same).changes.isEmpty)
        #expect(same.diff(from: Canvas(width: 10, height: 4)).isFull, "another size: everything")
    }

    @Test func everyKeyIsOneReducerRunEvenDuringAnAnimation() {
        let d = AppDriver(width: 100, height: 30, motion: true)
        d.press(.key(.enter))
        let before = d.engine.inputReductions
        d.press(.key(.character("]")))   // a cube starts
        d.press(.key(.right))            // during it: completes, then taps
        d.press(.key(.character("q"), .alt)) // unbound Alt+q: Esc then q, still one run
        #expect(d.engine.inputReductions == before + 3)
        #expect(d.state.gesture.log.suffix(3).map(\.gesture) == ["Esc then key q", "pull down (dismiss)", "quit"])
    }
}
