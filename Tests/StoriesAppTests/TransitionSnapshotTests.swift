import StoriesCells
import Foundation
import StoriesTestSupport
import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

/// Animation frames at fixed fractions of their timelines, as text.
@MainActor
@Suite struct TransitionSnapshotTests {
    func pilot() -> AppDriver { AppDriver(width: 80, height: 24, motion: true) }

    @Test func presentGrowsOutOfTheBubble() {
        let pilot = pilot()
        pilot.press(.key(.right), .key(.enter))
        let start = pilot.text
        #expect(start.contains("Mika 🌸  @mika.blooms"), "at 0 the row is still all there (darkened)")
        pilot.frame(after: 0.125)                 // half the time: ease-out 0.875 of the way
        expectSnapshot(pilot.snapshot(), named: "present-half-80x24")
        pilot.frame(after: 0.125)
        #expect(pilot.lines[1].contains("Mika 🌸") && pilot.lines[1].hasSuffix("1/3"), "the whole viewer at the end")
        #expect(pilot.state.viewing.transition == nil)
    }

    @Test func theCubeTurnsBetweenStories() {
        let pilot = pilot()
        pilot.press(.key(.enter))
        pilot.frame(after: 0.25)
        pilot.press(.key(.character("]")))
        pilot.frame(after: 0.15)                   // half the time: ease-in-out half way
        expectSnapshot(pilot.snapshot(), named: "cube-half-80x24")
        // Half way, the seam is in the middle: each face has half the width.
        guard let motion = TransitionView.motion(of: pilot.state), case .cube(_, _, _, let turn) = motion else {
            Issue.record("no cube")
            return
        }
        #expect(abs(turn - 0.5) < 1e-9)
    }

    @Test func aPullDownFollowsThePointerAndShrinksTowardsTheBubble() {
        let pilot = pilot()
        pilot.press(.key(.enter))
        pilot.frame(after: 0.25)
        pilot.drag(from: (40, 4), to: (40, 10), steps: 3, release: false)
        expectSnapshot(pilot.snapshot(), named: "pull-down-6-rows-80x24")
        #expect(pilot.state.drag == .dismiss(offset: 0.25))
        let rect = TransitionView.zoomRect(pilot.state, storyIndex: 0, scale: 0.75, width: 80, height: 24)
        #expect(rect.width < 80 && rect.height < 24 && rect.x >= 0, "\(rect)")
        pilot.mouse(.release(.left), column: 40, row: 10)
        #expect(pilot.state.viewer == nil, "6 rows of 24 is past a fifth")
        pilot.frame(after: 0.1)
        expectSnapshot(pilot.snapshot(), named: "dismiss-into-bubble-80x24")
    }

    @Test func aSidewaysDragTurnsTheCubeWithThePointer() {
        let pilot = pilot()
        pilot.press(.key(.enter))
        pilot.frame(after: 0.25)
        pilot.drag(from: (70, 12), to: (50, 12), steps: 2, release: false)
        guard let motion = TransitionView.motion(of: pilot.state), case .cube(let leaving, let arriving, let forward, let turn) = motion else {
            Issue.record("no cube")
            return
        }
        #expect(leaving.storyIndex == 0 && arriving.storyIndex == 1 && forward)
        #expect(abs(turn - 0.25) < 1e-9)
        // The arriving face (Mika, from the right) takes the right quarter of the screen.
        expectSnapshot(pilot.snapshot(), named: "cube-drag-quarter-80x24")
        pilot.mouse(.release(.left), column: 50, row: 12)
        #expect(pilot.state.viewer?.storyIndex == 1, "20 of 80 columns is a quarter: it completes")
    }

    @Test func everyFrameIsDrawnWhileAnAnimationRunsAndNoneAfter() {
        let pilot = pilot()
        pilot.press(.key(.enter))
        #expect(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24) == 0)
        pilot.wait(0.3)
        pilot.press(.key(.escape))
        #expect(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24) == 0)
        pilot.wait(0.3)
        #expect(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24) == nil, "the row at rest: no frames")
    }

    @Test func reduceMotionDrawsNoMovement() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter))
        #expect(pilot.lines[1].contains("Ayla Demir"), "the viewer at once")
        pilot.drag(from: (40, 4), to: (40, 10), steps: 3, release: false)
        #expect(TransitionView.motion(of: pilot.state) == nil)
        #expect(pilot.lines[1].contains("Ayla Demir"), "a drag does not move the screen")
        pilot.mouse(.release(.left), column: 40, row: 10)
        #expect(pilot.state.viewer == nil, "but it still dismisses")
        #expect(pilot.text.contains("Ayla Demir  @ayla"))
    }

    @Test func theGestureOverlayExplainsEachDecision() {
        let pilot = AppDriver(width: 100, height: 30)
        pilot.press(.key(.enter))
        pilot.type("g")
        pilot.click(column: 80, row: 15)
        pilot.mouse(.press(.left), column: 80, row: 15)
        pilot.wait(0.3)
        pilot.mouse(.release(.left), column: 80, row: 15)
        expectSnapshot(pilot.snapshot(), named: "gesture-overlay-100x30")
        #expect(pilot.text.contains("Gestures · now: viewing · motion off"), "the pilot runs with reduce motion")
        #expect(pilot.text.contains("→ hold → viewer.playback → hold (pause)"))
        #expect(pilot.text.contains("declined: tap (released after a hold)"))
    }
}

/// Issue 29, point 2: text is never resampled. In every frame of the zoom, the cube, a
/// sideways drag and a pull-down, each run of text drawn is a piece of a text shown at rest
/// (moved and cut with its face, never with letters dropped: before, "Trinin da at he
/// pacecenre." while opening).
@MainActor
@Suite struct TextKeepsItsWordsTests {
    /// The runs of text on a screen, split where their colour changes.
    static func texts(_ canvas: Canvas) -> [String] {
        canvas.textRuns().flatMap { run -> [String] in
            var pieces: [String] = [], current = "", colour: Color?
            for cell in run.cells {
                guard let grapheme = cell.grapheme else { continue }
                if grapheme != " ", let colour, cell.style.foreground != colour {
                    pieces.append(current)
                    current = ""
                }
                if grapheme != " " { colour = cell.style.foreground }
                current.append(grapheme)
            }
            pieces.append(current)
            return pieces.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// Every text the screens at rest show, one line each.
    static func atRest(_ screens: [Canvas]) -> String {
        screens.flatMap { Snapshot.lines(of: $0) }.joined(separator: "\n")
    }

    func expectWhole(_ frames: [Canvas], rest: String, _ what: String) {
        var checked = 0
        for (index, frame) in frames.enumerated() {
            for text in Self.texts(frame) {
                checked += 1
                #expect(rest.contains(text), "\(what), frame \(index): '\(text)' is not a piece of any text at rest")
            }
        }
        #expect(checked > frames.count, "\(what): text was drawn in the frames (\(checked) runs in \(frames.count))")
    }

    /// Frames every 1/60 s until the animation is over.
    func frames(_ pilot: AppDriver) -> [Canvas] {
        var frames: [Canvas] = []
        while pilot.state.viewing.transition != nil, frames.count < 100 {
            pilot.frame(after: 1.0 / 60)
            frames.append(pilot.canvas)
        }
        return frames
    }

    /// Every screen at rest the transitions pass between: the home, and each item of the
    /// first three stories in the viewer.
    static func restScreens(width: Int, height: Int) -> String {
        let pilot = AppDriver(width: width, height: height)
        var screens = [pilot.canvas]
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.press(.key(.escape)) // the home with the first item seen: its next one previewed
        screens.append(pilot.canvas)
        pilot.press(.key(.enter))
        pilot.wait(1)
        screens.append(pilot.canvas) // playing: "Space pause" on the hint line
        for _ in 0..<9 {
            pilot.press(.key(.character(" ")))
            screens.append(pilot.canvas)
            pilot.press(.key(.character(" ")), .key(.right))
            pilot.wait(1)
        }
        pilot.press(.key(.escape))
        screens.append(pilot.canvas)
        return atRest(screens)
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)])
    func theZoomAndTheCube(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height, motion: true)
        pilot.press(.key(.enter))
        let opening = frames(pilot)
        pilot.press(.key(.character("]")))
        let cube = frames(pilot)
        pilot.press(.key(.character("[")))
        let back = frames(pilot)
        let rest = Self.restScreens(width: width, height: height)
        expectWhole(opening, rest: rest, "the zoom at \(width)×\(height)")
        expectWhole(cube + back, rest: rest, "the cube at \(width)×\(height)")
        #expect(opening.count > 5 && cube.count > 5)
    }

    @Test func dragsSidewaysAndDown() {
        let pilot = AppDriver(width: 80, height: 24, motion: true)
        pilot.press(.key(.enter))
        pilot.frame(after: 0.3)
        var frames: [Canvas] = []
        // Sideways, a column at a time, and held.
        pilot.mouse(.press(.left), column: 70, row: 12)
        for column in stride(from: 69, through: 30, by: -1) {
            pilot.mouse(.drag(.left), column: column, row: 12)
            frames.append(pilot.canvas)
        }
        pilot.mouse(.drag(.left), column: 70, row: 12)
        pilot.mouse(.release(.left), column: 70, row: 12)
        pilot.frame(after: 0.5)
        // Down, a row at a time.
        pilot.mouse(.press(.left), column: 40, row: 3)
        for row in 4...20 {
            pilot.mouse(.drag(.left), column: 40, row: row)
            frames.append(pilot.canvas)
        }
        expectWhole(frames, rest: Self.restScreens(width: 80, height: 24), "drags")
    }
}
