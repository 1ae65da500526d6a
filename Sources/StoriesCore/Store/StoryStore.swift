import Foundation

/// The one source of truth for the ring row and the viewer (LinkedIn's shared data source):
/// the stories in ring-row order as pages deliver them, de-duplicated by id, the items of
/// the stories that have been loaded, and where paging stands. A value inside `AppState`,
/// changed only by `AppReducer`; the loading itself is done by the runtime as effects.
public struct StoryStore: Equatable, Sendable {
    /// Stories per page, as the API sends them.
    public static let pageSize = 10
    /// The next page is asked for when the ring-row selection or the viewer comes within
    /// this many stories of the end.
    public static let prefetchDistance = 3
    /// Pages in a row that may add no story (empty, or only stories already here: a static
    /// host that answers every cursor with the same page, an API whose empty last page still
    /// carries a cursor) before paging ends for good.
    public static let maxPagesWithoutProgress = 5
    /// Pages in a row whose every entry was broken (`FeedPage.skipped`) that are paged past
    /// at once; then paging ends, so a source that names a next page of broken entries for
    /// ever cannot be paged for ever (500 broken stories at 10 a page).
    public static let maxBrokenPagesInARow = 50

    /// Seconds before a page after `count` pages in a row that added no story is asked for
    /// (and then only when the person comes near the end again): 5, 10, 20, 40, 60.
    public static func stallBackoff(after count: Int) -> Double {
        Backoff.stall.delay(afterAttempt: count)
    }

    public enum Paging: Equatable, Sendable {
        /// Nothing asked yet.
        case notStarted
        /// A page is on its way.
        case loading(cursor: FeedCursor?, attempt: Int)
        /// The last page arrived; `next` is the one after it.
        case ready(next: FeedCursor)
        /// A page failed; it is asked for again at `retryAt` (uptime).
        case failed(cursor: FeedCursor?, attempt: Int, reason: String, retryAt: Double)
        /// The last page added no story but named a next one: paging stops for now; the next
        /// page is asked for again only once `retryAt` (uptime) has passed and the person is
        /// near the end of the row.
        case stalled(next: FeedCursor, retryAt: Double)
        /// Every page has arrived (or pages stopped adding stories: `endedWithoutProgress`).
        case complete
        /// A page was answered with something that will not change (a 404, not a feed):
        /// paging ends there, and the reason is said.
        case broken(reason: String)
    }

    /// Where the items of one story stand.
    public enum Items: Equatable, Sendable {
        case loading
        case loaded(Story)
        case failed(String)
    }

    public private(set) var summaries: [StorySummary] = []
    /// Story id → position in `summaries`.
    public private(set) var positions: [StoryID: Int] = [:]
    public private(set) var items: [StoryID: Items] = [:]
    public var paging: Paging = .notStarted
    /// The stories shown came from a cache (a warm start) and wait for the feed's first
    /// page, which confirms or replaces them; paging goes on from that page's cursor.
    public private(set) var isProvisional = false
    /// Pages in a row that added no story (see `maxPagesWithoutProgress`).
    public private(set) var pagesWithoutProgress = 0
    /// Pages in a row that held only broken entries (see `maxBrokenPagesInARow`).
    public private(set) var brokenPagesInARow = 0
    /// Paging ended because `maxPagesWithoutProgress` pages in a row added no story, or
    /// `maxBrokenPagesInARow` held only broken ones.
    public private(set) var endedWithoutProgress = false
    /// The feed's size as its latest page gave it (bounded; nil when not said).
    public private(set) var total: Int?
    /// The most stories a page may say the feed has.
    public static let maxTotal = 10_000_000

    public init() {}

    public var count: Int { summaries.count }

    /// How many stories there are, the one way the home's corner writes it and the
    /// screen-reader mode says it: "1 story", "11 stories", "20+ stories" (spoken: "20
    /// stories so far") while more pages may come, "340 of 1012 stories" when the feed says
    /// its size.
    public func countText(spoken: Bool = false) -> String {
        if let total, hasMore, total > count { return "\(count) of \(total) stories" }
        if count == 1 && !hasMore { return "1 story" }
        guard hasMore else { return "\(count) stories" }
        return spoken ? "\(count) \(count == 1 ? "story" : "stories") so far" : "\(count)+ stories"
    }

    /// More pages may come (one is loading, failed, or not asked for yet). A paging that
    /// stalled has none to give for now: the row and the viewer end where it is.
    public var hasMore: Bool {
        switch paging {
        case .complete, .stalled, .broken: false
        case .notStarted, .loading, .ready, .failed: true
        }
    }

    /// True until the first page has arrived (or failed).
    public var isLoadingFirstPage: Bool {
        guard summaries.isEmpty else { return false }
        switch paging {
        case .notStarted, .loading: return true
        case .ready, .failed, .stalled, .complete, .broken: return false
        }
    }

    public func story(at index: Int) -> Story? {
        guard summaries.indices.contains(index), case .loaded(let story)? = items[summaries[index].id] else { return nil }
        return story
    }

    public func items(at index: Int) -> Items? {
        guard summaries.indices.contains(index) else { return nil }
        return items[summaries[index].id]
    }

    // MARK: - Changes

    /// Shows the first page as a cache kept it, while the feed's own is on its way (or
    /// waiting to be asked for again after failing): false (nothing changes) unless the
    /// store is empty and the first page has not arrived.
    public mutating func showCached(_ page: FeedPage) -> Bool {
        guard summaries.isEmpty, !page.stories.isEmpty else { return false }
        switch paging {
        case .loading(cursor: nil, _), .failed(cursor: nil, _, _, _): break
        default: return false
        }
        for summary in page.stories where positions[summary.id] == nil {
            positions[summary.id] = summaries.count
            summaries.append(summary)
        }
        isProvisional = true
        return true
    }

    /// The feed's first page, over stories shown from a cache. With `rearrange` (nothing on
    /// screen depends on where a story is) the row becomes the page: its order, its
    /// summaries, and stories it no longer lists gone with their items. Without it nothing
    /// shown moves: summaries are brought up to date in place and new stories come after.
    /// Returns the ids whose bubbles must be built again and those that left.
    public mutating func confirm(_ page: FeedPage, rearrange: Bool, at uptime: Double = 0) -> (changed: [StoryID], removed: [StoryID]) {
        isProvisional = false
        var changed: [StoryID] = []
        var removed: [StoryID] = []
        if rearrange {
            var fresh: [StorySummary] = []
            var freshPositions: [StoryID: Int] = [:]
            for summary in page.stories where freshPositions[summary.id] == nil {
                freshPositions[summary.id] = fresh.count
                fresh.append(summary)
            }
            for summary in summaries where freshPositions[summary.id] == nil {
                removed.append(summary.id)
                items[summary.id] = nil
            }
            for (index, summary) in fresh.enumerated() where positions[summary.id] != index || self.summary(summary.id) != summary {
                changed.append(summary.id)
            }
            summaries = fresh
            positions = freshPositions
        } else {
            for summary in page.stories {
                if let position = positions[summary.id] {
                    if summaries[position] != summary {
                        summaries[position] = summary
                        changed.append(summary.id)
                    }
                } else {
                    positions[summary.id] = summaries.count
                    summaries.append(summary)
                    changed.append(summary.id)
                }
            }
        }
        advance(after: page, progressed: !page.stories.isEmpty, at: uptime)
        return (changed, removed)
    }

    private func summary(_ id: StoryID) -> StorySummary? {
        positions[id].map { summaries[$0] }
    }

    /// Adds a page's stories that are not here yet, in order; returns the ids added.
    /// A story seen on an earlier page keeps its place (nothing shown moves or disappears).
    /// A page that adds none stalls paging (`advance`).
    public mutating func append(_ page: FeedPage, at uptime: Double = 0) -> [StoryID] {
        var added: [StoryID] = []
        for summary in page.stories where positions[summary.id] == nil {
            positions[summary.id] = summaries.count
            summaries.append(summary)
            added.append(summary.id)
        }
        advance(after: page, progressed: !added.isEmpty, at: uptime)
        return added
    }

    /// Where paging stands after a page: its next cursor is ready when the page added a story,
    /// or held entries that could not be shown (`FeedPage.skipped`: a page of broken stories
    /// is still a page, and the good story after it must be reachable — up to
    /// `maxBrokenPagesInARow` such pages in a row). When it held nothing new, paging stalls
    /// (the next page waits for `stallBackoff` and for the person to come near the end), and
    /// after `maxPagesWithoutProgress` such pages in a row it ends, so a feed that always
    /// names a next page cannot be paged for ever.
    mutating func advance(after page: FeedPage, progressed: Bool, at uptime: Double) {
        if let given = page.total { total = min(max(0, given), Self.maxTotal) }
        guard let next = page.nextCursor else {
            paging = .complete
            return
        }
        if progressed {
            pagesWithoutProgress = 0
            brokenPagesInARow = 0
            paging = .ready(next: next)
            return
        }
        if page.skipped > 0, page.stories.isEmpty { // a page of duplicates is no new entry
            brokenPagesInARow += 1
            if brokenPagesInARow >= Self.maxBrokenPagesInARow {
                endedWithoutProgress = true
                paging = .complete
            } else {
                paging = .ready(next: next)
            }
            return
        }
        pagesWithoutProgress += 1
        if pagesWithoutProgress >= Self.maxPagesWithoutProgress {
            endedWithoutProgress = true
            paging = .complete
        } else {
            paging = .stalled(next: next, retryAt: uptime + Self.stallBackoff(after: pagesWithoutProgress))
        }
    }

    /// The cursor of the next page when the story at `index` is shown or selected within
    /// `prefetchDistance` of the end; nil when no page is due (not near the end, not started
    /// — the first page is asked for by `.start` — one loading or waiting to retry, paging
    /// stalled until `uptime` passes its time, or no more).
    /// `filling`: stories the screen wants whatever the selection (the ring row in view and
    /// one screen beyond it): pages are due until there are that many.
    public func nextPageDue(near index: Int, filling wanted: Int = 0, at uptime: Double = .infinity) -> FeedCursor? {
        guard index >= count - 1 - Self.prefetchDistance || count < wanted else { return nil }
        switch paging {
        case .ready(let next): return next
        case .stalled(let next, let retryAt) where uptime >= retryAt: return next
        default: return nil
        }
    }

    /// The page's answer will not change: no page is asked for again.
    public mutating func pageBroken(_ reason: String) {
        guard case .loading = paging else { return }
        paging = .broken(reason: reason)
    }

    public mutating func pageFailed(_ reason: String, at uptime: Double) {
        guard case .loading(let cursor, let attempt) = paging else { return }
        paging = .failed(cursor: cursor, attempt: attempt, reason: reason, retryAt: uptime + Backoff.delay(afterAttempt: attempt))
    }

    /// Marks a story's items as on their way; false when they are already here or coming.
    public mutating func beginLoadingItems(of id: StoryID) -> Bool {
        guard positions[id] != nil else { return false }
        switch items[id] {
        case .loading?, .loaded?: return false
        case .failed?, nil:
            items[id] = .loading
            return true
        }
    }

    /// A request for the items was cancelled: they are neither here nor coming. False when
    /// they were not on their way.
    public mutating func cancelLoadingItems(of id: StoryID) -> Bool {
        guard items[id] == .loading else { return false }
        items[id] = nil
        return true
    }

    /// The items arrived. The summary is brought up to date with them (the ring colour
    /// follows the items actually shown).
    public mutating func itemsLoaded(_ story: Story) {
        guard let position = positions[story.id] else { return }
        items[story.id] = .loaded(story)
        let summary = StorySummary(story)
        if summaries[position] != summary { summaries[position] = summary }
    }

    /// A story whose items failed for a reason that has passed (the source answers again),
    /// and that nobody wants now: its ⚠ goes; it is asked for again when wanted.
    public mutating func forgetFailure(of id: StoryID) {
        if case .failed? = items[id] { items[id] = nil }
    }

    public mutating func itemsFailed(_ id: StoryID, reason: String) {
        guard positions[id] != nil else { return }
        items[id] = .failed(reason)
    }
}
