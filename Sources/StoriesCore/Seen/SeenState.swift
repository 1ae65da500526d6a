/// Which items the user has seen, by story. `SeenStore` keeps it on disk between runs.
public struct SeenState: Equatable, Sendable {
    private var seenItems: [StoryID: Set<ItemID>] = [:]

    public init() {}

    public init(items: [StoryID: Set<ItemID>]) {
        seenItems = items.filter { !$0.value.isEmpty }
    }

    /// Everything seen, by story (what `SeenStore` writes).
    public var items: [StoryID: Set<ItemID>] { seenItems }

    public mutating func markSeen(story: StoryID, item: ItemID) {
        seenItems[story, default: []].insert(item)
    }

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
