/// Everything the screens draw, in one value. Changed only by `AppReducer`.
public struct AppState: Equatable, Sendable {
    public enum Screen: Equatable, Sendable {
        case home
        case viewer(ViewerState)
    }

    public var title: String
    /// The network profile's name when one is in use ("3g"), shown on the title line.
    public var network: String?
    /// The stories, paged in: the one source of truth for the ring row and the viewer.
    public var store = StoryStore()
    /// What the ring row draws, built off the main queue from `store` and `seen`.
    public var ring = ViewModelList<RingBubbleViewModel>()
    /// What the viewer draws for each loaded story, built for `layoutWidth`.
    public var pages: [StoryID: [ViewerPageViewModel]] = [:]
    /// The screen width view models are built for (the runtime reports resizes).
    public var layoutWidth = 80
    /// A story whose bubble was opened and whose items are still on their way: the viewer
    /// opens when they arrive; meanwhile the row can be browsed, and Esc cancels.
    public var opening: StoryID?
    /// When the opening began (uptime): the loading ring turns with the time since.
    public var openingSince: Double = 0
    /// Problems found in the feed, newest last; the home screen shows them.
    public var warnings: [FeedWarning] = []
    /// The highlighted bubble of the ring row.
    public var selection = 0
    public var screen: Screen = .home
    public var seen = SeenState()
    public var showsHelp = false
    /// Photos shown whole (letterboxed) instead of filling the screen (`f`).
    public var photosFit = false
    /// When the last action was applied; screens use it for progress and relative times.
    public var now: Moment
    /// When the app started (uptime): the gesture log counts from here.
    public var startedAt: Double = 0
    /// The movement being drawn between two screens, if any (see `Transition`).
    public var transition: Transition?
    /// A viewer drag following the pointer.
    public var drag: Drag?
    /// Instant cuts instead of motion (`--reduce-motion`, or the config file).
    public var reduceMotion = false
    /// Preloading in three layers (`PreloadPlanner`), or everything on demand.
    public var preload = PreloadPolicy.on
    /// The gesture overlay (`g`) is shown.
    public var showsGestures = false
    /// The metrics overlay (`i`) is shown.
    public var showsMetrics = false
    /// The latest routing decisions, oldest first (at most `gestureLogLimit`).
    public var gestureLog: [GestureDecision] = []
    public static let gestureLogLimit = 40

    public init(title: String, now: Moment, seen: SeenState = SeenState(), warnings: [FeedWarning] = []) {
        self.title = title
        self.now = now
        self.seen = seen
        self.warnings = warnings
    }

    /// True until the first page of the feed has arrived.
    public var isLoading: Bool { store.isLoadingFirstPage }

    /// A small, non-blocking line about paging trouble (the app keeps retrying).
    public var pagingNotice: String? {
        guard case .failed(_, let attempt, let reason, _) = store.paging else { return nil }
        let what = store.count == 0 ? "Stories did not load" : "More stories did not load"
        return "\(what): \(reason). Trying again" + (attempt > 1 ? " (attempt \(attempt + 1))…" : "…")
    }

    public var viewer: ViewerState? {
        if case .viewer(let viewer) = screen { return viewer }
        return nil
    }

    public var inputContext: InputContext {
        if showsHelp { return .help }
        return viewer == nil ? .home : .viewer
    }

    /// True while something on screen changes with time alone (a progress bar filling):
    /// the run loop keeps a frame timer only then, so an idle app uses no CPU.
    public var wantsFrames: Bool {
        if transition != nil { return true }
        if let viewer { return viewer.playback.isRunning }
        return opening != nil // the loading ring turns
    }
}

/// The open story in the viewer and how far its current item has played.
public struct ViewerState: Equatable, Sendable {
    public var storyIndex: Int
    public var itemIndex: Int
    /// Paused by the user (Space). The help overlay stops playback too, without this.
    public var isPaused = false
    /// Paused while the mouse button is held down (released: playing again).
    public var isHeld = false
    /// The item's photo is still on its way (the runtime reports it): progress waits.
    public var awaitingMedia = false
    public var playback: Playback
    /// The story's items (or, past the last story, the next page) are still on their way;
    /// nothing plays until they arrive.
    public var isWaiting = false
    /// While waiting: the item to show when they arrive (nil: the first unseen).
    public var wantedItem: Int?

    public init(storyIndex: Int, itemIndex: Int, startedAt: Double) {
        self.storyIndex = storyIndex
        self.itemIndex = itemIndex
        self.playback = Playback(startedAt: startedAt)
    }
}

/// Elapsed time of the current item, measured on the monotonic clock, so the progress bar
/// follows time and not frames, and stands still while stopped.
public struct Playback: Equatable, Sendable {
    /// Seconds played before the last stop.
    public var banked: Double = 0
    /// When it started running again; nil while stopped.
    public var runningSince: Double?

    public init(startedAt: Double) { runningSince = startedAt }

    public var isRunning: Bool { runningSince != nil }

    public func elapsed(at uptime: Double) -> Double {
        banked + max(0, uptime - (runningSince ?? uptime))
    }

    public mutating func stop(at uptime: Double) {
        banked = elapsed(at: uptime)
        runningSince = nil
    }

    public mutating func run(at uptime: Double) {
        if runningSince == nil { runningSince = uptime }
    }
}
