import Foundation
import Testing
@testable import StoriesCore

/// Issue 29, point 6: over a source that comes and goes, what the screen says stays true —
/// a warning leaves when what it was about succeeds, the home says while the source cannot
/// be reached, and an answer that will not change is said once and not asked again.
@Suite struct RecoveryTests {
    func page(_ ids: [String], next: String?) -> FeedPage {
        FeedPage(stories: ids.map { StorySummary(ReducerHarness.story($0, items: 2)) }, nextCursor: next)
    }

    @Test func theHomeWarningLeavesTheScreenAndTheProblemsListOnceTheSectionsLoad() {
        var h = ReducerHarness(started: ())
        h.send(.pageLoaded(page(["a", "b"], next: nil)))
        h.send(.homeFailed("cannot reach the server: connection refused", retry: true))
        #expect(h.state.feed.warnings.map(\.message) == ["home sections did not load: cannot reach the server: connection refused; trying again"])
        h.send(.wake(.retryHome))
        h.send(.homeFailed("cannot reach the server: connection refused", retry: true))
        #expect(h.state.feed.warnings.count == 1, "one line for a run of failures")
        h.send(.wake(.retryHome))
        h.send(.homeLoaded(HomeLoad(layout: HomeLayout(sections: []), warnings: [FeedWarning("home.json: sections[2]: skipped")])))
        #expect(h.state.feed.warnings.map(\.message) == ["home.json: sections[2]: skipped"],
                "the trying-again line is gone; what the answer itself said stays")
    }

    @Test func aStalledPagingLineLeavesWhenPagesAddStoriesAgain() {
        var h = ReducerHarness(started: ())
        h.state.screenWidth = 40
        h.send(.pageLoaded(page(["a", "b", "c", "d", "e", "f", "g"], next: "1")))
        h.send(.selectLast)
        h.send(.pageLoaded(page(["a"], next: "2"))) // nothing new: paging stalls, said
        #expect(h.state.feed.warnings.contains { $0.topic == "paging" })
        h.wait(60)
        h.send(.selectLast)
        h.send(.pageLoaded(page(["h"], next: nil)))
        #expect(!h.state.feed.warnings.contains { $0.topic == "paging" }, "\(h.state.feed.warnings)")
    }

    @Test func aPageThatWillNotChangeIsSaidOnceWithItsAddressAndNotAskedAgain() {
        var h = ReducerHarness(started: ())
        _ = h.work
        let reason = "http://127.0.0.1:9/wrong/v1/feed?limit=10: HTTP 404 Not Found"
        h.send(.pageFailed(reason, retry: false))
        #expect(!h.work.contains { if case .wake(.retryPage, _) = $0 { return true } else { return false } }, "no retry is scheduled")
        #expect(h.state.pagingNotice == "Stories did not load (not asked again): \(reason)")
        #expect(!h.state.sourceUnreachable, "the server answered")
        #expect(!h.state.isLoading && h.state.emptyRowMessage == "No stories to show in this feed.")
        h.wait(120)
        h.send(.selectLast)
        #expect(!h.work.contains { if case .loadPage = $0 { return true } else { return false } }, "never asked again")
        // The same for a later page: the row keeps what it has, and stops there.
        var later = ReducerHarness(started: ())
        later.state.screenWidth = 40
        later.send(.pageLoaded(page((0..<10).map { "s\($0)" }, next: "10")))
        later.send(.selectLast)
        #expect(later.work.contains(.loadPage("10")))
        later.send(.pageFailed("http://x/v1/feed?cursor=10: not a feed: no 'stories' array", retry: false))
        #expect(later.state.feed.store.count == 10 && !later.state.feed.store.hasMore)
        #expect(later.state.pagingNotice?.hasPrefix("More stories did not load (not asked again): http://x/v1/feed?cursor=10") == true)
    }

    @Test func whileTheSourceCannotBeReachedTheHomeSaysSoAndWhatItShows() {
        var h = ReducerHarness(started: ())
        h.send(.pageLoaded(page(["a", "b"], next: nil)))
        h.send(.homeLoaded(HomeLoad(layout: HomeLayout(sections: []))))
        #expect(h.state.pagingNotice == nil)
        h.wait(30)
        h.send(.storyFailed("b", "cannot reach the server: connection refused", retry: true))
        let line = h.state.pagingNotice ?? ""
        #expect(line.hasPrefix("No answer from the source: cannot reach the server: connection refused; showing what came by "), "\(line)")
        #expect(line.range(of: #"by \d\d:\d\d\. Trying again…$"#, options: .regularExpression) != nil, "\(line)")
        // The source answers again: the line goes.
        h.send(.storyLoaded(StoryLoad(story: ReducerHarness.story("b", items: 2))))
        #expect(h.state.pagingNotice == nil)
    }
}
