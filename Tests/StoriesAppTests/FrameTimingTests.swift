import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

/// The run loop sleeps until `AppView.secondsUntilNextChange`; these check that the screen
/// really stays the same until then and changes right after.
@MainActor
@Suite struct FrameTimingTests {
    func playing(width: Int = 80, height: Int = 24, after seconds: Double = 0) -> AppDriver {
        let pilot = AppDriver(width: width, height: height)
        pilot.press(.key(.enter))
        if seconds > 0 { pilot.frame(after: seconds) }
        return pilot
    }

    func screen(_ pilot: AppDriver, at uptime: Double) -> Canvas {
        var state = pilot.state
        state.now = Moment(uptime: uptime, date: state.now.date)
        return pilot.render(state) // the photo as the cache has it
    }

    @Test(arguments: [0.0, 0.5, 1.234, 2.0, 3.9])
    func theScreenChangesExactlyWhenItSays(elapsed: Double) throws {
        let pilot = playing(after: elapsed)
        let delay = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        let now = pilot.state.now.uptime
        #expect(delay > 0)
        #expect(screen(pilot, at: now + delay * 0.98) == screen(pilot, at: now), "changed early")
        #expect(screen(pilot, at: now + delay + 1e-6) != screen(pilot, at: now), "no change when promised")
    }

    @Test func aThreeItemStoryAt80ColumnsMovesEveryHalfCell() throws {
        // 78 columns of bar, 3 segments: 26 + 25 + 25 cells; the first item (5 s) moves every 5/52 s.
        #expect(ProgressBar.layout(width: 78, segments: 3).widths == [26, 25, 25])
        let delay = try #require(AppView.secondsUntilNextChange(playing().state, width: 80, height: 24))
        #expect(abs(delay - 5.0 / 52) < 1e-9)
    }

    @Test func nothingMovesOnHomeWhilePausedOrUnderTheHelp() {
        let home = AppDriver()
        #expect(AppView.secondsUntilNextChange(home.state, width: 80, height: 24) == nil)
        let paused = playing()
        paused.press(.key(.character(" ")))
        #expect(AppView.secondsUntilNextChange(paused.state, width: 80, height: 24) == nil)
        let help = playing()
        help.type("?")
        #expect(AppView.secondsUntilNextChange(help.state, width: 80, height: 24) == nil)
    }

    @Test func aTerminalTooSmallStopsTheItemAndItsFramesUntilItGrowsBack() throws {
        let pilot = playing(after: 1.5)
        pilot.resize(width: 30, height: 8)
        #expect(AppView.secondsUntilNextChange(pilot.state, width: 30, height: 8) == nil, "no frames while too small")
        pilot.wait(10)
        #expect(abs((pilot.elapsed ?? 0) - 1.5) < 1e-9, "nobody saw it: it did not play")
        #expect(pilot.position! == (0, 0), "and did not move on")
        pilot.resize(width: 80, height: 24)
        pilot.wait(1)
        #expect(abs((pilot.elapsed ?? 0) - 2.5) < 1e-9, "back where it was, playing")
    }

    /// While the screen is too small nothing can be seen, so keys that would move on do
    /// nothing and nothing more is marked seen; q still quits.
    @Test func aTerminalTooSmallMovesOnAndMarksNothing() throws {
        let pilot = playing(after: 1.5)
        let seen = pilot.state.seen
        pilot.resize(width: 30, height: 8)
        pilot.press(.key(.right), .key(.right), .key(.character("]")), .key(.character("]")))
        pilot.click(column: 25, row: 4)
        pilot.wait(30)
        #expect(pilot.position! == (0, 0), "still on the first item")
        #expect(pilot.state.seen == seen, "nothing more marked seen")
        pilot.resize(width: 80, height: 24)
        #expect(pilot.position! == (0, 0))
    }

    @Test func theLastStepIsTheEndOfTheItem() throws {
        let pilot = playing(after: 4.99)
        let delay = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(abs(delay - 0.01) < 1e-9)
    }

    /// Enter on a story whose items are still on their way: the loading ring turns, a step
    /// every 1/12 s, exactly when the run loop is told; once the items arrive (or the
    /// opening is stopped) nothing moves on the row again.
    @Test(arguments: [0.0, 0.04, 0.5, 1.7])
    func theLoadingRingTurnsExactlyWhenItSays(elapsed: Double) throws {
        let pilot = AppDriver.firstPageOnly()
        pilot.press(.key(.enter))
        #expect(pilot.state.row.opening != nil)
        if elapsed > 0 { pilot.frame(after: elapsed) }
        let delay = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        let now = pilot.state.now.uptime
        #expect(delay > 0 && delay <= 1 / Bubble.spinnerStepsPerSecond + 1e-9)
        #expect(screen(pilot, at: now + delay * 0.98) == screen(pilot, at: now), "changed early")
        #expect(screen(pilot, at: now + delay + 1e-6) != screen(pilot, at: now), "no change when promised")

        pilot.press(.key(.escape))
        #expect(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24) == nil, "stopped: still again")
    }

    @Test func theRingGoesRoundInEighteenSteps() {
        let pilot = AppDriver.firstPageOnly()
        pilot.press(.key(.enter))
        let start = pilot.state.now.uptime
        // Mid-step moments, so rounding never lands on a boundary.
        let frames = (0...18).map { screen(pilot, at: start + (Double($0) + 0.5) / Bubble.spinnerStepsPerSecond).cells }
        let distinct = Set(frames.prefix(18).map { $0.map { "\(String(describing: $0.grapheme))\($0.style)" }.joined() }).count
        #expect(Bubble.ringCells(left: 0, top: 0).count == 18)
        #expect(distinct == 18, "every step differs")
        let backToStart = frames[18] == frames[0]
        #expect(backToStart, "and after eighteen it is back where it began")
    }
}
