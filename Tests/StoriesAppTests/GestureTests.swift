import Foundation
import StoriesApp
import Testing
@testable import StoriesCore

/// Gestures through the real engine: inputs in as the terminal sends them, on a 90×30
/// screen over three text stories (a: 2 items, b: 3, c: 1), time moved by the test.
@MainActor
final class GestureRig {
    let d: AppDriver

    init(motion: Bool = false) {
        d = AppDriver(width: 90, height: 30, source: MemoryFeed(title: "Test", load: FeedLoad(stories: Self.stories, warnings: [])),
                      motion: motion)
    }

    static func story(_ id: String, items count: Int, duration: Double = 5) -> Story {
        Story(id: id, author: Author(name: id.uppercased()),
              items: (0..<count).map { StoryItem(id: "\(id)\($0)", content: .text("t", background: RGB(0, 0, 0)), duration: duration) })
    }

    static let stories = [story("a", items: 2), story("b", items: 3), story("c", items: 1)]

    var state: AppState { d.state }
    func key(_ key: Key, _ modifiers: Modifiers = []) { d.press(.key(key, modifiers)) }
    func mouse(_ kind: MouseEvent.Kind, _ column: Int, _ row: Int) { d.mouse(kind, column: column, row: row) }
    /// Time passes; the hold check and frame ticks come when they are due.
    func wait(_ seconds: Double) { d.wait(seconds) }
    var last: GestureDecision? { d.lastDecision }
    var position: (story: Int, item: Int)? { d.position }
    var elapsed: Double? { d.elapsed }
}

@MainActor
@Suite struct GestureTests {
    func opened(motion: Bool = false) -> GestureRig {
        let r = GestureRig(motion: motion)
        r.key(.enter)
        r.d.deliver(.completeTransition)
        return r
    }

    @Test func aClickInTheLeftThirdGoesBackAndTheRestGoesOn() {
        let r = opened()
        r.mouse(.press(.left), 60, 12)
        #expect(r.last?.gesture == "press")
        r.wait(0.05)
        r.mouse(.release(.left), 60, 12)
        #expect(r.position! == (0, 1))
        let tap = r.last
        #expect(tap?.gesture == "tap right")
        #expect(tap?.handler == "viewer.tapZones")
        #expect(tap?.result == ["nextItem"])
        #expect(tap?.declined.map(\.recognizer) == ["hold", "swipe"])
        #expect(tap?.declined.first?.reason == "released after 50 ms, under 250 ms")
        r.mouse(.press(.left), 5, 12)
        r.mouse(.release(.left), 5, 12)
        #expect(r.position! == (0, 0))
        #expect(r.last?.gesture == "tap left")
    }

    @Test func aClickExactlyOnTheZoneEdgeBelongsToTheRight() {
        let r = opened()
        r.key(.right)                     // item 1, so "back" is visible
        r.mouse(.press(.left), 29, 12)          // 90 / 3 = 30: columns 0–29 are the left third
        r.mouse(.release(.left), 29, 12)
        #expect(r.position! == (0, 0))
        r.mouse(.press(.left), 30, 12)
        r.mouse(.release(.left), 30, 12)
        #expect(r.position! == (0, 1))
        #expect(r.last?.notes.first == "column 30 is in the right two thirds (30–89)")
    }

    @Test func holdPausesAndItsReleaseResumesWithoutATap() {
        let r = opened()
        r.wait(1)
        r.mouse(.press(.left), 60, 12)
        #expect(GestureRecognizer.holdCheckTime(r.state.gesture.pointer) == r.d.now.uptime + 0.25)
        r.wait(0.3)
        #expect(r.last?.gesture == "hold")
        #expect(r.state.isHeld == true)
        let held = r.elapsed
        r.wait(2)
        #expect(r.elapsed == held, "no progress while held")
        r.mouse(.release(.left), 60, 12)
        #expect(r.last?.gesture == "hold ended")
        #expect(r.last?.declined.first?.reason == "released after a hold")
        #expect(r.position! == (0, 0), "the release did not also tap")
        #expect(r.state.isHeld == false)
        r.wait(1)
        #expect(abs(r.elapsed! - held! - 1) < 1e-9)
    }

    @Test func aDragLocksToItsFirstAxis() {
        let r = opened()
        r.mouse(.press(.left), 60, 12)
        r.mouse(.drag(.left), 58, 12)           // 2 columns: horizontal
        #expect(r.state.drag == .swipe(offset: -2.0 / 90))
        #expect(r.last?.declined.first?.recognizer == "pullDown")
        r.mouse(.drag(.left), 50, 25)           // now mostly down: still a swipe
        #expect(r.state.drag == .swipe(offset: -10.0 / 90))
        r.mouse(.release(.left), 50, 25)
        #expect(r.last?.gesture == "swipe cancelled (snaps back)")
        #expect(r.position! == (0, 0))

        r.mouse(.press(.left), 60, 5)
        r.mouse(.drag(.left), 60, 6)            // 1 row down: vertical
        #expect(r.state.drag == .dismiss(offset: 1.0 / 30))
        r.mouse(.drag(.left), 20, 7)            // then far left: still a pull-down
        #expect(r.state.drag == .dismiss(offset: 2.0 / 30))
        #expect(r.last?.handler == "viewer.pullDown")
    }

    @Test func aSmallWobbleIsNotYetADrag() {
        let r = opened()
        r.mouse(.press(.left), 60, 12)
        r.mouse(.drag(.left), 61, 12)
        #expect(r.state.drag == nil)
        #expect(r.last?.gesture == "drag (still under the slop)")
        r.mouse(.release(.left), 61, 12)
        #expect(r.last?.gesture == "tap right", "a wobble under the slop still taps")
    }

    /// 90 columns: a quarter is 22.5, so 22 columns (22 × 4 = 88 < 90) is short, 23 is enough.
    @Test(arguments: [(21, false), (22, false), (23, true)])
    func aSwipeCompletesFromAQuarterOfTheWidth(distance: Int, completes: Bool) {
        let r = opened()
        r.mouse(.press(.left), 80, 12)
        r.mouse(.drag(.left), 70, 12)
        r.mouse(.drag(.left), 80 - distance, 12)
        r.mouse(.release(.left), 80 - distance, 12)
        #expect((r.position!.story == 1) == completes)
        #expect(r.last?.gesture == (completes ? "swipe to the next story" : "swipe cancelled (snaps back)"))
    }

    @Test func aSwipeRightGoesToThePreviousStory() {
        let r = opened()
        r.key(.character("]"))
        r.mouse(.press(.left), 10, 12)
        r.mouse(.drag(.left), 40, 12)
        r.mouse(.release(.left), 40, 12)
        #expect(r.position!.story == 0)
        #expect(r.last?.gesture == "swipe to the previous story")
    }

    @Test(arguments: [(5, false), (6, true)])
    func aPullDownDismissesFromAFifthOfTheHeight(rows: Int, dismisses: Bool) {
        let r = opened()
        r.mouse(.press(.left), 45, 3)
        r.mouse(.drag(.left), 45, 3 + rows)
        r.mouse(.release(.left), 45, 3 + rows)
        #expect((r.state.viewer == nil) == dismisses)
        #expect(r.last?.notes.first == "\(rows) rows down, \(dismisses ? "at least" : "under") 6")
    }

    @Test func dragLeftThenDownThenReleaseIsOneSwipe() {
        let r = opened(motion: true)
        r.mouse(.press(.left), 70, 10)
        r.mouse(.drag(.left), 50, 10)
        r.mouse(.drag(.left), 40, 20)
        r.mouse(.release(.left), 40, 20)
        #expect(r.position!.story == 1, "30 columns left: the next story")
        #expect(r.state.viewer != nil, "the downward part never dismissed")
        guard case .cube? = r.state.viewing.transition?.kind else {
            Issue.record("expected a cube turning on from the drag")
            return
        }
    }

    @Test func aClickDuringThePresentCompletesItThenTaps() {
        let r = GestureRig(motion: true)
        r.key(.enter)
        #expect(GesturePhase(r.state) == .presenting)
        r.wait(0.05)
        r.mouse(.press(.left), 70, 12)
        #expect(r.state.viewing.transition == nil, "the press completed the present")
        #expect(r.last?.result == ["completeTransition"])
        r.mouse(.release(.left), 70, 12)
        #expect(r.position! == (0, 1))
    }

    @Test func fiveKeyTapsWithin100MillisecondsDuringACube() {
        let r = opened(motion: true)
        r.key(.character("]"))
        #expect(GesturePhase(r.state) == .transitioning)
        for _ in 0..<5 {
            r.wait(0.02)
            r.key(.right)
        }
        // b0 b1 b2 c0, then past the last story the viewer is dismissed; none was lost, and
        // the fifth → (after the dismiss ended at once) moves along the row.
        #expect(r.state.viewer == nil)
        let taps = r.state.gesture.log.suffix(5)
        #expect(taps.map(\.gesture) == ["tap right", "tap right", "tap right", "tap right", "choose a story"])
        #expect(taps.last?.result == ["completeTransition", "selectNext"])
        #expect(taps.first?.result == ["completeTransition", "nextItem"])
    }

    @Test func onTheRowAClickOnABubbleOpensItOnRelease() {
        let r = GestureRig()
        r.mouse(.press(.left), 13, 3)           // bubble 2
        #expect(r.state.viewer == nil, "nothing opens on the press")
        r.mouse(.release(.left), 14, 4)
        #expect(r.position! == (1, 0))
        #expect(r.last?.gesture == "click on bubble 2")
        #expect(r.last?.result == ["select 2", "open"])
    }

    @Test func aPressThatLeavesItsBubbleOpensNothing() {
        let r = GestureRig()
        r.mouse(.press(.left), 13, 3)
        r.mouse(.release(.left), 25, 3)
        #expect(r.state.viewer == nil)
        #expect(r.last?.declined.first?.reason == "released off bubble 2")
        r.mouse(.press(.left), 60, 20)
        #expect(r.last?.declined.first?.reason == "no bubble or cell at 60,20")
    }

    @Test func keysBecomeGesturesWithTheirHandlers() {
        let r = GestureRig()
        r.key(.right)
        #expect(r.last?.handler == "home.ring")
        r.key(.enter)
        r.key(.character("]"))
        #expect(r.last?.gesture == "swipe to the next story")
        #expect(r.last?.handler == "viewer.cube")
        r.key(.character(" "))
        #expect(r.last?.handler == "viewer.playback")
        r.key(.character("x"))
        #expect(r.last?.gesture == "none")
        #expect(r.last?.declined == [.init("keys.viewer", "no binding for x")])
        r.key(.down)
        #expect(r.last?.gesture == "pull down (dismiss)")
        #expect(r.state.viewer == nil)
    }

    @Test func anUnboundAltKeyIsReadAsEscThenTheKey() {
        let r = opened()
        r.key(.character("q"), .alt)
        #expect(r.state.viewer == nil, "Esc dismissed")
        #expect(r.state.gesture.log.suffix(3).map(\.gesture) == ["Esc then key q", "pull down (dismiss)", "quit"])
    }

    @Test func theHelpTakesAClickAndTooSmallATerminalTakesNone() {
        let r = opened()
        r.key(.character("?"))
        r.mouse(.press(.left), 60, 12)
        #expect(r.state.chrome.modal != .help)
        #expect(r.last?.handler == "overlay.help")
        r.d.resize(width: 30, height: 30)
        r.mouse(.press(.left), 20, 12)
        r.mouse(.release(.left), 20, 12)
        #expect(r.position! == (0, 0))
        #expect(r.last?.declined.first?.recognizer == "all")
    }

    @Test func theWheelChoosesOnTheRowAndIsDeclinedInTheViewer() {
        let r = GestureRig()
        r.mouse(.wheelDown, 10, 3)
        #expect(r.state.row.selection == 1)
        r.mouse(.wheelUp, 10, 3)
        #expect(r.state.row.selection == 0)
        r.key(.enter)
        r.mouse(.wheelDown, 10, 3)
        #expect(r.last?.declined.first?.reason == "the wheel means nothing in the viewer")
    }

    @Test func theLogKeepsTheLatestDecisions() {
        let r = GestureRig()
        for _ in 0..<(PointerState.logLimit + 5) { r.key(.right) }
        #expect(r.state.gesture.log.count == PointerState.logLimit)
    }
}
