/// Which items the user has seen, by story, and which home tooltips have been shown (each
/// is shown once ever). `SeenStore` keeps it on disk between runs.
public struct SeenState: Equatable, Sendable {
    private var seenItems: [StoryID: Set<ItemID>] = [:]
    /// Ids of the home tooltips already shown.
    public private(set) var tooltips: Set<String> = []
    /// The most tooltip ids kept: a hostile home cannot grow the state file without bound
    /// (past this, a tooltip not kept shows each time its cell takes the keyboard).
    public static let maxTooltips = 5000

    public init() {}

    public init(items: [StoryID: Set<ItemID>], tooltips: Set<String> = []) {
        seenItems = items.filter { !$0.value.isEmpty }
        self.tooltips = Set(tooltips.filter { !$0.isEmpty && $0.utf8.count <= 128 }.sorted().prefix(Self.maxTooltips))
    }

    public func hasShownTooltip(_ id: String) -> Bool { tooltips.contains(id) }

    /// Notes that a tooltip was shown; false when the list is full (it is not kept).
    @discardableResult
    public mutating func markTooltipShown(_ id: String) -> Bool {
        guard tooltips.count < Self.maxTooltips else { return false }
        tooltips.insert(id)
        return true
    }

    /// Everything seen, by story (what `SeenStore` writes).
    public var items: [StoryID: Set<ItemID>] { seenItems }

    public mutating func markSeen(story: StoryID, item: ItemID) {
        seenItems[story, default: []].insert(item)
    }

    /// Adds what `other` has seen (and the tooltips it has shown, while there is room);
    /// returns the stories that gained an item.
    @discardableResult
    public mutating func merge(_ other: SeenState) -> [StoryID] {
        var changed: [StoryID] = []
        for (story, items) in other.seenItems {
            let before = seenItems[story]?.count ?? 0
            seenItems[story, default: []].formUnion(items)
            if (seenItems[story]?.count ?? 0) != before { changed.append(story) }
        }
        for tooltip in other.tooltips.sorted() where !tooltips.contains(tooltip) {
            guard markTooltipShown(tooltip) else { break }
        }
        return changed.sorted()
    }

    /// What this state has that `other` lacks: the items (and tooltips) to tell a server of.
    public func subtracting(_ other: SeenState) -> SeenState {
        var result = SeenState()
        for (story, items) in seenItems {
            let missing = items.subtracting(other.seenItems[story] ?? [])
            if !missing.isEmpty { result.seenItems[story] = missing }
        }
        result.tooltips = tooltips.subtracting(other.tooltips)
        return result
    }

    public var isEmpty: Bool { seenItems.isEmpty && tooltips.isEmpty }

    public func isSeen(story: StoryID, item: ItemID) -> Bool {
        seenItems[story]?.contains(item) ?? false
    }

    /// A bubble turns grey when every item of its story is seen.
    public func isFullySeen(story: StoryID, items: [ItemID]) -> Bool {
        guard let seen = seenItems[story] else { return false }
        return items.allSatisfy { seen.contains($0) }
    }

    /// Where the viewer opens a story: the first item not seen yet, or the first item when
    /// all are seen.
    public func firstUnseenIndex(in story: Story) -> Int {
        story.items.firstIndex { !isSeen(story: story.id, item: $0.id) } ?? 0
    }

    public func unseenCount(story: StoryID, items: [ItemID]) -> Int {
        guard let seen = seenItems[story] else { return items.count }
        return items.count { !seen.contains($0) }
    }
}
