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
    /// What the viewer draws for each loaded story, built for `screenWidth`.
    public var pages: [StoryID: [ViewerPageViewModel]] = [:]
    /// Stories whose pages a build on its way will bring (asked for, not yet installed).
    public var pagesBuilding: Set<StoryID> = []
    /// How the person navigates and how long fetches take: what the preload window adapts to.
    public var pace = NavigationPace()
    /// Stories whose pages are kept at most: those farthest from where the person is go
    /// first, and are built again (about a millisecond) when wanted, so memory does not
    /// grow with the distance travelled.
    public static let pagesKept = 48
    /// The screen's size in cells (the runtime reports resizes as `.resized`). View models
    /// are built for its width; gestures are recognised against both.
    public var screenWidth = 80
    public var screenHeight = 24
    /// The terminal's colours and cell shape, as the runtime reported them (`.display`).
    public var display = Display()
    /// The screen is big enough to draw the app (`ScreenLayout.minimumWidth` × `…Height`).
    public var isUsable: Bool { ScreenLayout.isUsable(width: screenWidth, height: screenHeight) }
    /// The keys in force (`keys.conf` over the defaults): the reducer resolves keys itself.
    public var bindings = KeyBindings.standard
    /// The mouse pointer's gesture so far: the only record of a press, a hold or a drag.
    public var pointer = Pointer.idle
    /// How far the preparation of each photo (by location) has got, as the picture
    /// pipeline reports it (`.media`). The progress bar waits on the visible one.
    public var media: [String: MediaStatus] = [:]
    /// The photos being prepared, as last handed to the runtime (`.preload`): the preload
    /// set, held here and nowhere else.
    public var preloadRequest: PreloadRequest?
    /// Photos and videos (by location) the source did not answer for, for a reason that may
    /// pass: asked for again with backoff while wanted, and at once when the source answers.
    public var mediaRetries = Retries<String>()
    /// Stories whose items the source did not answer for, retried the same way.
    public var storyRetries = Retries<StoryID>()
    /// The source's last word was a failure that may pass: its next answer is news that it
    /// is back (what was held back is asked for at once, once — not at every answer).
    public var sourceUnreachable = false
    /// The players' plan, as last handed to the media runtime (`.players`).
    public var playerPlan = PlayerPlan()
    /// Items shown so far (each `show`): a video shown afresh starts over (`PlayerPlan`).
    public var showCount = 0
    /// What each video's player has reported (by location).
    public var videos: [String: VideoStatus] = [:]
    /// Photos that were on the viewer whole: the bytes fetched for any other were fetched
    /// for nothing (the metrics overlay counts them).
    public var shownMedia: Set<String> = []
    /// A story whose bubble was opened and whose items are still on their way: the viewer
    /// opens when they arrive; meanwhile the row can be browsed, and Esc cancels.
    public var opening: StoryID?
    /// When the opening began (uptime): the loading ring turns with the time since.
    public var openingSince: Double = 0
    /// Something further along the feed than the pages loaded so far: a story a home cell
    /// opened, the true last story (End), the next story with unseen items (`n`) or a
    /// person by name (`/`). Pages are asked for, one after another, until it comes, the
    /// feed ends, or the search's limit of stories has been looked through. Esc stops it.
    public var seeking: SeekTarget?
    /// Pages asked for by the search so far, and how many stories were loaded when it
    /// began (its limits count from there, so pressing the key again goes on).
    public var seekPages = 0
    public var seekStartCount = 0
    /// The most stories paged in while looking for one, and the most pages asked for (a
    /// feed whose pages bring nothing new cannot keep a search going). End goes further:
    /// it is asked for the end, wherever that is.
    public static let seekLimit = 1000
    public static let seekPageLimit = 100
    public static let endSeekLimit = 10_000
    public static let endSeekPageLimit = 1_000
    /// Tries of one page before a search gives up (the row's own paging goes on retrying).
    public static let seekAttempts = 4
    /// Problems found in the feed, newest last; the home screen shows them.
    public var warnings: [FeedWarning] = []
    /// Files the app writes as it goes that could not be written, one entry a file, in the
    /// order they failed: said again when the app ends, whose exit status then says so.
    public var failedWrites: [WriteFailure] = []
    /// The screens of home sections: the first is the home itself (the sections below the
    /// ring row, as the feed sent them), each later one a screen a cell opened; the last is
    /// the one shown. Never empty.
    public var homeLevels = [HomeLevel(title: "", sections: [])]
    /// Counts changes to the sections shown (the home re-fetched, a screen opened or
    /// closed): view models built for an older count are not drawn.
    public var homeGeneration = 0
    /// What the section area draws, built off the main queue.
    public var homeModels: HomeViewModels?
    /// Where the request for the home sections stands.
    public var homeRequest = HomeRequest.notStarted
    /// The id of the tooltip on screen: shown the first time its cell is focused, and never
    /// again (`seen` remembers it).
    public var tooltip: String?
    /// A line on the home screen saying what the last link did; the next key clears it.
    public var notice: String?
    /// The highlighted bubble of the ring row.
    public var selection = 0
    public var screen: Screen = .home
    public var seen = SeenState()
    /// A box over the screen that has the keyboard: the help (`?`) or the list of feed
    /// problems (`p`). Playback stops under it, and nothing is marked seen.
    public var modal: Modal?
    /// How far that box is scrolled, in lines; PgDn, PgUp, ↓, ↑ and the wheel move it a page
    /// at a time, held to the text so it can never point past the end.
    public var modalScroll = 0
    /// Links show their address beside their title (`u`).
    public var showsLinkAddress = false
    /// The `/` field on the home screen while a name is typed (nil: not searching).
    public var search: SearchField?
    /// Photos shown whole over a backdrop made from the photo (the default), or filling the
    /// screen cropped to their most detailed part (`f` toggles).
    public var photosFit = true
    /// When the last action was applied; screens use it for progress and relative times.
    public var now: Moment
    /// When the app started (uptime): the gesture log counts from here.
    public var startedAt: Double = 0
    /// The movement being drawn between two screens, if any (see `Transition`).
    public var transition: Transition?
    /// Instant cuts instead of motion (`--reduce-motion`, or the config file).
    public var reduceMotion = false
    /// Preloading in three layers (`PreloadPlanner`), or everything on demand.
    public var preloadPolicy = PreloadPolicy.on
    /// The gesture overlay (`g`) is shown.
    public var showsGestures = false
    /// The metrics overlay (`i`) is shown.
    public var showsMetrics = false
    /// The latest routing decisions, oldest first (at most `gestureLogLimit`).
    public var gestureLog: [GestureDecision] = []
    public static let gestureLogLimit = 40
    /// Decisions logged since the start (the log keeps the latest; `--gesture-log` writes
    /// every one, counting with this).
    public var decisionCount = 0
    /// A live replay in progress, or just over: the hint line says so, with the time.
    public var replay: ReplayStatus?

    public init(title: String, now: Moment, seen: SeenState = SeenState(), warnings: [FeedWarning] = []) {
        self.title = title
        self.now = now
        self.seen = seen
        self.warnings = warnings
    }

    /// True until the first page of the feed has arrived.
    public var isLoading: Bool { store.isLoadingFirstPage }

    /// Seconds the first page may take before the loading line says it is late.
    public static let firstPagePatience: Double = 3
    /// The first page took longer than `firstPagePatience` (it may still come, or fail
    /// with its reason at the network's timeout).
    public var firstPageOverdue = false

    /// The line shown where the ring row will be, while there are no stories to show.
    public var emptyRowMessage: String {
        if isLoading {
            guard firstPageOverdue else { return "Loading stories…" }
            return "Loading stories… no answer from \(title) in \(Int(Self.firstPagePatience)) s, still waiting"
        }
        return store.hasMore ? "Waiting for the feed…" : "No stories to show in this feed."
    }

    /// A small, non-blocking line about paging trouble (the app keeps retrying).
    public var pagingNotice: String? {
        guard case .failed(_, let attempt, let reason, _) = store.paging else { return nil }
        let what = store.isProvisional ? "Showing the stories saved from the last visit; the feed did not answer"
            : store.count == 0 ? "Stories did not load" : "More stories did not load"
        return "\(what): \(reason). Trying again" + (attempt > 1 ? " (attempt \(attempt + 1))…" : "…")
    }

    public var viewer: ViewerState? {
        if case .viewer(let viewer) = screen { return viewer }
        return nil
    }

    /// The screen of sections shown.
    public var homeLevel: HomeLevel {
        get { homeLevels[homeLevels.count - 1] }
        set { homeLevels[homeLevels.count - 1] = newValue }
    }

    /// The section view models for what is shown now (nil while they are being built).
    public var currentHomeModels: HomeViewModels? {
        guard let homeModels, homeModels.generation == homeGeneration else { return nil }
        return homeModels
    }

    /// The focused cell's tooltip, while it is the one being shown.
    public var visibleTooltip: Tooltip? {
        guard viewer == nil, modal == nil, let tooltip, let focused = homeLevel.focusedCell,
              let tip = homeLevel.cell(section: focused.section, index: focused.cell)?.tooltip, tip.id == tooltip else { return nil }
        return tip
    }

    public var inputContext: InputContext {
        if modal != nil { return .help }
        if search != nil, viewer == nil { return .search }
        return viewer == nil ? .home : .viewer
    }

    /// A viewer drag following the pointer (derived from `pointer`).
    public var drag: Drag? { pointer.drag }

    /// The mouse button is held down in the viewer: paused until it is let go.
    public var isHeld: Bool {
        if case .holding = pointer { return true }
        return false
    }

    /// The photo or video of the viewer's item, when it is on screen.
    public var visibleMedia: Media? {
        guard let viewer, !viewer.isWaiting,
              let item = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex] else { return nil }
        return item.content.media
    }

    /// The viewer's video, when its item is one.
    public var visibleVideo: Media? {
        guard let viewer, !viewer.isWaiting,
              let item = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex],
              case .video(let media) = item.content else { return nil }
        return media
    }

    /// The viewer's photo (or a video's first frame) is not on screen — still on its way,
    /// or it failed (the reason is on screen instead) — or its video has no frame for the
    /// time shown: the progress bar waits, and the item is not marked seen.
    public var awaitsMedia: Bool {
        guard let media = visibleMedia else { return false }
        guard self.media[media.location] == .ready else { return true }
        guard let video = visibleVideo else { return false }
        // A video waits for its player to open the first time, and for frames when it stalls.
        guard let status = videos[video.location] else { return true }
        return status.failure == nil && status.isStalled
    }

    /// How long an item plays: a video as long as its stream (where it really ended, else
    /// what its container says), the feed's `duration` when the container says nothing or
    /// the video cannot play; anything else its `duration`.
    public func duration(of item: StoryItem) -> Double {
        guard case .video(let media) = item.content, let status = videos[media.location], status.failure == nil else {
            return item.duration
        }
        return status.endedAt ?? status.duration ?? item.duration
    }

    /// The videos that need a live player now, at most two: the viewer's item when it is a
    /// video and, while a sideways drag or a cube turn shows another story, that story's
    /// item. Everything else shows its poster from the rendition cache.
    public var livePlayers: [String] {
        var live: [String] = []
        func add(_ viewer: ViewerState?) {
            guard let viewer, !viewer.isWaiting,
                  let item = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex],
                  case .video(let media) = item.content, !live.contains(media.location), live.count < 2 else { return }
            live.append(media.location)
        }
        guard isUsable else { return [] }
        add(viewer)
        if case .cube(let leaving, let arriving, _)? = transition?.kind {
            add(arriving)
            add(leaving)
        } else if case .swipe(let offset)? = drag, let viewer, offset != 0 {
            let index = viewer.storyIndex + (offset < 0 ? 1 : -1)
            if let story = store.story(at: index) {
                add(ViewerState(storyIndex: index, itemIndex: seen.firstUnseenIndex(in: story), startedAt: 0))
            }
        }
        return live
    }

    /// True while something on screen changes with time alone (a progress bar filling):
    /// the run loop keeps a frame timer only then, so an idle app uses no CPU.
    public var wantsFrames: Bool {
        if transition != nil { return true }
        if let replay, !replay.isOver { return true } // its clock on the hint line
        if let viewer { return viewer.playback.isRunning }
        return opening != nil // the loading ring turns
    }
}
