import Foundation

/// An opaque position in a feed, handed back by one page to ask for the next.
public typealias FeedCursor = String

/// What the ring row needs of a story before its items are loaded: who posted it and
/// which items it has (so seen state can colour the ring). A page of the feed lists these.
public struct StorySummary: Equatable, Sendable, Identifiable {
    public var id: StoryID
    public var author: Author
    public var itemIDs: [ItemID]
    /// When its newest item was posted, if known.
    public var latest: Date?

    public init(id: StoryID, author: Author, itemIDs: [ItemID], latest: Date? = nil) {
        self.id = id
        self.author = author
        self.itemIDs = itemIDs
        self.latest = latest
    }

    public init(_ story: Story) {
        self.init(id: story.id, author: story.author, itemIDs: story.items.map(\.id),
                  latest: story.items.compactMap(\.createdAt).max())
    }
}

/// One page of the feed: up to `limit` story summaries and the cursor of the next page
/// (nil at the end). `bytes` is what the page weighs on the wire (network profiles use it).
public struct FeedPage: Equatable, Sendable {
    public var stories: [StorySummary]
    public var nextCursor: FeedCursor?
    public var warnings: [FeedWarning]
    public var bytes: Int
    /// The feed's title as this page gives it (a server's first page does; nil when the
    /// source knew it before any page, as a folder does).
    public var title: String?
    /// How many stories the whole feed has, when the source knows it exactly (a synthetic
    /// feed does): the corner then says "340 of 1012 stories" while pages come.
    public var total: Int?
    /// Which way the feed reads, when it says (`"direction"`, or its `"language"`).
    public var direction: LayoutDirection?
    /// Entries the page held that could not be shown (a story with a bad field, a folder
    /// that cannot be read or has nothing in it): their problems are in `warnings`. A page
    /// of only such entries is still a page — paging goes on past it (`StoryStore.advance`).
    public var skipped: Int

    public init(stories: [StorySummary], nextCursor: FeedCursor?, warnings: [FeedWarning] = [], bytes: Int = 0,
                title: String? = nil, total: Int? = nil, direction: LayoutDirection? = nil, skipped: Int = 0) {
        self.skipped = max(0, skipped)
        self.direction = direction
        self.total = total
        self.stories = stories
        self.nextCursor = nextCursor
        self.warnings = warnings
        self.bytes = bytes
        self.title = title
    }
}

/// A story with its items: the answer to "load this story" (LinkedIn's t2).
public struct StoryLoad: Equatable, Sendable {
    public var story: Story
    public var warnings: [FeedWarning]
    public var bytes: Int

    public init(story: Story, warnings: [FeedWarning] = [], bytes: Int = 0) {
        self.story = story
        self.warnings = warnings
        self.bytes = bytes
    }
}

/// Where stories come from, shaped like the HTTP API of DESIGN.md: a page of summaries by
/// cursor, the items of one story, the bytes of one media file. Calls are synchronous and
/// may block (they read files); `FeedClient` runs them on Dispatch queues, behind a
/// `NetworkProfile`.
public protocol FeedSource: Sendable {
    var title: String { get }
    /// Summaries after `cursor` (nil: the first page). A story that cannot be read is left
    /// out with a warning; a bad cursor throws.
    func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage
    /// One story with its items.
    func story(id: StoryID) throws(FeedError) -> StoryLoad
    /// The bytes of a media file, refused above `maxBytes`; nil when the source has no
    /// bytes for it (a BlurHash-only photo).
    func media(at location: String, maxBytes: Int) throws(FeedError) -> Data?
    /// True when a call waits on a network (an HTTP source): `FeedClient` then gives each
    /// call its own serial queue. On Linux the global pool is as wide as the machine has
    /// cores, so calls blocked on sockets there would stall every other piece of work.
    var waitsOnNetwork: Bool { get }
    /// The home sections below the ring row (`home.json`, `GET /v1/home`); an empty layout
    /// when the source has none. Throws only when the document cannot be read at all.
    func home() throws(FeedError) -> HomeLoad
    /// The first page as a cache on this machine kept it from an earlier run, without
    /// asking anyone (nil when there is none): a warm start shows it while `page` asks.
    func cachedFirstPage(limit: Int) -> FeedPage?
    /// `story(id:)`, given up the moment `request` is cancelled (a source on a network
    /// drops the request in flight; others simply finish).
    func story(id: StoryID, request: FeedRequest) throws(FeedError) -> StoryLoad
    /// `media(at:maxBytes:)`, given up the moment `request` is cancelled.
    func media(at location: String, maxBytes: Int, request: FeedRequest) throws(FeedError) -> Data?
}

extension FeedSource {
    public var waitsOnNetwork: Bool { false }
    public func home() throws(FeedError) -> HomeLoad { HomeLoad(layout: .empty) }
    public func cachedFirstPage(limit: Int) -> FeedPage? { nil }
    public func story(id: StoryID, request: FeedRequest) throws(FeedError) -> StoryLoad { try story(id: id) }
    public func media(at location: String, maxBytes: Int, request: FeedRequest) throws(FeedError) -> Data? {
        try media(at: location, maxBytes: maxBytes)
    }
}

/// Everything a source holds, read page by page: for tools and tests, not the app.
public struct FeedLoad: Equatable, Sendable {
    public var stories: [Story]
    public var warnings: [FeedWarning]

    public init(stories: [Story], warnings: [FeedWarning]) {
        self.stories = stories
        self.warnings = warnings
    }
}

extension FeedSource {
    /// Reads every page and every story; a story that fails is left out with a warning.
    public func loadAll(pageSize: Int = 10) -> FeedLoad {
        var stories: [Story] = []
        var warnings: [FeedWarning] = []
        var cursor: FeedCursor?
        repeat {
            let page: FeedPage
            do { page = try self.page(after: cursor, limit: pageSize) } catch {
                warnings.append(FeedWarning(error.description))
                break
            }
            warnings += page.warnings
            for summary in page.stories {
                do throws(FeedError) {
                    let load = try story(id: summary.id)
                    stories.append(load.story)
                    warnings += load.warnings
                } catch {
                    warnings.append(FeedWarning("skipped story '\(summary.id)': \(error)"))
                }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return FeedLoad(stories: stories, warnings: warnings)
    }
}

/// Cursors of sources that page through a list by position: the offset as decimal digits.
public enum OffsetCursor {
    public static func offset(_ cursor: FeedCursor?, count: Int, file: String) throws(FeedError) -> Int {
        guard let cursor else { return 0 }
        guard let offset = Int(cursor), offset >= 0, offset <= count else {
            throw FeedError(file: file, field: "cursor", reason: "'\(SafeText.line(cursor))' is not a page of this feed")
        }
        return offset
    }

    public static func next(after offset: Int, limit: Int, count: Int) -> FeedCursor? {
        offset + limit < count ? String(offset + limit) : nil
    }
}
