/// How urgent a piece of preparation is, most urgent first.
public enum PreloadPriority: Int, Comparable, Sendable, CaseIterable {
    /// The item on screen.
    case visible
    /// Inside the story: the next two items and the one before.
    case window
    /// The first unseen item of the stories before and after.
    case adjacent
    /// The first unseen item of the five stories from the ring row's selection.
    case feed

    public static func < (a: PreloadPriority, b: PreloadPriority) -> Bool { a.rawValue < b.rawValue }
}

/// Preloading on (the three layers) or off (everything on demand: the baseline the
/// benchmark compares with).
public enum PreloadPolicy: String, Sendable, CaseIterable {
    case on, off
}

/// A photo to prepare: which item, its media, and why.
public struct PreloadTarget: Equatable, Sendable {
    public var story: StoryID
    public var item: ItemID
    public var media: Media
    public var priority: PreloadPriority

    public init(story: StoryID, item: ItemID, media: Media, priority: PreloadPriority) {
        self.story = story
        self.item = item
        self.media = media
        self.priority = priority
    }
}

/// The preload policy of LinkedIn's stories, as pure functions of app state: what to
/// prepare (bytes fetched, decoded, rendered for the screen) and which stories' items to
/// load ahead. Three layers:
///
/// - **feed**: the first unseen item of 5 stories from the ring row's selection (when the
///   first page arrives: the first 5 stories), their items loaded as soon as the page is in;
/// - **adjacent**: while a story is shown, the first unseen item of the stories before and
///   after it;
/// - **window**: inside the story, the next 2 items and the one before.
///
/// With the policy off only the visible item is prepared and only the shown story's items
/// are loaded.
public enum PreloadPlanner {
    public static let feedStories = 5
    public static let windowAhead = 2
    public static let windowBehind = 1

    /// Stories whose items should be loaded now, most urgent first.
    public static func storiesToLoad(_ state: AppState) -> [StoryID] {
        let store = state.store
        var ids: [StoryID] = []
        if let opening = state.opening { ids.append(opening) }
        if let viewer = state.viewer, let id = store.summaries[safe: viewer.storyIndex]?.id { ids.append(id) }
        guard state.preload == .on else { return ids }
        if let viewer = state.viewer {
            for index in [viewer.storyIndex + 1, viewer.storyIndex - 1] {
                if let id = store.summaries[safe: index]?.id { ids.append(id) }
            }
        }
        for index in feedRange(state) {
            if let id = store.summaries[safe: index]?.id { ids.append(id) }
        }
        var seen = Set<StoryID>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// Photos and videos to prepare, most urgent first; each item once, for its most urgent
    /// reason. A video is prepared like a photo — its bytes fetched, its first frame decoded
    /// and rendered for the screen — never with a live decoder. Items not loaded yet, and
    /// text items, have nothing to prepare.
    public static func targets(_ state: AppState) -> [PreloadTarget] {
        var targets: [PreloadTarget] = []
        var seen = Set<ItemID>()
        func add(_ storyIndex: Int, item itemIndex: Int?, _ priority: PreloadPriority) {
            guard let story = state.store.story(at: storyIndex) else { return }
            let index = itemIndex ?? state.seen.firstUnseenIndex(in: story)
            guard let item = story.items[safe: index], let media = item.content.media,
                  seen.insert(item.id).inserted else { return }
            targets.append(PreloadTarget(story: story.id, item: item.id, media: media, priority: priority))
        }
        if let viewer = state.viewer, !viewer.isWaiting {
            add(viewer.storyIndex, item: viewer.itemIndex, .visible)
        }
        guard state.preload == .on else { return targets }
        if let viewer = state.viewer, !viewer.isWaiting {
            for offset in 1...windowAhead { add(viewer.storyIndex, item: viewer.itemIndex + offset, .window) }
            for offset in 1...windowBehind where viewer.itemIndex - offset >= 0 {
                add(viewer.storyIndex, item: viewer.itemIndex - offset, .window)
            }
        }
        if let viewer = state.viewer {
            add(viewer.storyIndex + 1, item: nil, .adjacent)
            if viewer.storyIndex > 0 { add(viewer.storyIndex - 1, item: nil, .adjacent) }
        }
        for index in feedRange(state) { add(index, item: nil, .feed) }
        return targets
    }

    /// The feed layer: 5 stories from the selection (the ring row follows the viewer).
    static func feedRange(_ state: AppState) -> Range<Int> {
        let start = min(state.selection, max(0, state.store.count - 1))
        return start..<min(state.store.count, start + feedStories)
    }
}
