import Foundation
import StoriesApp
import StoriesCore
import StoriesFeedIO
import Testing

/// Issue 46, point 2: a page whose every entry is broken is still a page. Before, a feed
/// folder listing 24 stories with one bad field each and a good one 25th showed "0 stories"
/// and "the feed's first page has no stories … paging stops for now": the rule that stops a
/// source repeating empty pages was applied to pages that were not empty, only broken.
@MainActor @Suite struct BrokenPagesTests {
    /// A feed folder: `broken` stories each with one bad field, then `good` good ones.
    static func folder(broken: Int, good: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("stories"), withIntermediateDirectories: true)
        let ids = (0..<(broken + good)).map { "s\($0)" }
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        try Data(#"{"version":1,"title":"Broken first","stories":[\#(list)]}"#.utf8).write(to: folder.appendingPathComponent("feed.json"))
        for (n, id) in ids.enumerated() {
            // The broken ones lack a different field each time round: the author's name, the
            // items, an item's type.
            let document = switch n < broken ? n % 3 : -1 {
            case 0: #"{"version":1,"id":"\#(id)","author":{},"items":[{"id":"1","type":"text","text":"hi"}]}"#
            case 1: #"{"version":1,"id":"\#(id)","author":{"name":"N\#(n)"}}"#
            case 2: #"{"version":1,"id":"\#(id)","author":{"name":"N\#(n)"},"items":[{"id":"1","type":"hologram"}]}"#
            default: #"{"version":1,"id":"\#(id)","author":{"name":"Good \#(n)"},"items":[{"id":"1","type":"text","text":"hello"}]}"#
            }
            try Data(document.utf8).write(to: folder.appendingPathComponent("stories/\(id).json"))
        }
        return folder
    }

    @Test func theGoodStoryAfterTwentyFourBrokenOnesShows() throws {
        let folder = try Self.folder(broken: 24, good: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let driver = AppDriver(source: try FeedFolder(directory: folder))
        driver.finishWork()
        #expect(driver.state.feed.store.count == 1)
        #expect(driver.state.feed.store.summaries.first?.author.name == "Good 24")
        #expect(driver.state.feed.store.paging == .complete && !driver.state.feed.store.endedWithoutProgress)
        #expect(driver.text.contains("Good 24") && driver.text.contains("1 story"), "\(driver.text)")
        let skipped = driver.state.feed.warnings.filter { $0.message.contains("skipped story") }
        #expect(skipped.count == 24, "every broken story's problem is listed: \(driver.state.feed.warnings.map(\.message))")
        #expect(!driver.state.feed.warnings.contains { $0.message.contains("paging stops") }, "\(driver.state.feed.warnings.map(\.message))")
    }

    /// A source that names a next page of broken entries for ever is paged past a bounded
    /// number of times, then paging ends with one line saying why.
    final class BrokenForEver: FeedSource, @unchecked Sendable { // `asked` only under `lock`
        private let lock = NSLock()
        private var asked = 0
        var title: String { "Broken for ever" }
        var pagesAsked: Int { lock.withLock { asked } }
        func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
            let n = lock.withLock { asked += 1; return asked }
            return FeedPage(stories: [], nextCursor: "p\(n)", warnings: [FeedWarning("skipped story 'x\(n)': bad")], skipped: 10)
        }
        func story(id: StoryID) throws(FeedError) -> StoryLoad { throw FeedError(file: id, reason: "no such story") }
        func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? { nil }
    }

    @Test func pagesOfBrokenStoriesForEverEnd() {
        let feed = BrokenForEver()
        let driver = AppDriver(source: feed)
        driver.finishWork()
        #expect(feed.pagesAsked == StoryStore.maxBrokenPagesInARow)
        #expect(driver.state.feed.store.paging == .complete && driver.state.feed.store.endedWithoutProgress)
        #expect(!driver.engine.isBusy)
        let ended = driver.state.feed.warnings.filter { $0.message.contains("held only stories that could not be shown") }
        #expect(ended.count == 1, "\(driver.state.feed.warnings.suffix(3).map(\.message))")
    }

    /// The store's rule: broken pages go on at once; an empty page still stalls; a page
    /// with a story resets both counts.
    @Test func theStoreGoesOnPastBrokenPagesOnly() {
        var store = StoryStore()
        _ = store.append(FeedPage(stories: [], nextCursor: "1", skipped: 3), at: 0)
        #expect(store.paging == .ready(next: "1") && store.brokenPagesInARow == 1 && store.pagesWithoutProgress == 0)
        _ = store.append(FeedPage(stories: [], nextCursor: "2"), at: 1)
        #expect(store.paging == .stalled(next: "2", retryAt: 6))
        let story = StorySummary(id: "a", author: Author(name: "A"), itemIDs: ["1"])
        _ = store.append(FeedPage(stories: [story], nextCursor: "3", skipped: 2), at: 7)
        #expect(store.paging == .ready(next: "3") && store.brokenPagesInARow == 0 && store.pagesWithoutProgress == 0)
    }

    /// A server's page says how many entries it left out, and the app reads it (bounded).
    @Test func theWireCarriesSkipped() throws {
        let page = FeedPage(stories: [], nextCursor: "10", warnings: [FeedWarning("skipped story 'a': bad")], skipped: 10)
        let decoded = try FeedDecoder.page(from: FeedWire.page(page, title: "T"), file: "page").page
        #expect(decoded.skipped == 10 && decoded.nextCursor == "10")
        let lying = Data(#"{"version":1,"title":"T","stories":[],"nextCursor":"1","skipped":1e9}"#.utf8)
        #expect(throws: FeedError.self) { try FeedDecoder.page(from: lying, file: "page") }
    }

    /// A story file missing beside the others (a typo in feed.json) is a broken entry, said
    /// once — not a folder gone for a while, retried for ever: the page after ten good
    /// stories, whose one story is missing, ends paging.
    @Test func aStoryFileMissingBesideTheOthersIsSaidOnceNotRetried() throws {
        let folder = try Self.folder(broken: 0, good: 10)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = (0..<10).map { "\"s\($0)\"" }.joined(separator: ",") + ",\"typo\""
        try Data(#"{"version":1,"title":"Typo","stories":[\#(list)]}"#.utf8).write(to: folder.appendingPathComponent("feed.json"))
        let driver = AppDriver(source: try FeedFolder(directory: folder))
        driver.finishWork()
        driver.press(.key(.end))
        driver.wait(120)
        driver.finishWork()
        #expect(driver.state.feed.store.count == 10 && driver.state.feed.store.paging == .complete, "\(driver.state.feed.store.paging)")
        #expect(driver.state.feed.warnings.filter { $0.message.contains("typo") }.count == 1, "\(driver.state.feed.warnings.map(\.message))")
        #expect(!driver.state.sourceUnreachable)
    }

    /// A page of stories already here with a broken one besides is no new entry: it stalls
    /// like any page that adds nothing (a server repeating a page cannot page 50 times).
    @Test func aPageOfDuplicatesAndABrokenOneStalls() {
        var store = StoryStore()
        let story = StorySummary(id: "a", author: Author(name: "A"), itemIDs: ["1"])
        _ = store.append(FeedPage(stories: [story], nextCursor: "1"), at: 0)
        _ = store.append(FeedPage(stories: [story], nextCursor: "2", skipped: 1), at: 1)
        #expect(store.paging == .stalled(next: "2", retryAt: 6) && store.brokenPagesInARow == 0)
    }
}
