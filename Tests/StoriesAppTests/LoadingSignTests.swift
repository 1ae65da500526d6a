import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 29, point 4: a photo that is slow to come shows the loading ring's spinner over
/// its placeholder after 300 ms, says why after 3 s, and nothing else moves meanwhile.
@MainActor
@Suite struct LoadingSignTests {
    /// The viewer open on Ayla's first photo, its bytes 4 s away.
    func openOnASlowPhoto() -> AppDriver {
        let pilot = AppDriver(width: 80, height: 24, network: AppDriver.network(latency: 4), preload: .off)
        pilot.wait(4) // the first page
        pilot.press(.key(.enter))
        pilot.wait(4) // the story's items: the viewer opens, the photo is asked for
        return pilot
    }

    func signRows(_ pilot: AppDriver) -> [String] {
        Snapshot.lines(of: pilot.canvas).filter { $0.contains("loading…") || $0.contains("┄") || $0.contains("┆") }
    }

    @Test func theSignComesAfterAMomentAndSaysWhyAfterThreeSeconds() throws {
        let pilot = openOnASlowPhoto()
        #expect(pilot.state.viewer != nil && pilot.state.awaitsMedia)
        let since = try #require(pilot.state.media.waiting).since
        #expect(signRows(pilot).isEmpty, "no sign at once: a photo that comes soon never flashes one")
        #expect(pilot.state.wantsFrames, "the sign is due: a frame is")
        pilot.wait(0.35)
        var text = pilot.text
        #expect(text.contains("loading…") && !text.contains("slow network"), "\(text)")
        #expect(text.contains("┆"), "the loading ring's dotted sides")
        // The spinner turns: its head moves from one frame to the next.
        let before = pilot.snapshot(styles: true)
        pilot.wait(0.2)
        #expect(pilot.snapshot(styles: true) != before, "the head has moved on")
        pilot.wait(3 - 0.55 - (pilot.now.uptime - since - 0.55) + 0.1)
        text = pilot.text
        #expect(text.contains("loading… (slow network)"), "\(text)")
        // Nothing else moves: the item's clock waits, and the item is not seen.
        #expect(pilot.state.viewer?.playback.elapsed(at: pilot.now.uptime) == 0)
        #expect(!pilot.state.seen.isSeen(story: "ayla", item: pilot.state.feed.store.story(at: 0)?.items.first?.id ?? ""))
        // The photo comes: the sign goes, the clock runs, and no frame is wanted for the sign.
        pilot.wait(1)
        #expect(pilot.state.media.waiting == nil)
        #expect(signRows(pilot).isEmpty, "\(pilot.text)")
        #expect(pilot.state.viewer?.playback.isRunning == true)
    }

    @Test func aPictureThatFailedShowsItsReasonNotTheSign() throws {
        let pilot = openOnASlowPhoto()
        let location = try #require(pilot.state.visibleMedia?.location)
        pilot.deliver(.mediaNews(.pictures([PictureNews(location, .failed("not a JPEG: the file is damaged"))])))
        pilot.wait(0.5)
        #expect(pilot.state.media.waiting == nil)
        #expect(!pilot.text.contains("loading…"))
        #expect(pilot.text.contains("not a JPEG"))
    }

    @Test func whileWaitingTheAppSleepsBetweenSpinnerSteps() throws {
        let pilot = openOnASlowPhoto()
        let first = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(first > 0.25 && first <= 0.31, "the first frame is the sign's: \(first)")
        pilot.wait(0.4)
        let step = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(step > 0 && step <= 1 / Bubble.spinnerStepsPerSecond + 1e-6, "one spinner step at a time: \(step)")
    }
}
