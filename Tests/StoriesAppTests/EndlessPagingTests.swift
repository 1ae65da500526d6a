import Foundation
import StoriesApp
import StoriesCore
import Testing

/// Issue 27, point 3: a feed whose pages come back empty (or the same) but always name a
/// next one — any static host, or an API whose empty last page carries a cursor. Before,
/// the app asked for the next page at once, for ever (40 a second with no key pressed) and
/// a headless run never ended. Now a page that adds no story stops paging for now, says so
/// once, is asked for again only later and only near the end, and a bounded number of such
/// pages in a row ends paging.
@MainActor @Suite struct EndlessPagingTests {
    /// A feed that answers every cursor with the same page, or with nothing, always naming a
    /// next page; it counts what is asked of it. `@unchecked Sendable`: `asked` is touched
    /// only under `lock`.
    final class NeverEndingFeed: FeedSource, @unchecked Sendable {
        enum Kind { case emptyPagesAfterTheFirst, theSamePageForEveryCursor }
        let kind: Kind
        let stories: [Story]
        private let lock = NSLock()
        private var asked: [FeedCursor?] = []
        var title: String { "Static host" }
        var pagesAsked: [FeedCursor?] { lock.withLock { asked } }

        init(_ kind: Kind) {
            self.kind = kind
            stories = Array(Fixture.demo.stories.prefix(3))
        }

        func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
            let n = lock.withLock { () -> Int in
                asked.append(cursor)
                return asked.count
            }
            let first = cursor == nil || kind == .theSamePageForEveryCursor
            return FeedPage(stories: first ? stories.map(StorySummary.init) : [], nextCursor: "page-\(n)")
        }

        func story(id: StoryID) throws(FeedError) -> StoryLoad {
            guard let story = stories.first(where: { $0.id == id }) else { throw FeedError(file: id, reason: "no such story") }
            return StoryLoad(story: story)
        }

        func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
            try Fixture.demoFeed?.media(at: location, maxBytes: maxBytes)
        }
    }

    @Test(arguments: [NeverEndingFeed.Kind.emptyPagesAfterTheFirst, .theSamePageForEveryCursor])
    func aFeedThatAlwaysNamesANextPageIsNotPagedForEver(kind: NeverEndingFeed.Kind) throws {
        let feed = NeverEndingFeed(kind)
        let driver = AppDriver(source: feed)
        driver.finishWork()
        // The first page, then the one it names (the selection is near the end of three): it
        // adds nothing, and paging stops there, with nothing left to do.
        #expect(feed.pagesAsked.count == 2, "\(feed.pagesAsked)")
        #expect(!driver.engine.isBusy, "nothing left to do: a headless run ends here")
        #expect(driver.state.feed.store.count == 3)
        guard case .stalled = driver.state.feed.store.paging else {
            Issue.record("paging stalled, not \(driver.state.feed.store.paging)")
            return
        }
        let said = driver.state.feed.warnings.filter { $0.message.contains("the feed's page after its first 3 stories added no new one but named a next page") }
        #expect(said.count == 1, "said once on the problems line: \(driver.state.feed.warnings)")
        #expect(driver.text.contains("3 stories") && !driver.text.contains("3+"), "nothing more to come for now:\n\(driver.text)")

        // Ten minutes with no key pressed: not one more page.
        driver.wait(600)
        #expect(feed.pagesAsked.count == 2)

        // Moving toward the end asks again, each time after a longer wait, and a bounded
        // number of pages in a row that add nothing ends paging for good.
        for _ in 0..<40 {
            driver.press(.key(.right), .key(.right), .key(.left))
            driver.wait(61)
        }
        #expect(feed.pagesAsked.count == 1 + StoryStore.maxPagesWithoutProgress, "\(feed.pagesAsked)")
        #expect(driver.state.feed.store.paging == .complete && driver.state.feed.store.endedWithoutProgress)
        #expect(driver.state.feed.warnings.filter { $0.message.contains("no more pages are asked for") }.count == 1)
        #expect(driver.state.feed.warnings.filter { $0.message.contains("added no new") }.count == 2)
    }

    /// `n` (the next unseen story) and End, which look further along the feed, stop where
    /// the pages stopped adding stories instead of waiting for ever.
    @Test func lookingFurtherStopsWhereThePagesStoppedAddingStories() {
        let feed = NeverEndingFeed(.emptyPagesAfterTheFirst)
        let driver = AppDriver(source: feed)
        driver.finishWork()
        driver.press(.key(.end))
        driver.finishWork()
        #expect(driver.state.row.seeking == nil && driver.state.row.selection == 2)
        #expect(feed.pagesAsked.count == 2)
    }

    /// The store's rule alone: progress resets the count; the backoff grows and is bounded.
    @Test func theStoreStallsThenEndsAndProgressStartsAgain() {
        var store = StoryStore()
        let story = StorySummary(id: "a", author: Author(name: "A"), itemIDs: ["1"])
        _ = store.append(FeedPage(stories: [story], nextCursor: "1"), at: 0)
        #expect(store.paging == .ready(next: "1"))
        _ = store.append(FeedPage(stories: [story], nextCursor: "2"), at: 10)
        #expect(store.paging == .stalled(next: "2", retryAt: 15) && store.pagesWithoutProgress == 1 && !store.hasMore)
        #expect(store.nextPageDue(near: 0, at: 14) == nil && store.nextPageDue(near: 0, at: 15) == "2")
        _ = store.append(FeedPage(stories: [], nextCursor: "3"), at: 20)
        #expect(store.paging == .stalled(next: "3", retryAt: 30))
        let other = StorySummary(id: "b", author: Author(name: "B"), itemIDs: ["1"])
        _ = store.append(FeedPage(stories: [other], nextCursor: "4"), at: 40)
        #expect(store.paging == .ready(next: "4") && store.pagesWithoutProgress == 0, "a page that adds a story starts again")
        #expect((1...8).map(StoryStore.stallBackoff(after:)) == [5, 10, 20, 40, 60, 60, 60, 60])
    }
}
