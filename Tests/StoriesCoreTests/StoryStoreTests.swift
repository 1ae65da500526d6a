import Foundation
import Testing
@testable import StoriesCore

/// Pages of ten made-up stories, `p<page>s<n>`, each with two text items.
private func page(_ number: Int, ids: [String]? = nil, next: Bool = true) -> FeedPage {
    let stories = (ids ?? (0..<10).map { "p\(number)s\($0)" }).map { story($0) }
    return FeedPage(stories: stories.map(StorySummary.init), nextCursor: next ? "\((number + 1) * 10)" : nil)
}

private func story(_ id: String) -> Story {
    ReducerHarness.story(id, items: 2)
}

/// The LinkedIn flow end to end in the reducer: pages by cursor, the ring row and the
/// viewer over one store, items loaded on demand, paging failures retried.
@Suite struct PagingTests {
    /// A started app with the first page delivered and nothing else. Preloading is off:
    /// these tests follow paging and on-demand loads; PreloadPlannerTests add the layers.
    private func firstPage() -> ReducerHarness {
        var h = ReducerHarness(started: ())
        h.state.preloadPolicy = .off
        // 40 columns: three bubbles in view and three beyond, within the first page, so the
        // row asks for the next only near its end; a wider screen asks for more at once
        // (`theRowFillsTheScreenAtAnyWidth`).
        h.state.screenWidth = 40
        #expect(h.work == ReducerHarness.startEffects)
        h.send(.pageLoaded(page(0)))
        return h
    }

    /// Issue 29, point 3: pages are asked for until the row in view is full and one screen
    /// beyond it, whatever the selection; at 200 columns that is four pages, not one and
    /// 100 empty columns.
    @Test(arguments: [(60, 1), (80, 2), (120, 3), (200, 4)])
    func theRowFillsTheScreenAtAnyWidth(width: Int, pages: Int) {
        var h = ReducerHarness(started: ())
        h.state.preloadPolicy = .off
        h.state.screenWidth = width
        _ = h.work
        var asked = 1
        h.send(.pageLoaded(page(0)))
        while let cursor = h.work.compactMap({ effect -> String?? in if case .loadPage(let c) = effect { return c } else { return nil } }).first {
            #expect(cursor == "\(asked * 10)")
            h.send(.pageLoaded(page(asked)))
            asked += 1
            if asked > 10 { break }
        }
        #expect(asked == pages, "\(width) columns: \(pages) pages for the row in view and one screen beyond")
        let visible = RingLayout.visibleBubbles(width: width)
        #expect(h.state.feed.store.count >= 2 * visible)
        // Moving along the row keeps a screen beyond it: a page is asked for before the
        // selection comes within three stories of the end.
        var due = false
        for _ in 0..<8 where !due {
            h.send(Command.screenfulNext)
            due = h.work.contains(.loadPage("\(asked * 10)"))
            if due { #expect(h.state.row.selection < h.state.feed.store.count - 1 - StoryStore.prefetchDistance) }
        }
        #expect(due)
    }

    @Test func theNextPageIsAskedForWithinThreeStoriesOfTheEnd() {
        var h = firstPage()
        #expect(h.state.feed.store.count == 10)
        #expect(h.state.viewModels.ring.count == 10, "the ring row's view models were built")
        for _ in 0..<5 { h.send(.selectNext) }
        #expect(h.state.row.selection == 5)
        #expect(h.work.isEmpty, "four stories left: not yet")
        h.send(.selectNext)
        #expect(h.work == [.loadPage("10")], "three stories left: the next page")
        h.send(.selectNext)
        #expect(h.work.isEmpty, "one page at a time")
        h.send(.pageLoaded(page(1)))
        #expect(h.state.feed.store.count == 20)
        #expect(h.state.row.selection == 7, "the selection stays on its story")
        h.send(.selectLast)
        #expect(h.work == [.loadPage("20")])
        h.send(.pageLoaded(page(2, next: false)))
        h.send(.selectLast)
        #expect(h.work.isEmpty, "no more pages after the last")
        #expect(!h.state.feed.store.hasMore)
    }

    @Test func theViewerCrossesIntoAPageThatArrivesWhileItIsOpen() {
        var h = firstPage()
        h.send(.select(8))
        #expect(h.work == [.loadPage("10")], "near the end: the next page")
        h.send(.open)
        #expect(h.state.row.opening == "p0s8")
        #expect(h.work == [.loadStory("p0s8")], "its items")
        h.send(.storyLoaded(StoryLoad(story: story("p0s8"))))
        #expect(h.position! == (8, 0), "the viewer opens once the items are here")
        #expect(h.work == [.persistSeen(h.state.seen)], "preloading off: nothing ahead")
        h.send(.storyLoaded(StoryLoad(story: story("p0s9"))))
        h.send(.nextStory)
        #expect(h.position! == (9, 0))
        #expect(h.state.row.selection == 9, "the ring row follows the viewer")

        // Past the last story while page 2 is still on its way: the viewer waits.
        h.send(.nextStory)
        #expect(h.state.viewer?.isWaiting == true)
        #expect(h.state.viewer?.storyIndex == 10)
        #expect(h.state.viewer?.playback.isRunning == false, "nothing plays while waiting")
        #expect(h.state.row.selection == 9)
        #expect(!h.state.wantsFrames)

        h.send(.pageLoaded(page(1)))
        #expect(h.work.contains(.loadStory("p1s0")), "the page came: the story's items are asked for")
        #expect(h.state.viewer?.isWaiting == true)
        h.send(.storyLoaded(StoryLoad(story: story("p1s0"))))
        #expect(h.position! == (10, 0), "the viewer runs on into the new page")
        #expect(h.state.viewer?.playback.isRunning == true)
        #expect(h.state.row.selection == 10)
        #expect(h.state.seen.isSeen(story: "p1s0", item: "p1s00"))
    }

    @Test func autoAdvanceAlsoRunsOnIntoTheNextPage() {
        var h = firstPage()
        h.send(.select(9))
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p0s9"))))
        h.send(.pageLoaded(page(1)))
        h.send(.storyLoaded(StoryLoad(story: story("p1s0"))))
        h.wait(5); h.wait(5)
        #expect(h.position! == (10, 0))
    }

    @Test func theLastStoryOfTheLastPageDismisses() {
        var h = firstPage()
        h.send(.pageLoaded(page(1, next: false)))
        h.send(.select(19))
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p1s9"))))
        h.send(.nextStory)
        #expect(h.state.viewer == nil)
        #expect(h.state.row.selection == 19)
    }

    @Test func aViewerWaitingPastTheEndDismissesWhenTheFeedTurnsOutToEnd() {
        var h = firstPage()
        h.send(.select(9))
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p0s9"))))
        h.send(.nextStory)
        #expect(h.state.viewer?.isWaiting == true)
        h.send(.pageLoaded(FeedPage(stories: [], nextCursor: nil)))
        #expect(h.state.viewer == nil)
        #expect(h.state.row.selection == 9)
    }

    @Test func aFailedPageRetriesWithBackoffAndNothingShownDisappears() {
        var h = firstPage()
        h.send(.selectLast)
        #expect(h.work == [.loadPage("10")])
        let before = h.state.feed.store.summaries
        h.send(.pageFailed("timed out after 15 s"))
        // The page's own retry; and the probe, which asks only if nothing else is pending by then.
        #expect(h.work == [.wake(.probeSource, after: 30), .wake(.retryPage, after: 1)])
        #expect(h.state.pagingNotice == "More stories did not load: timed out after 15 s. Trying again…")
        #expect(h.state.feed.store.summaries == before)
        #expect(h.state.viewModels.ring.count == 10)
        h.send(.selectPrevious); h.send(.selectNext)
        #expect(h.work.isEmpty, "no second request while waiting to retry")

        h.send(.wake(.retryPage))
        #expect(h.work == [.loadPage("10")], "the same page again")
        h.send(.pageFailed("the connection failed"))
        #expect(h.work == [.wake(.probeSource, after: 30), .wake(.retryPage, after: 2)], "backoff doubles")
        #expect(h.state.pagingNotice?.contains("attempt 3") == true)
        for expected in [4.0, 8, 16, 30, 30] {
            h.send(.wake(.retryPage))
            h.send(.pageFailed("x"))
            #expect(h.work == [.wake(.probeSource, after: 30), .wake(.retryPage, after: expected)])
        }
        h.send(.wake(.retryPage))
        h.send(.pageLoaded(page(1)))
        #expect(h.state.pagingNotice == nil)
        #expect(h.state.feed.store.count == 20)
        #expect(Array(h.state.feed.store.summaries.prefix(10)) == before)
    }

    @Test func aFailedFirstPageSaysSoAndRetries() {
        var h = ReducerHarness(started: ())
        h.send(.pageFailed("offline (--network offline)"))
        #expect(!h.state.isLoading)
        #expect(h.state.pagingNotice == "Stories did not load: offline (--network offline). Trying again…")
        h.send(.wake(.retryPage))
        #expect(h.work == [.loadPage(nil), .wake(.firstPageOverdue, after: FeedState.firstPagePatience)])
        #expect(h.state.isLoading)
    }

    /// A warm start: the cache's first page is the row at once; the feed's page replaces it
    /// (its order, its stories) while nobody is in the row, the selection staying on its story.
    @Test func aWarmStartShowsTheCachedRowThenTheFeedsPage() {
        var h = ReducerHarness(started: ())
        h.state.preloadPolicy = .off
        var cached = page(0, ids: ["a", "b", "c"], next: true)
        cached.title = "Kept title"
        h.send(.cachedPageLoaded(cached))
        #expect(h.state.feed.store.summaries.map(\.id) == ["a", "b", "c"])
        #expect(h.state.viewModels.ring.models.map(\.key) == ["a", "b", "c"], "the bubbles are built")
        #expect(h.state.title == "Kept title")
        #expect(h.state.feed.store.isProvisional && !h.state.isLoading)
        h.send(.selectNext)
        h.send(.selectNext)
        #expect(h.work.isEmpty, "no next page from a cached cursor: the feed's own first page decides it")

        var fresh = page(0, ids: ["new", "c", "b"], next: true)
        fresh.title = "Fresh title"
        h.send(.pageLoaded(fresh))
        #expect(h.state.feed.store.summaries.map(\.id) == ["new", "c", "b"], "the feed's order; 'a' is gone")
        #expect(h.state.viewModels.ring.models.map(\.key) == ["new", "c", "b"])
        #expect(h.state.feed.store.positions == h.state.viewModels.ring.positions, "ring row and store agree")
        #expect(h.state.row.selection == 1, "still on 'c'")
        #expect(h.state.title == "Fresh title")
        #expect(!h.state.feed.store.isProvisional)
        #expect(h.work == [.loadPage("10")], "paging goes on from the feed's cursor (the selection is near the end)")

        h.send(.cachedPageLoaded(cached))
        #expect(h.state.feed.store.summaries.map(\.id) == ["new", "c", "b"], "a cached page after the feed's is ignored")
    }

    /// Once a story is open, nothing shown moves: the feed's page updates summaries in place
    /// and adds its new stories at the end.
    @Test func theCachedRowDoesNotMoveUnderAStoryBeingOpened() {
        var h = ReducerHarness(started: ())
        h.state.preloadPolicy = .off
        h.send(.cachedPageLoaded(page(0, ids: ["a", "b", "c"], next: false)))
        h.send(.select(1))
        h.send(.open)
        #expect(h.state.row.opening == "b")
        var changed = story("c")
        changed.author = Author(name: "Renamed")
        h.send(.pageLoaded(FeedPage(stories: [StorySummary(story("new")), StorySummary(changed), StorySummary(story("b"))], nextCursor: nil)))
        #expect(h.state.feed.store.summaries.map(\.id) == ["a", "b", "c", "new"])
        #expect(h.state.feed.store.summaries[2].author.name == "Renamed")
        #expect(h.state.viewModels.ring.model(for: "c")?.name == "Renamed", "its bubble is built again")
        #expect(h.state.row.opening == "b")
        h.send(.storyLoaded(StoryLoad(story: story("b"))))
        #expect(h.position! == (1, 0), "the story opens where it was")
    }

    /// The feed failing after a cached row: the row stays, one line says so, and it retries.
    @Test func aFeedThatDoesNotAnswerLeavesTheCachedRowAndRetries() {
        var h = ReducerHarness(started: ())
        h.send(.cachedPageLoaded(page(0, ids: ["a", "b"], next: true)))
        h.send(.pageFailed("cannot reach the server: connection refused"))
        #expect(h.state.feed.store.count == 2)
        #expect(h.state.pagingNotice?.hasPrefix("Showing the stories saved from the last visit; the feed did not answer: cannot reach") == true,
                "\(h.state.pagingNotice ?? "nil")")
        #expect(h.work == [.wake(.probeSource, after: 30), .wake(.retryPage, after: 1)])
        h.send(.wake(.retryPage))
        #expect(h.work == [.loadPage(nil)])
        h.send(.pageLoaded(page(0, ids: ["a", "b"], next: false)))
        #expect(h.state.pagingNotice == nil && !h.state.feed.store.isProvisional && h.state.feed.store.paging == .complete)
    }

    /// The network failing before the disk answered (an offline profile fails at once): the
    /// cached row still shows, with the line, and the retry confirms it.
    @Test func aCachedRowArrivingAfterTheFirstPageFailedIsStillShown() {
        var h = ReducerHarness(started: ())
        h.send(.pageFailed("offline (--network offline)"))
        h.send(.cachedPageLoaded(page(0, ids: ["a", "b"], next: false)))
        #expect(h.state.feed.store.summaries.map(\.id) == ["a", "b"])
        #expect(h.state.pagingNotice?.hasPrefix("Showing the stories saved from the last visit") == true)
        h.send(.wake(.retryPage))
        #expect(h.work.contains(.loadPage(nil)))
        h.send(.pageLoaded(page(0, ids: ["a", "b"], next: false)))
        #expect(!h.state.feed.store.isProvisional && h.state.pagingNotice == nil)
    }

    /// A first page that takes long: after three seconds the loading line says so, naming
    /// who it waits for; nothing is said when the page came in time.
    @Test func aLateFirstPageIsSaidOnTheLoadingLine() {
        var h = ReducerHarness(started: ())
        #expect(h.state.emptyRowMessage == "Loading stories…")
        h.send(.wake(.firstPageOverdue))
        #expect(h.state.emptyRowMessage == "Loading stories… no answer from Test in 3 s, still waiting")
        h.send(.pageLoaded(page(0, ids: [], next: false)))
        #expect(h.state.emptyRowMessage == "No stories to show in this feed.")

        // Each try of the first page has its own patience.
        var retried = ReducerHarness(started: ())
        retried.send(.wake(.firstPageOverdue))
        retried.send(.pageFailed("cannot reach the server: connection refused"))
        retried.send(.wake(.retryPage))
        #expect(retried.work == [.loadPage(nil), .wake(.firstPageOverdue, after: FeedState.firstPagePatience)])
        #expect(retried.state.emptyRowMessage == "Loading stories…")

        var onTime = ReducerHarness(started: ())
        onTime.send(.pageLoaded(page(0)))
        onTime.send(.wake(.firstPageOverdue))
        #expect(!onTime.state.feed.firstPageOverdue)
    }

    @Test func duplicateStoriesAcrossPagesAreShownOnce() {
        var h = firstPage()
        h.send(.selectLast)
        // The feed moved on: page 2 repeats two stories of page 1.
        h.send(.pageLoaded(page(1, ids: ["p0s8", "p1s0", "p0s9", "p1s1"])))
        #expect(h.state.feed.store.summaries.map(\.id).suffix(3) == ["p0s9", "p1s0", "p1s1"])
        #expect(h.state.feed.store.count == 12)
        #expect(h.state.viewModels.ring.count == 12)
        #expect(h.state.viewModels.ring.positions["p0s8"] == 8, "a repeated story keeps its place")
        #expect(h.state.viewModels.ring.positions["p1s1"] == 11)
        #expect(h.state.feed.store.positions == h.state.viewModels.ring.positions, "ring row and store agree")
    }

    @Test func openingWaitsForItemsCanBeCancelledAndRetriesAFailure() {
        var h = firstPage()
        h.send(.select(2))
        h.send(.open)
        #expect(h.state.row.opening == "p0s2")
        #expect(h.state.viewer == nil, "the viewer opens only once the items are there")
        #expect(h.work == [.loadStory("p0s2")])
        h.send(.selectNext)
        #expect(h.state.row.opening == "p0s2", "the row can be browsed meanwhile")
        h.send(.dismiss)
        #expect(h.state.row.opening == nil, "Esc stops it")
        #expect(h.work == [.cancel(.story("p0s2"))], "and its request")
        #expect(h.state.feed.store.items["p0s2"] == nil)
        h.send(.storyLoaded(StoryLoad(story: story("p0s2"))))
        #expect(h.state.viewer == nil, "a late answer does not open the viewer")
        h.send(.dismiss)
        #expect(h.work.isEmpty, "nothing to cancel")

        h.send(.open) // p0s3
        h.send(.storyFailed("p0s3", "stories/p0s3.json: timed out after 15 s"))
        #expect(h.state.row.opening == nil)
        #expect(h.state.feed.store.items["p0s3"] == .failed("stories/p0s3.json: timed out after 15 s"))
        h.send(.selectNext); h.send(.selectPrevious)
        #expect(h.work.isEmpty, "a failure is not retried by itself")
        h.send(.open)
        #expect(h.work == [.loadStory("p0s3")], "Enter tries again")
        h.send(.storyLoaded(StoryLoad(story: story("p0s3"))))
        #expect(h.position! == (3, 0))
    }

    @Test func aStoryWithNoItemsIsAFailureNotAnEndlessWait() {
        var h = firstPage()
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: Story(id: "p0s0", author: Author(name: "A"), items: []))))
        #expect(h.state.row.opening == nil)
        #expect(h.state.feed.store.items["p0s0"] == .failed("the story has no items to show"))
    }

    @Test func aStoryThatFailsInTheViewerCanBeSkipped() {
        var h = firstPage()
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p0s0"))))
        h.send(.storyFailed("p0s1", "broken"))
        h.send(.nextStory)
        #expect(h.state.viewer?.isWaiting == true)
        #expect(h.work.contains(.loadStory("p0s1")), "going to a failed story tries it again")
        h.send(.storyFailed("p0s1", "broken"))
        h.send(.nextItem)
        #expect(h.state.viewer?.storyIndex == 2, "→ skips a story that cannot load")
        h.send(.previousItem)
        #expect(h.state.viewer?.storyIndex == 1)
    }

    @Test func aSeenChangeRebuildsOnlyThatStorysBubble() {
        var h = firstPage()
        h.send(.select(4))
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p0s4"))))
        h.send(.nextItem)
        let jobs = h.effects.compactMap { effect -> ViewModelJob? in
            if case .buildViewModels(let job) = effect { return job }
            return nil
        }
        #expect(jobs.count == 1)
        #expect(jobs.first?.ring.map(\.summary.id) == ["p0s4"])
        #expect(jobs.first?.stories.isEmpty == true)
        #expect(h.state.viewModels.ring.model(for: "p0s4")?.isSeen == true)
        #expect(h.state.viewModels.ring.model(for: "p0s3")?.isSeen == false)
    }

    @Test func aResizeRebuildsTheViewerPagesInTheBackgroundAndTheOldOnesDrawUntilThen() {
        var h = firstPage()
        h.send(.open)
        h.send(.storyLoaded(StoryLoad(story: story("p0s0"))))
        #expect(h.state.viewModels.items["p0s0"]?.first?.width == 40)
        let effects = AppReducer.reduce(&h.state, .resized(width: 120, height: 30), at: h.now)
        let job = effects.lazy.compactMap { effect -> ViewModelJob? in
            if case .buildViewModels(let job) = effect { return job }
            return nil
        }.first
        guard let job else { Issue.record("no rebuild: \(effects)"); return }
        #expect(job.width == 120 && job.ring.isEmpty && job.stories.map(\.id) == ["p0s0"])
        #expect(h.state.viewModels.items["p0s0"]?.first?.width == 40, "until the new ones arrive, the old ones draw")
        // A result built for a width that has since changed again is dropped.
        _ = AppReducer.reduce(&h.state, .resized(width: 100, height: 30), at: h.now)
        _ = AppReducer.reduce(&h.state, .viewModelsBuilt(ViewModelFactory.build(job)), at: h.now)
        #expect(h.state.viewModels.items["p0s0"]?.first?.width == 40)
    }
}
