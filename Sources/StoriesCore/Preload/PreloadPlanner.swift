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
/// The window and the adjacent layer adapt to the person once their pace is known
/// (`window(_:)`): deeper in the story for a fast tapper, the first items of the next few
/// stories for a swiper — at most `maxAhead` photos besides the one shown. In the viewer
/// the next stories take the feed layer's place.
///
/// With the policy off only the visible item is prepared and only the shown story's items
/// are loaded.
public enum PreloadPlanner {
    public static let feedStories = 5
    public static let windowAhead = 2
    public static let windowBehind = 1
    /// Photos prepared ahead at most, besides the one shown: the byte budget (about 1 MB of
    /// typical story photos, a few hundred KB of cells).
    public static let maxAhead = 12

    /// How far ahead to prepare, for this person on this network (`NavigationPace`):
    ///
    /// - **lead**: navigations that come while one fetch runs, plus one — 2 at a browsing
    ///   pace, 4 when tapping every 150 ms behind a 300 ms network;
    /// - **in the story**: `lead` items ahead; for someone who moves on to the next story
    ///   after a usual number of taps (a quarter or more of their navigations are swipes),
    ///   no deeper than they usually go, and at least one;
    /// - **next stories**: for a swiper, the first items of `lead − 1` stories ahead (1 to
    ///   4), each as deep as they usually tap (up to 3); otherwise the next story's first
    ///   unseen item, as before;
    /// - **the story before**: its first unseen item, unless the last eight navigations
    ///   all went forward.
    public struct Window: Equatable, Sendable {
        public var ahead: Int
        public var behind: Int
        public var nextStories: Int
        public var itemsPerNextStory: Int
        /// The story before is prepared too (false once the person is seen to go only forward).
        public var backwards = true

        public static let standard = Window(ahead: windowAhead, behind: windowBehind, nextStories: 1, itemsPerNextStory: 1)
    }

    public static func window(_ pace: NavigationPace) -> Window {
        let lead = pace.lead
        guard pace.interval != nil else { return .standard }
        let swiper = pace.storyShare >= 0.25
        var ahead = lead
        // Tried: none at all once as deep as every recent story went. It saved bytes and
        // cost hits (97% at a browsing pace): one item ahead stays.
        if swiper, let usual = pace.usualTaps { ahead = max(1, min(lead, usual - pace.tapsInStory)) }
        let nextStories = swiper ? max(1, min(4, lead - 1)) : 1
        let deep = swiper ? max(1, min(3, lead - 1, (pace.usualTaps ?? 0) + 1)) : 1
        return Window(ahead: ahead, behind: windowBehind, nextStories: nextStories, itemsPerNextStory: deep,
                      backwards: pace.steps.contains(.back) || pace.steps.count < NavigationPace.remembered)
    }

    /// Where the person most likely goes from the viewer's item: the next item of its story
    /// — or the next story's first unseen item at the story's end, or for someone who
    /// usually leaves a story after as many taps as they have made in this one (a quarter or
    /// more of their navigations are swipes); in the feed's last story, its next item. Nil
    /// outside the viewer and at the feed's end.
    public static func likelyNext(_ state: AppState) -> (story: Int, item: Int)? {
        guard let viewer = state.viewer, !viewer.isWaiting, let story = state.feed.store.story(at: viewer.storyIndex) else { return nil }
        let pace = state.media.pace
        let leaving = pace.storyShare >= 0.25 && pace.usualTaps.map { pace.tapsInStory >= $0 } == true
        let nextItem = viewer.itemIndex + 1 < story.items.count ? (story: viewer.storyIndex, item: viewer.itemIndex + 1) : nil
        if !leaving, let nextItem { return nextItem }
        // The feed's last story: its next item, if any, even for someone about to leave.
        guard let next = state.feed.store.story(at: viewer.storyIndex + 1) else { return nextItem }
        return (viewer.storyIndex + 1, state.seen.firstUnseenIndex(in: next))
    }

    /// The window and what it was learned from, for the `i` overlay.
    public static func describe(_ state: AppState) -> String {
        guard state.preloadPolicy == .on else { return "preload off: only what is shown" }
        let pace = state.media.pace
        let window = window(pace)
        // Short enough for 80 columns: what it chose first, then what it learned.
        var chose = "\(window.ahead) ahead · next \(window.nextStories)×\(window.itemsPerNextStory)"
        if !window.backwards { chose += " · not back" }
        var learned: [String] = []
        if let interval = pace.interval {
            learned.append(interval < 1 ? "\(Int((interval * 1000).rounded())) ms a step" : String(format: "%.1f s a step", interval))
            learned.append("\(Int((pace.storyShare * 100).rounded()))% swipes")
            if let usual = pace.usualTaps { learned.append("\(usual) taps/story") }
        } else {
            learned.append("pace not known yet")
        }
        learned.append(pace.fetchSeconds.map { "fetch \(Int(($0 * 1000).rounded())) ms" } ?? "fetch not timed")
        return "preload \(chose) ← " + learned.joined(separator: ", ")
    }

    /// The stories a person is on, whose failures are retried by the policy while they stay
    /// on them: what is loading for the screen (preloads, the viewer's, one opening) and —
    /// with preloading off as on — the bubble selected on the row and the home cell with the
    /// keyboard, whose ⚠ "could not load" is in front of them.
    public static func storiesOnThePerson(_ state: AppState) -> Set<StoryID> {
        let store = state.feed.store
        var wanted = Set(storiesToLoad(state))
        if let opening = state.row.opening { wanted.insert(opening) }
        guard state.viewer == nil else { return wanted }
        if let selected = store.summaries[safe: state.row.selection]?.id { wanted.insert(selected) }
        if let focused = state.home.level.focusedCell,
           case .openStory(let id)? = state.home.level.cell(section: focused.section, index: focused.cell)?.action {
            wanted.insert(id)
        }
        return wanted
    }

    /// Stories whose items should be loaded now, most urgent first.
    public static func storiesToLoad(_ state: AppState) -> [StoryID] {
        let store = state.feed.store
        var ids: [StoryID] = []
        if let opening = state.row.opening { ids.append(opening) }
        if let viewer = state.viewer, let id = store.summaries[safe: viewer.storyIndex]?.id { ids.append(id) }
        guard state.preloadPolicy == .on else { return ids }
        if let viewer = state.viewer {
            let window = window(state.media.pace)
            for index in Array(viewer.storyIndex + 1...viewer.storyIndex + window.nextStories) + [viewer.storyIndex - 1] {
                if let id = store.summaries[safe: index]?.id { ids.append(id) }
            }
        } else {
            for index in feedRange(state) {
                if let id = store.summaries[safe: index]?.id { ids.append(id) }
            }
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
            guard let story = state.feed.store.story(at: storyIndex) else { return }
            let index = itemIndex ?? state.seen.firstUnseenIndex(in: story)
            guard let item = story.items[safe: index], let media = item.content.media,
                  seen.insert(item.id).inserted else { return }
            targets.append(PreloadTarget(story: story.id, item: item.id, media: media, priority: priority))
        }
        if let viewer = state.viewer, !viewer.isWaiting {
            add(viewer.storyIndex, item: viewer.itemIndex, .visible)
        }
        guard state.preloadPolicy == .on else { return targets }
        let window = window(state.media.pace)
        if let viewer = state.viewer, !viewer.isWaiting {
            for offset in 0..<window.ahead { add(viewer.storyIndex, item: viewer.itemIndex + 1 + offset, .window) }
            for offset in 1...max(1, window.behind) where viewer.itemIndex - offset >= 0 {
                add(viewer.storyIndex, item: viewer.itemIndex - offset, .window)
            }
        }
        if let viewer = state.viewer {
            // The next stories' first unseen items first (a swipe lands there), then deeper.
            for depth in 0..<window.itemsPerNextStory {
                for story in viewer.storyIndex + 1...viewer.storyIndex + window.nextStories {
                    guard let loaded = state.feed.store.story(at: story) else { continue }
                    add(story, item: state.seen.firstUnseenIndex(in: loaded) + depth, .adjacent)
                }
            }
            // The story before, unless this person only ever goes forward.
            if viewer.storyIndex > 0, window.backwards { add(viewer.storyIndex - 1, item: nil, .adjacent) }
        } else {
            // The ring row: the feed layer (in the viewer the next stories take its place).
            for index in feedRange(state) { add(index, item: nil, .feed) }
        }
        let visible = targets.filter { $0.priority == .visible }
        return visible + targets.filter { $0.priority != .visible }.prefix(maxAhead)
    }

    /// The feed layer: 5 stories from the selection (the ring row follows the viewer).
    static func feedRange(_ state: AppState) -> Range<Int> {
        let start = min(state.row.selection, max(0, state.feed.store.count - 1))
        return start..<min(state.feed.store.count, start + feedStories)
    }
}
