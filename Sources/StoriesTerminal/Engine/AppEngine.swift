import Foundation
import StoriesCore
import StoriesMedia
import StoriesUI

/// The app without its terminal: state, the reducer and its effects, the gesture router,
/// the frame timer and the drawing of frames. The terminal run loop feeds it keys and
/// resizes and puts its frames on screen; `--headless` feeds it a recording and prints its
/// last frame. Everything runs on the main actor; time and deferred work come from an
/// `EngineScheduler`, so the same engine runs on the system clock or a virtual one.
@MainActor
public final class AppEngine {
    public private(set) var state: AppState
    public let bindings: KeyBindings
    private var router: GestureRouter
    private let scheduler: any EngineScheduler
    private let services: any EngineServices
    public private(set) var width: Int
    public private(set) var height: Int
    /// How the terminal shows colour, and a cell's width over its height (pictures).
    public var colorDepth: ColorDepth = .palette256
    public var cellAspect = 0.5
    /// Puts a frame on screen (the terminal); nil draws nowhere (headless).
    public var draw: (@MainActor (Canvas) -> Void)?
    /// The app asked to quit, with this exit status.
    public var quit: @MainActor (Int32) -> Void = { _ in }
    /// Seen state changed: keep it.
    public var persistSeen: (@MainActor (SeenState) -> Void)?
    /// Called after every action and every frame (a headless run watches for the moment
    /// nothing is left to do).
    public var afterTurn: (@MainActor () -> Void)?
    /// The last frame drawn.
    public private(set) var frame: Canvas

    /// Every navigation measured (t1, t2, t3, time to visible), as it completes.
    public var onNavigation: (@MainActor (NavigationRecord) -> Void)?
    /// The most the rendition cache has held.
    public private(set) var peakCacheBytes = 0

    private var storyRequests: [StoryID: any Cancellable] = [:]
    private var tracker = NavigationTracker()
    /// When the input being routed was read.
    private var inputTime: Double?
    private var metricsFile: FileHandle?
    private var lastPreload: [PreloadTarget] = []
    private var lastPreloadSize: (Int, Int, ColorDepth, Bool)?
    private var frameWork: ScheduledWork?
    private var holdWork: ScheduledWork?
    private var redrawScheduled = false
    private var stopped = false
    private var recorder: FileHandle?
    /// The clock's uptime when the engine started: recordings count from here.
    public private(set) var startUptime: Double

    /// The shortest gap between frames (about 30 a second). Frames come only when the
    /// screen will change: `AppView.secondsUntilNextChange` says when.
    public static let minimumFrameInterval = 1.0 / 30

    public init(services: any EngineServices, scheduler: any EngineScheduler, bindings: KeyBindings = .standard,
                width: Int, height: Int, seen: SeenState = SeenState(), warnings: [FeedWarning] = [],
                reduceMotion: Bool = false, preload: PreloadPolicy = .on) {
        self.services = services
        self.scheduler = scheduler
        self.bindings = bindings
        router = GestureRouter(bindings: bindings)
        self.width = width
        self.height = height
        let now = scheduler.now()
        startUptime = now.uptime
        state = AppState(title: services.feedTitle, now: now, seen: seen, warnings: warnings)
        state.reduceMotion = reduceMotion
        state.preload = preload
        if services.network != .local { state.network = services.network.name }
        frame = Canvas(width: width, height: height)
        services.pictures.onProgress = { [weak self] in
            guard let self, !self.stopped else { return }
            if self.state.showsMetrics { self.setNeedsDisplay() } // the window strip is live
            self.afterTurn?()
        }
    }

    /// Starts recording every input to `file` (JSON lines, docs/gestures.md).
    public func record(to file: FileHandle) {
        recorder = file
        let header = InputRecording(width: width, height: height, started: state.now.date.timeIntervalSince1970, seen: state.seen)
        write(header.headerLine)
    }

    /// Appends one JSON line per navigation to `file` (`--metrics`).
    public func writeMetrics(to file: FileHandle) { metricsFile = file }

    /// Asks for the first page and draws the first frame.
    public func start() {
        startUptime = scheduler.now().uptime
        send(.resized(width: width))
        send(.start)
        redraw()
    }

    /// Seconds since the engine started.
    public var elapsed: Double { scheduler.now().uptime - startUptime }

    // MARK: - Input

    /// One input from the terminal or a recording: through the gesture router, whose
    /// decision joins the gesture log.
    public func input(_ event: InputEvent) {
        write(InputRecording.line(.input(event), at: elapsed))
        let surface = GestureSurface(width: width, height: height,
                                     isUsable: width >= AppView.minimumWidth && height >= AppView.minimumHeight,
                                     bubbleAt: { [state, width] column, row in
                                         HomeScreen.bubbleIndex(atColumn: column, row: row, state: state, width: width)
                                     })
        inputTime = scheduler.now().uptime
        router.route(event, at: scheduler.now().uptime, surface: surface, state: { state }, send: { send($0) })
        inputTime = nil
        armHoldCheck()
    }

    public func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        write(InputRecording.line(.resize(width: width, height: height), at: elapsed))
        self.width = width
        self.height = height
        // `send` re-arms the frame timer: the bar's cells, and so its pace, changed.
        send(.resized(width: width))
        setNeedsDisplay()
    }

    /// Marks the end of a recording (the app is quitting).
    public func endRecording() {
        write(InputRecording.line(.end, at: elapsed))
        recorder = nil
    }

    private func armHoldCheck() {
        holdWork?.cancel()
        holdWork = nil
        guard let wake = router.wakeAt else { return }
        holdWork = scheduler.after(wake - scheduler.now().uptime) { [weak self] in
            guard let self else { return }
            self.holdWork = nil
            self.router.wake(at: self.scheduler.now().uptime) { self.send($0) }
        }
    }

    private func write(_ line: String) {
        recorder?.write(Data((line + "\n").utf8))
    }

    // MARK: - Actions and effects

    /// Stops the engine for good (a benchmark run that is over): timers are cancelled,
    /// answers still on their way are ignored, nothing more is drawn.
    public func stop() {
        stopped = true
        frameWork?.cancel()
        holdWork?.cancel()
        for request in storyRequests.values { request.cancel() }
        storyRequests = [:]
        services.pictures.prefetch([])
    }

    public func send(_ action: AppAction) {
        guard !stopped else { return }
        let before = state
        let effects = AppReducer.reduce(&state, action, at: scheduler.now())
        for effect in effects { perform(effect) }
        if state != before {
            setNeedsDisplay()
            if let overtaken = tracker.update(state, trigger: Self.trigger(of: action, in: state),
                                              inputTime: inputTime ?? state.now.uptime, mediaReady: isReady) {
                emit(overtaken)
            }
            updatePreload()
        }
        updateFrameTimer()
        afterTurn?()
    }

    /// The gesture a navigation is measured under.
    private static func trigger(of action: AppAction, in state: AppState) -> String {
        switch action {
        case .command(let command): GestureRouter.meaning(of: command, in: state).0
        case .select: "open"
        case .endDrag: "drag"
        case .tick: "auto-advance"
        default: "arrival"
        }
    }

    // MARK: - Preloading

    /// The photo is in the cache at the viewer's size.
    private func isReady(_ media: Media) -> Bool {
        if case .ready = services.pictures.cache.state(peek: renditionKey(media)) { return true }
        return false
    }

    /// The rendition of a photo for the viewer at the current size, depth and fit.
    private func renditionKey(_ media: Media) -> RenditionKey {
        let size = ViewerScreen.photoSize(width: width, height: height)
        return RenditionKey(location: media.location, width: size.width, height: size.height, depth: colorDepth,
                            fit: state.photosFit ? .fit : .fill)
    }

    /// Hands the planner's targets to the picture pipeline when they (or the screen) change.
    private func updatePreload() {
        let targets = PreloadPlanner.targets(state)
        let size = (width, height, colorDepth, state.photosFit)
        if targets == lastPreload, let last = lastPreloadSize, last == size { return }
        lastPreload = targets
        lastPreloadSize = size
        services.pictures.prefetch(targets.map { (renditionKey($0.media), $0.priority) }, cellAspect: cellAspect)
    }

    /// What the metrics overlay shows now.
    public func metricsSnapshot() -> MetricsSnapshot {
        let pictures = services.pictures
        var window: [MetricsSnapshot.WindowItem] = []
        let viewer = state.viewer
        for target in PreloadPlanner.targets(state) {
            let position = state.store.positions[target.story]
            let story = position.flatMap { state.store.story(at: $0) }
            let itemNumber = (story?.items.firstIndex { $0.id == target.item } ?? 0) + 1
            let count = story?.items.count ?? 0
            let label: String
            switch target.priority {
            case .visible, .window: label = "\(itemNumber)/\(count)"
            case .adjacent: label = ((position ?? 0) > (viewer?.storyIndex ?? 0) ? "next " : "prev ") + "\(itemNumber)/\(count)"
            case .feed: label = "feed \((position ?? 0) + 1)"
            }
            let stage = pictures.stage(of: renditionKey(target.media))?.rawValue ?? "-"
            window.append(.init(label: label, stage: stage, isVisible: target.priority == .visible))
        }
        return MetricsSnapshot(policy: state.preload, latest: tracker.records, window: window,
                               memoryBytes: pictures.cache.bytesInUse, memoryBudget: pictures.cache.budget,
                               bytesFetched: pictures.bytesFetched, bytesNeverShown: pictures.bytesNeverShown,
                               hits: tracker.hits, navigations: tracker.count)
    }

    private func perform(_ effect: AppEffect) {
        switch effect {
        case .loadPage(let cursor):
            services.loadPage(cursor) { result in
                switch result {
                case .success(let page): self.send(.pageLoaded(page))
                case .failure(let error): self.send(.pageFailed(error.reason))
                }
            }
        case .loadStory(let id):
            storyRequests[id] = services.loadStory(id) { result in
                self.storyRequests[id] = nil
                switch result {
                case .success(let load): self.send(.storyLoaded(load))
                case .failure(let error): self.send(.storyFailed(id, error.description))
                }
            }
        case .cancelStory(let id):
            storyRequests.removeValue(forKey: id)?.cancel()
        case .retryPage(let delay):
            scheduler.after(delay) { self.send(.retryPage) }
        case .buildViewModels(let job):
            services.buildViewModels(job) { self.send(.viewModelsBuilt($0)) }
        case .quit:
            quit(0)
        case .persistSeen(let seen):
            persistSeen?(seen)
        }
    }

    /// Work still on its way (loads, builds, pictures, an animation, a frame to draw): a
    /// headless run waits for none to be left.
    public var isBusy: Bool {
        services.pendingWork > 0 || !services.pictures.isIdle || state.transition != nil || redrawScheduled
    }

    // MARK: - Drawing

    public func setNeedsDisplay() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        scheduler.after(0) { self.redraw() }
    }

    /// Draws a frame now. The viewer's progress waits while its photo is still on its way:
    /// what the frame could show of it is reported back as `.mediaLoading`.
    @discardableResult
    public func redraw() -> Canvas {
        redrawScheduled = false
        guard !stopped else { return frame }
        let visible = visibleMedia()
        var visibleState: PictureState?
        let metrics = state.showsMetrics ? metricsSnapshot() : nil
        frame = AppView.render(state, width: width, height: height, bindings: bindings, metrics: metrics) { media, width, height, fit in
            let picture = self.picture(media, width: width, height: height, fit: fit)
            if media.location == visible { visibleState = picture }
            return picture
        }
        draw?(frame)
        let loading: Bool
        switch visibleState {
        case .loading?, .placeholder?: loading = true
        default: loading = false
        }
        measureFrame(visible: visible, picture: visibleState)
        if let viewer = state.viewer, viewer.awaitingMedia != loading { send(.mediaLoading(loading)) }
        afterTurn?()
        return frame
    }

    /// Notes what the frame just drawn showed of the item being navigated to.
    private func measureFrame(visible: String?, picture: PictureState?) {
        peakCacheBytes = max(peakCacheBytes, services.pictures.cache.bytesInUse)
        guard let viewer = state.viewer, !viewer.isWaiting, width >= AppView.minimumWidth, height >= AppView.minimumHeight else { return }
        var complete = true
        if let visible {
            switch picture {
            case .ready?:
                services.pictures.markShown(visible)
            case .failed?:
                break // the reason is on screen: as visible as it will get
            default:
                complete = false
            }
        }
        guard let record = tracker.frame(state, at: scheduler.now().uptime, complete: complete) else { return }
        emit(record)
    }

    private func emit(_ record: NavigationRecord) {
        metricsFile?.write(Data((record.jsonLine + "\n").utf8))
        onNavigation?(record)
        if state.showsMetrics { setNeedsDisplay() }
    }

    /// The location of the photo the viewer shows, if it shows one.
    private func visibleMedia() -> String? {
        guard let viewer = state.viewer, !viewer.isWaiting,
              let item = state.store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex],
              case .image(let media) = item.content else { return nil }
        return media.location
    }

    /// The picture for the screen, from the cache; when it is missing, decoding starts and
    /// a redraw follows.
    private func picture(_ media: Media, width: Int, height: Int, fit: FitMode) -> PictureState {
        let key = RenditionKey(location: media.location, width: width, height: height, depth: colorDepth, fit: fit)
        return services.pictures.picture(key, blurhash: media.blurhash, cellAspect: cellAspect) { [weak self] in
            guard let self else { return }
            self.tracker.mediaArrived(self.state, at: self.scheduler.now().uptime, mediaReady: self.isReady)
            self.setNeedsDisplay()
        }
    }

    /// Schedules a tick for the moment the screen next changes by itself, or none when
    /// nothing moves.
    private func updateFrameTimer() {
        frameWork?.cancel()
        frameWork = nil
        guard let delay = AppView.secondsUntilNextChange(state, width: width, height: height) else { return }
        frameWork = scheduler.after(max(delay, Self.minimumFrameInterval)) { [weak self] in
            self?.frameWork = nil
            self?.send(.tick)
        }
    }
}
