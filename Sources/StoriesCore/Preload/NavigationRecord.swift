import Foundation

/// One navigation, measured as LinkedIn splits the wait: from reading the input to the
/// first frame that holds the item whole.
public struct NavigationRecord: Equatable, Sendable {
    /// The gesture that asked for it ("tap right", "swipe to the next story", "open",
    /// "auto-advance").
    public var trigger: String
    public var story: StoryID
    public var item: ItemID
    /// Waiting for the story's items (t2), then for its screen's view models (t1), then for
    /// the photo (t3), in milliseconds; 0 when it was already there.
    public var t2: Double
    public var t1: Double
    public var t3: Double
    /// From reading the input to the first frame with the item's full media (ms).
    public var timeToVisible: Double
    /// From reading the input to the first frame that showed the item at all, its
    /// BlurHash standing in or whole (ms).
    public var firstFrame: Double
    /// Items, view models and media were all ready when the input came.
    public var hit: Bool
    /// False when the next navigation came before the item was whole: `timeToVisible` is
    /// then how long it had waited (a lower bound), `firstFrame` too if nothing showed.
    public var complete: Bool

    public init(trigger: String, story: StoryID, item: ItemID, t2: Double, t1: Double, t3: Double,
                timeToVisible: Double, firstFrame: Double, hit: Bool, complete: Bool = true) {
        self.complete = complete
        self.trigger = trigger
        self.story = story
        self.item = item
        self.t2 = t2
        self.t1 = t1
        self.t3 = t3
        self.timeToVisible = timeToVisible
        self.firstFrame = firstFrame
        self.hit = hit
    }

    /// One JSON line (the `--metrics` file; docs/performance.md lists the fields), times in
    /// milliseconds to two places.
    public var jsonLine: String { json.text() }

    public var json: JSONValue {
        .object([
            "trigger": .string(trigger), "story": .string(story), "item": .string(item),
            "t1_ms": .rounded(t1, places: 2), "t2_ms": .rounded(t2, places: 2), "t3_ms": .rounded(t3, places: 2),
            "ttv_ms": .rounded(timeToVisible, places: 2), "first_frame_ms": .rounded(firstFrame, places: 2),
            "hit": .bool(hit), "complete": .bool(complete),
        ])
    }
}

/// What the metrics overlay (`i`) shows: the latest navigations, the preload window item
/// by item, and memory.
public struct MetricsSnapshot: Equatable, Sendable {
    public struct WindowItem: Equatable, Sendable {
        /// "2/5" in the story shown, or "next 1/3", "prev 2/4", "feed 3".
        public var label: String
        /// queued, fetching, decoding, ready, shown, failed, or "-" (nothing asked).
        public var stage: String
        public var isVisible: Bool

        public init(label: String, stage: String, isVisible: Bool = false) {
            self.label = label
            self.stage = stage
            self.isVisible = isVisible
        }
    }

    public var policy: PreloadPolicy
    public var latest: [NavigationRecord]
    public var window: [WindowItem]
    public var memoryBytes: Int
    public var memoryBudget: Int
    public var bytesFetched: Int
    public var bytesNeverShown: Int
    public var hits: Int
    public var navigations: Int
    /// Video frames shown and dropped (late, or overtaken), all told.
    public var framesShown: Int
    public var framesDropped: Int
    /// Video players alive now (at most two).
    public var livePlayers: Int
    /// The adaptive window and what it learned (`PreloadPlanner.describe`).
    public var preloadState = ""

    public init(policy: PreloadPolicy, latest: [NavigationRecord] = [], window: [WindowItem] = [], memoryBytes: Int = 0,
                memoryBudget: Int = 0, bytesFetched: Int = 0, bytesNeverShown: Int = 0, hits: Int = 0, navigations: Int = 0,
                framesShown: Int = 0, framesDropped: Int = 0, livePlayers: Int = 0) {
        self.livePlayers = livePlayers
        self.framesShown = framesShown
        self.framesDropped = framesDropped
        self.policy = policy
        self.latest = latest
        self.window = window
        self.memoryBytes = memoryBytes
        self.memoryBudget = memoryBudget
        self.bytesFetched = bytesFetched
        self.bytesNeverShown = bytesNeverShown
        self.hits = hits
        self.navigations = navigations
    }
}
