import StoriesCore
import Testing
@testable import StoriesUI

/// The run loop sleeps until `AppView.secondsUntilNextChange`; these check that the screen
/// really stays the same until then and changes right after.
@Suite struct FrameTimingTests {
    func playing(width: Int = 80, height: Int = 24, after seconds: Double = 0) -> Pilot {
        var pilot = Pilot(width: width, height: height)
        pilot.press(.key(.enter))
        if seconds > 0 { pilot.wait(seconds, step: seconds) }
        return pilot
    }

    func screen(_ pilot: Pilot, at uptime: Double) -> Canvas {
        var state = pilot.state
        state.now = Moment(uptime: uptime, date: state.now.date)
        return AppView.render(state, width: pilot.backend.canvas.width, height: pilot.backend.canvas.height)
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
        let home = Pilot()
        #expect(AppView.secondsUntilNextChange(home.state, width: 80, height: 24) == nil)
        var paused = playing()
        paused.press(.key(.character(" ")))
        #expect(AppView.secondsUntilNextChange(paused.state, width: 80, height: 24) == nil)
        var help = playing()
        help.type("?")
        #expect(AppView.secondsUntilNextChange(help.state, width: 80, height: 24) == nil)
    }

    @Test func onATooSmallTerminalTheItemStillEndsOnTime() throws {
        let pilot = playing(after: 1.5)
        let delay = try #require(AppView.secondsUntilNextChange(pilot.state, width: 30, height: 8))
        #expect(abs(delay - 3.5) < 1e-9)
    }

    @Test func theLastStepIsTheEndOfTheItem() throws {
        let pilot = playing(after: 4.99)
        let delay = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(abs(delay - 0.01) < 1e-9)
    }
}
