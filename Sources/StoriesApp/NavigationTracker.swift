import StoriesCore
import StoriesMedia

/// Measures every navigation as the engine runs: it starts when an input (or the item's
/// end) changes what the viewer is to show, notes when the story's items (t2) and its view
/// models (t1) are there, and ends at the first frame that holds the item whole (t3 is the
/// rest). Engine-only: everything happens on the main actor.
struct NavigationTracker {
    private struct Measuring {
        var trigger: String
        var start: Double
        var story: StoryID
        var item: ItemID?
        var hit: Bool
        var itemsAt: Double?
        var itemModelsAt: Double?
        var mediaAt: Double?
        var firstFrameAt: Double?
    }

    /// What the viewer is to show: a story, and its item once known.
    struct Target: Equatable {
        var story: StoryID
        var item: ItemID?
    }

    private var measuring: Measuring?
    private var lastTarget: Target?
    private(set) var records: [NavigationRecord] = []
    private(set) var hits = 0
    private(set) var count = 0

    static func target(of state: AppState) -> Target? {
        if let viewer = state.viewer {
            guard let id = state.feed.store.summaries[safe: viewer.storyIndex]?.id else { return nil }
            if viewer.isWaiting { return Target(story: id, item: nil) }
            return Target(story: id, item: state.feed.store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex]?.id)
        }
        return state.row.opening.map { Target(story: $0, item: nil) }
    }

    /// After each action: a new target starts a measurement (or continues the one for the
    /// same story: an opening that became the viewer), and milestones are noted. A
    /// measurement overtaken before it completed is returned, marked incomplete.
    mutating func update(_ state: AppState, trigger: String, inputTime: Double, mediaReady: (Media) -> Bool) -> NavigationRecord? {
        let now = state.now.uptime
        let target = Self.target(of: state)
        var overtaken: NavigationRecord?
        if target != lastTarget {
            lastTarget = target
            if let target {
                if var current = measuring, current.story == target.story, current.item == nil {
                    current.item = target.item
                    measuring = current
                } else {
                    if let current = measuring { overtaken = record(current, at: inputTime, complete: false) }
                    measuring = Measuring(trigger: trigger, start: inputTime, story: target.story, item: target.item, hit: false)
                    // What is already there was there at the input.
                    note(state, at: inputTime, mediaReady: mediaReady)
                    if var started = measuring {
                        started.hit = started.itemsAt != nil && started.itemModelsAt != nil && started.mediaAt != nil
                        measuring = started
                    }
                }
            } else {
                // Back on the row before it showed: given up, recorded as incomplete.
                if let current = measuring { overtaken = record(current, at: inputTime, complete: false) }
                measuring = nil
            }
        }
        note(state, at: now, mediaReady: mediaReady)
        return overtaken
    }

    /// Milestones reached by `time`: the story's items (t2), its view models (t1), the
    /// item's photo or video poster in the cache (t3; a text item has none to wait for).
    private mutating func note(_ state: AppState, at time: Double, mediaReady: (Media) -> Bool) {
        guard var current = measuring else { return }
        let story = state.feed.store.positions[current.story].flatMap { state.feed.store.story(at: $0) }
        if current.itemsAt == nil, story != nil { current.itemsAt = time }
        if current.itemModelsAt == nil, state.viewModels.items[current.story] != nil { current.itemModelsAt = time }
        if current.mediaAt == nil, let item = story?.items.first(where: { $0.id == current.item }) {
            if let media = item.content.media {
                // A photo, or a video's first frame (its poster), decoded at this size.
                if mediaReady(media) { current.mediaAt = time }
            } else {
                current.mediaAt = time
            }
        }
        measuring = current
    }

    /// After each frame that showed the viewer's item: at all (its first frame), or whole
    /// (`complete`: the measurement ends).
    mutating func frame(_ state: AppState, at now: Double, complete: Bool) -> NavigationRecord? {
        guard var current = measuring, let target = Self.target(of: state),
              target.story == current.story, target.item == current.item, current.item != nil else { return nil }
        if current.firstFrameAt == nil { current.firstFrameAt = now }
        measuring = current
        guard complete else { return nil }
        measuring = nil
        return record(current, at: now, complete: true)
    }

    private mutating func record(_ current: Measuring, at now: Double, complete: Bool) -> NavigationRecord {
        let item = current.item ?? ""
        let itemsAt = min(now, current.itemsAt ?? now)
        let itemModelsAt = max(itemsAt, current.itemModelsAt ?? itemsAt)
        let mediaAt = max(itemModelsAt, min(now, current.mediaAt ?? now))
        let ms = { (seconds: Double) in max(0, seconds) * 1000 }
        let record = NavigationRecord(trigger: current.trigger, story: current.story, item: item,
                                      t2: ms(itemsAt - current.start), t1: ms(itemModelsAt - itemsAt), t3: ms(mediaAt - itemModelsAt),
                                      timeToVisible: ms(now - current.start),
                                      firstFrame: ms((current.firstFrameAt ?? now) - current.start), hit: current.hit,
                                      complete: complete)
        records.append(record)
        if records.count > 50 { records.removeFirst(records.count - 50) }
        count += 1
        if record.hit { hits += 1 }
        return record
    }
}
