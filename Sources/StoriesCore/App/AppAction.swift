/// What can happen to the app: inputs, results of work and timers, each addressed to the
/// feature that owns it (docs/architecture.md, "Features"). The reducer hands each to that
/// feature's reducer; the "settle" step after every action is the only code that looks
/// across all of them.
public enum AppAction: Equatable, Sendable {
    /// The run loop, the screen and the clock (the App feature).
    case app(AppEvent)
    /// A key or a mouse report from the terminal (or a recording), with the uptime it was
    /// read at. The Pointer feature recognises the gesture (`GestureRecognizer`), applies it
    /// and logs the decision for the `g` overlay, all in this one run.
    case input(InputEvent, readAt: Double)
    /// A wake-up asked for with `.wake` has come; it goes to the feature that asked.
    case wake(WakeID)
    /// A command or a selection, as a key bound to it would give (the Navigation feature).
    case navigation(NavigationAction)
    /// Pages and stories' items (the Feed feature).
    case feed(FeedAction)
    /// The home sections (the Home feature).
    case home(HomeNews)
    /// The picture pipeline's and the video players' news (the Media feature).
    case mediaNews(MediaAction)
    /// View models built in the background, handed over in one step (the ViewModels feature).
    case viewModelsBuilt(ViewModelUpdate)
    /// Lines for the notice line, the problems list and the hint line (the Chrome feature).
    case chrome(ChromeAction)
    /// What the viewer saw on another terminal (the server's seen state, issue 34): merged
    /// by the parent with what was seen here — an item seen anywhere is seen.
    case seenElsewhere(SeenState)
}

/// The run loop, the screen and the clock.
public enum AppEvent: Equatable, Sendable {
    /// The run loop started: ask for the first page.
    case start
    /// The screen has this size now: width-dependent view models are rebuilt, and any
    /// gesture or animation in progress ends.
    case resized(width: Int, height: Int)
    /// The terminal's colours or cell shape are these now (at start; a resize can change a
    /// cell's pixel size): every picture is prepared again for them.
    case display(Display)
    /// What says which background the terminal has changed (at start, a late OSC 11
    /// answer): the reducer decides `display.background` from it (`BackgroundFacts.decided`).
    case background(BackgroundFacts)
    /// What says how pictures can be shown changed (at start, a late DA1 answer): the
    /// reducer decides the protocol from it (`GraphicsFacts.decided`) and, when that
    /// changes, asks the runtime to show pictures so (`.showPictures`).
    case graphics(GraphicsFacts)
    /// The terminal could not take a video's frames in real pixels in time: they are cells
    /// from now on (stills stay pixels).
    case picturesFellBehind
    /// Time passed (frame timer): progress, auto-advance, the end of an animation.
    case tick
    /// The terminal is about to be given up (Ctrl-Z): what plays stops until `.resume`.
    case suspend
    /// The shell gave the terminal back (`fg`): what played before plays on; what the person
    /// had paused stays paused.
    case resume
    /// The terminal window gained (true) or lost the focus, as it reports it (`CSI ? 1004 h`).
    case focus(Bool)
}

/// Moving through the stories without a gesture to recognise.
public enum NavigationAction: Equatable, Sendable {
    /// A command, as a key bound to it would give.
    case command(Command)
    /// Highlight the story at an index of the ring row.
    case select(Int)
    /// The running animation jumps to its end.
    case completeTransition
}

/// Results of the feed's work.
public enum FeedAction: Equatable, Sendable {
    /// A page of the feed arrived.
    case pageLoaded(FeedPage)
    /// The first page as the source's cache kept it (a warm start): shown until the feed's
    /// own first page arrives, if that has not happened yet.
    case cachedPageLoaded(FeedPage)
    /// A page did not come: `retry` when the reason may pass (the network), else it never
    /// will (a 404, not a feed), and the reason names the address.
    case pageFailed(String, retry: Bool)
    /// A story's items arrived.
    case storyLoaded(StoryLoad)
    /// A story's items did not arrive; `retry`: for a reason that may pass (a timeout, a
    /// refused connection, a 5xx), so they are asked for again with backoff while wanted.
    case storyFailed(StoryID, String, retry: Bool)
}

/// Results of asking for the home sections.
public enum HomeNews: Equatable, Sendable {
    /// The home sections arrived (`home.json`, `GET /v1/home`).
    case loaded(HomeLoad)
    /// They did not: asked again with backoff when the failure was the network's
    /// (`retry`), else said once and left (a 404, a document that is not a home).
    case failed(String, retry: Bool)
    /// What they are made from changed at the source (a server that works out each viewer's
    /// home took or sent seen state, issue 34): asked for again (a 304 when nothing moved).
    case stale
}

/// The media runtime's news.
public enum MediaAction: Equatable, Sendable {
    /// The picture pipeline's progress on photos (by location): fetched, decoded, ready at
    /// the current size, failed with the reason, or unreachable for now. One action for all
    /// the stages a preload request reports at once.
    case pictures([PictureNews])
    /// A video player's news about a video (by location): opened, stalled, resumed, ended,
    /// failed, redrawn.
    case video(String, VideoEvent)
    /// A media fetch took this many seconds (the preload window adapts to it); its answer
    /// is also news that the source is there.
    case fetchTimed(Double)
    /// A video's sound (by location): where it is heard now, or why none can be.
    case sound(String, SoundNews)
}

/// The sound runtime's news (issue 32).
public enum SoundNews: Equatable, Sendable {
    /// The sound heard now is this far into the video (seconds): the item's clock follows it.
    case heard(Double)
    /// No sound can be played (no sound server, the server went away): said once; the
    /// pictures keep their own clock.
    case unavailable(String)
}

/// One photo's stage, as the picture pipeline reports it.
public struct PictureNews: Equatable, Sendable {
    public var location: String
    public var status: MediaStatus
    /// Ready, but only part of it decoded (a file cut short): why.
    public var damage: String?
    /// Ready, and its bytes are an animation (a GIF of more than one frame): a photo item
    /// showing it plays it as a video.
    public var isAnimation: Bool
    /// Ready, and its bytes are sound alone (a voice note): how long it plays, in seconds.
    public var soundSeconds: Double?

    public init(_ location: String, _ status: MediaStatus, damage: String? = nil, isAnimation: Bool = false, soundSeconds: Double? = nil) {
        self.location = location
        self.status = status
        self.damage = damage
        self.isAnimation = isAnimation
        self.soundSeconds = soundSeconds
    }
}

/// Lines for the person: the notice line, the problems list, the hint line.
public enum ChromeAction: Equatable, Sendable {
    /// What opening a link did, in words for the notice line.
    case linkOpened(String)
    /// A file the app writes as it goes (a recording, the gesture log, the metrics, the
    /// seen state) could not be written: said at once on the notice line and kept in the
    /// problems list, once for each file; the app says it again when it ends.
    case writeFailed(WriteFailure)
    /// A live replay began, reached its end, or stopped: the hint line says so.
    case replay(ReplayStatus?)
    /// A line for the notice line from the runtime (how a replay differs from its
    /// recording, say).
    case notice(String)
}

/// The names every part of the app sends actions by: each builds the action of the feature
/// that owns it.
extension AppAction {
    public static let start = AppAction.app(.start)
    public static let tick = AppAction.app(.tick)
    public static let completeTransition = AppAction.navigation(.completeTransition)
    public static func resized(width: Int, height: Int) -> AppAction { .app(.resized(width: width, height: height)) }
    public static func display(_ display: Display) -> AppAction { .app(.display(display)) }
    public static func command(_ command: Command) -> AppAction { .navigation(.command(command)) }
    public static func select(_ index: Int) -> AppAction { .navigation(.select(index)) }
    public static func pageLoaded(_ page: FeedPage) -> AppAction { .feed(.pageLoaded(page)) }
    public static func cachedPageLoaded(_ page: FeedPage) -> AppAction { .feed(.cachedPageLoaded(page)) }
    public static func pageFailed(_ reason: String, retry: Bool = true) -> AppAction { .feed(.pageFailed(reason, retry: retry)) }
    public static func storyLoaded(_ load: StoryLoad) -> AppAction { .feed(.storyLoaded(load)) }
    public static func storyFailed(_ id: StoryID, _ reason: String, retry: Bool = false) -> AppAction {
        .feed(.storyFailed(id, reason, retry: retry))
    }
    public static func homeLoaded(_ load: HomeLoad) -> AppAction { .home(.loaded(load)) }
    public static func homeFailed(_ reason: String, retry: Bool) -> AppAction { .home(.failed(reason, retry: retry)) }
    public static func media(_ location: String, _ status: MediaStatus) -> AppAction {
        .mediaNews(.pictures([PictureNews(location, status)]))
    }
    public static func video(_ location: String, _ event: VideoEvent) -> AppAction { .mediaNews(.video(location, event)) }
    public static func fetchTimed(_ seconds: Double) -> AppAction { .mediaNews(.fetchTimed(seconds)) }
    public static func linkOpened(_ message: String) -> AppAction { .chrome(.linkOpened(message)) }
    public static func writeFailed(_ failure: WriteFailure) -> AppAction { .chrome(.writeFailed(failure)) }
    public static func replay(_ status: ReplayStatus?) -> AppAction { .chrome(.replay(status)) }
    public static func notice(_ text: String) -> AppAction { .chrome(.notice(text)) }
}
