import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import Testing

/// Issue 28, point 3: media failures follow the same policy as pages. A source that goes
/// away and comes back (a server stopped and started under a viewing session): what failed
/// for a reason that may pass is asked for again with backoff while it is wanted, and at
/// once when the source answers again; what failed for good is said once and never asked
/// again; nothing counts as seen that was not shown.
@MainActor
@Suite struct MediaRetryTests {
    /// The source's switch, and what was asked of it. Tests flip it between steps of the
    /// virtual clock; the fetches read it on the same thread (inline services), the lock is
    /// for the compiler's sake. `@unchecked Sendable`: every field is behind `lock`.
    final class Source: @unchecked Sendable {
        private let lock = NSLock()
        private var _down = true
        private var _fetches: [String: Int] = [:]
        private var _storyFetches: [StoryID: Int] = [:]
        var down: Bool {
            get { lock.withLock { _down } }
            set { lock.withLock { _down = newValue } }
        }
        func fetches(_ location: String) -> Int { lock.withLock { _fetches[location, default: 0] } }
        func storyFetches(_ id: StoryID) -> Int { lock.withLock { _storyFetches[id, default: 0] } }
        func fetched(_ location: String) { lock.withLock { _fetches[location, default: 0] += 1 } }
        func storyFetched(_ id: StoryID) { lock.withLock { _storyFetches[id, default: 0] += 1 } }
    }

    nonisolated static let refused = "cannot reach the server: connection refused"
    static let astronaut = "media/astronaut.jpg"

    /// The demo feed whose media (and, with `storiesToo`, stories' items) fail with a
    /// refused connection while `source.down`.
    static func feed(_ source: Source, storiesToo: Bool = false, permanent: Set<String> = []) -> MemoryFeed {
        var feed = MemoryFeed(load: Fixture.demo, media: { location, maxBytes throws(FeedError) in
            source.fetched(location)
            if permanent.contains(location) { throw FeedError(file: location, reason: "the server answered 404") }
            if source.down { throw FeedError(file: location, reason: refused, isTransient: true) }
            return try Fixture.demoFeed?.media(at: location, maxBytes: maxBytes)
        })
        if storiesToo {
            feed.storyFailure = { id in
                source.storyFetched(id)
                return source.down ? FeedError(file: "stories/\(id).json", reason: refused, isTransient: true) : nil
            }
        }
        return feed
    }

    @Test func aPhotoTheSourceDidNotAnswerForComesBackByItselfAndIsOnlyThenSeen() throws {
        let source = Source()
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source))
        driver.press(.key(.enter))
        #expect(driver.position?.story == 0 && driver.position?.item == 0)
        #expect(driver.text.contains("cannot show this photo"))
        #expect(driver.text.contains("cannot reach the server: connection refused"), "the reason:\n\(driver.text)")
        #expect(driver.text.contains("↻ trying again by itself"), "and that it is tried again")
        #expect(driver.state.viewer?.playback.isRunning == false, "the bar waits while the photo is not there")
        #expect(driver.state.seen.unseenCount(story: "ayla", items: ["astronaut"]) == 1, "not seen: it was not shown")
        let first = source.fetches(Self.astronaut)
        #expect(first >= 1)
        // The reducer holds it back: the preload set says it waits, and the runtime asks nothing.
        #expect(driver.state.media.preloadRequest?.waiting.contains(Self.astronaut) == true, "its window's photos wait with it")
        driver.wait(0.9)
        #expect(source.fetches(Self.astronaut) == first, "not asked before its backoff ends")

        // The source is back: the backoff's end (1 s after one failure) asks again by itself.
        source.down = false
        driver.wait(0.2)
        #expect(driver.state.media.preloadRequest?.waiting.contains(Self.astronaut) == false, "out of waiting once due")
        #expect(source.fetches(Self.astronaut) == first + 1)
        #expect(driver.state.media.status[Self.astronaut] == .ready)
        #expect(!driver.text.contains("cannot show this photo"))
        #expect(driver.state.viewer?.playback.isRunning == true)
        #expect(driver.state.seen.unseenCount(story: "ayla", items: ["astronaut"]) == 0, "shown, so seen")
        #expect(driver.state.media.retries.isEmpty)
    }

    @Test func triesBackOffWhileTheSourceStaysAway() {
        let source = Source()
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source))
        driver.press(.key(.enter))
        let first = source.fetches(Self.astronaut)
        // Backoff 1, 2, 4, 8, 16 s: by 31 s after the first failure, five more tries; not one a frame.
        driver.wait(31.5)
        #expect(source.fetches(Self.astronaut) == first + 5, "\(source.fetches(Self.astronaut)) fetches")
        #expect(driver.state.media.retries[Self.astronaut]?.attempt == 6)
        #expect(driver.text.contains("↻ trying again by itself · 6 tries so far"), "\(driver.text)")
        #expect(driver.state.viewer?.playback.isRunning == false)
    }

    @Test func whenTheSourceAnswersAgainWhatFailedIsAskedForAtOnce() {
        let source = Source()
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source))
        driver.press(.key(.enter))
        driver.wait(40) // the next try is up to 30 s away now
        let before = source.fetches(Self.astronaut)
        source.down = false
        // A story further along is opened: its items come (the news that the source is
        // back), and the photo held back is asked for in the same moment.
        let far = 7
        let farID = driver.state.feed.store.summaries[far].id
        #expect(driver.state.feed.store.items[farID] == nil, "not loaded yet: its answer is news")
        for _ in 0..<far { driver.press(.key(.character("]"))) }
        #expect(driver.position?.story == far)
        #expect(source.fetches(Self.astronaut) == before + 1, "asked again at once, not at the end of its backoff")
        #expect(driver.state.media.status[Self.astronaut] == .ready)
        #expect(driver.state.media.retries.isEmpty, "every photo the outage held back came: \(driver.state.media.retries)")
    }

    @Test func aPhotoThatFailedForGoodIsSaidOnceAndNeverAskedForAgain() {
        let source = Source()
        source.down = false
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source, permanent: [Self.astronaut]))
        driver.press(.key(.enter))
        #expect(driver.text.contains("cannot read the file: the server answered 404"))
        #expect(!driver.text.contains("trying again"))
        let asked = source.fetches(Self.astronaut)
        driver.wait(60)
        #expect(source.fetches(Self.astronaut) == asked, "a 404 is not asked for again")
        #expect(driver.state.viewer?.playback.isRunning == false, "the bar waits under the reason")
        #expect(driver.state.seen.unseenCount(story: "ayla", items: ["astronaut"]) == 1)
    }

    /// A story the viewer waits on says that it is tried again, and opens by itself when
    /// its items come.
    @Test func aStoryInTheViewerSaysItIsTriedAgainAndOpensWhenItComes() {
        let source = Source()
        source.down = false
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source, storiesToo: true))
        driver.press(.key(.enter))
        driver.finishWork()
        source.down = true // the server stops under the viewing session
        let far = 7
        #expect(driver.state.feed.store.items[driver.state.feed.store.summaries[far].id] == nil, "not loaded before the outage")
        for _ in 0..<far { driver.press(.key(.character("]"))) }
        #expect(driver.position?.story == far)
        #expect(driver.text.contains("⚠ Could not load this story"), "\(driver.text)")
        #expect(driver.text.contains("cannot reach the server: connection refused"))
        #expect(driver.text.contains("↻ trying again by itself"))
        source.down = false // and starts again
        driver.wait(2.1)
        driver.finishWork()
        #expect(driver.text.contains("1/") && !driver.text.contains("Could not load"), "\(driver.text)")
    }

    @Test func storiesMarkedByPreloadingClearWhenTheSourceComesBack() {
        let source = Source()
        source.down = true
        let driver = AppDriver(width: 120, height: 30, source: Self.feed(source, storiesToo: true))
        driver.wait(0.5)
        let failed = driver.state.feed.store.items.filter { if case .failed = $0.value { true } else { false } }.keys.sorted()
        #expect(failed.count >= 3, "preloading touched several stories: \(failed)")
        #expect(driver.text.contains("⚠"))

        source.down = false
        // Within the first backoff every story comes back by itself: the wanted ones are
        // loaded, the others lose their ⚠ (loaded when wanted).
        driver.wait(1.1)
        driver.finishWork()
        let stillFailed = driver.state.feed.store.items.filter { if case .failed = $0.value { true } else { false } }
        #expect(stillFailed.isEmpty, "\(stillFailed)")
        #expect(!driver.text.contains("⚠"), "\(driver.text)")
        #expect(driver.state.feed.storyRetries.isEmpty)
        for id in failed where source.storyFetches(id) > 1 {
            #expect(driver.state.feed.store.story(at: driver.state.feed.store.positions[id] ?? -1) != nil, "\(id) asked again and here")
        }
    }

    /// Issue 46, point 1's example: a story opened on the row during an outage, preloading
    /// off, with nothing else asking the source. Before, its ⚠ stayed for ever — nothing
    /// was wanted, so nothing was asked, so the source was never heard again. Now the bubble
    /// the person is on is retried by the policy (1, 2, 4 … 30 s) and comes back by itself;
    /// one they have moved off is not asked for, and no request storm.
    @Test(arguments: [PreloadPolicy.off, .on])
    func aStoryOpenedDuringAnOutageComesBackWhileThePersonIsOnIt(preload: PreloadPolicy) {
        let source = Source()
        source.down = false
        let driver = AppDriver(width: 80, height: 24, source: Self.feed(source, storiesToo: true), preload: preload)
        driver.finishWork()
        source.down = true
        driver.press(.key(.end), .key(.enter))
        let last = driver.state.feed.store.count - 1
        let id = driver.state.feed.store.summaries[last].id
        driver.finishWork()
        #expect(driver.state.viewer == nil && driver.text.contains("⚠"), "\(driver.text)")
        source.down = false // the server is started again; nobody presses anything
        driver.wait(60)
        driver.finishWork()
        #expect(driver.state.feed.store.story(at: last) != nil, "\(id) came back by itself:\n\(driver.text)")
        #expect(!driver.text.contains("⚠"), "\(driver.text)")
        #expect(source.storyFetches(id) <= 8, "retried by the policy, not in a storm: \(source.storyFetches(id))")
    }
}
