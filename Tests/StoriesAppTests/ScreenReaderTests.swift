import StoriesFeedIO
import StoriesTestSupport
import Foundation
import StoriesApp
import StoriesCore
import Testing

/// Issue 33: the screen-reader mode through the real engine on the virtual clock — what a
/// listener hears for a walk through the demo, typed as words and key names.
@MainActor struct ScreenReaderTests {
    final class Transcript {
        var lines: [String] = []
        var status: Int32?
    }

    /// Runs `script` (one typed line each) against the demo, over a network whose answers
    /// take `latency`, and returns what was said. `settled`: the lines are typed once the
    /// first second has passed (else at once, before the feed is there).
    private func walk(_ script: [String], latency: Double = 0, settled: Bool = true, seconds: Double = 120) -> Transcript {
        let scheduler = VirtualScheduler(start: Fixture.moment)
        let client = FeedClient(source: Fixture.demoSource, profile: latency > 0 ? AppDriver.network(latency: latency) : .local)
        let transcript = Transcript()
        let run = ScreenReaderRun(client: client, scheduler: scheduler, services: VirtualServices(client: client, scheduler: scheduler),
                                  options: ScreenReaderRun.Options()) { transcript.lines.append($0) }
        run.finish = { transcript.status = $0 }
        run.start()
        if settled { scheduler.run(until: scheduler.now().uptime + 1) }
        for line in script { run.take(line) }
        run.endOfInput()
        let end = scheduler.now().uptime + seconds
        while transcript.status == nil, scheduler.now().uptime < end, scheduler.runNext() {}
        return transcript
    }

    /// The count the corner shows, said once when a page adds stories ("Now 11 stories."),
    /// so "Story 2 of 11" after "10 stories so far" is not a second count (issue 46, point 4).
    @Test func aWalkThroughTheDemo() {
        let heard = walk(["next", "open", "wait 1", "pause", "where", "play", "wait 6", "next story", "wait 1", "close",
                          "open 10", "wait 1", "mute", "Esc", "find layla", "", "quit"])
        #expect(heard.status == 0)
        let expected = """
        1. stories, screen-reader mode. Type help for the commands, quit to leave.
        2. Loading Demo stories…
        3. Demo stories: 10 stories so far.
        4. Story 1 of 10 so far, Ayla Demir, 3 items, all new.
        5. Now 11 stories.
        6. Story 2 of 11, Mika 🌸, 3 items, all new.
        7. Item 1 of 3: photo, A ginger tabby cat looking up. ‘Chelsea supervising the morning. 🐈’ 5 seconds.
        8. Paused.
        9. Story 2 of 11, Mika 🌸, 3 items.
        10. Item 1 of 3: photo, A ginger tabby cat looking up. ‘Chelsea supervising the morning. 🐈’ 5 seconds.
        11. Paused.
        12. Playing.
        13. Item 1 of 3 ended. next goes on.
        14. Story 3 of 11, 山田 花子, 2 items.
        15. Item 1 of 2: text, ‘おはようございます！ 今日も良い一日を。’ ‘朝のあいさつ’ 5 seconds.
        16. Back to the stories.
        17. Story 3 of 11, 山田 花子, 2 items, 1 new.
        18. Opening story 10, 🚀 Launch Club…
        19. Item 1 of 5: photo, A white rocket on its launch pad under a clear sky. ‘T-minus 10 minutes.’ 5 seconds.
        20. 🔇 Sound off (m turns it on)
        21. Back to the stories.
        22. Story 10 of 11, 🚀 Launch Club, 5 items, 4 new.
        23. Story 4 of 11, ليلى حسن, 4 items, all new.
        24. Story 4 of 11, ليلى حسن, 4 items, all new.
        """
        #expect(heard.lines.joined(separator: "\n") == expected, "\(heard.lines.joined(separator: "\n"))")
    }

    /// Lines typed before the feed is there wait for it (a script needs no `wait` to begin),
    /// and a command that changes nothing is answered all the same.
    @Test func linesWaitForTheFeedAndEveryCommandIsAnswered() {
        let transcript = walk(["previous", "open", "quit"], latency: 2, settled: false, seconds: 30)
        let heard = transcript.lines.joined(separator: "\n")
        #expect(heard.contains("3. One moment: still loading."), "\(heard)")
        #expect(heard.contains("Nothing happened there."), "previous at the start of the row: \(heard)")
        #expect(heard.contains("Item 1 of 3: photo, Portrait of an astronaut"), "the open waited for the feed: \(heard)")
        #expect(transcript.status == 0)
    }

    /// A `next` onto an item whose photo is still on its way is news (said when it shows),
    /// not "nothing happened"; an item that has played its time waits for `next`.
    @Test func aNextOntoALoadingPhotoIsNewsAndItemsWaitAtTheirEnd() {
        let transcript = walk(["open 6", "next", "next", "next", "wait 20", "where", "quit"], latency: 1, settled: false)
        let heard = transcript.lines.joined(separator: "\n")
        #expect(!heard.contains("Nothing happened there."), "\(heard)")
        #expect(heard.contains("Item 4 of 5: photo, Portrait of an astronaut"), "\(heard)")
        #expect(heard.contains("Item 4 of 5 ended. next goes on."), "it waited at its end: \(heard)")
        #expect(!heard.contains("Item 5 of 5"), "and did not move on by itself: \(heard)")
    }
}

