import StoriesFeedIO
import StoriesCells
import Foundation
import StoriesCore
import StoriesMedia
import StoriesUI

/// The app without its terminal. It holds the one `AppState` and runs every action through
/// `AppReducer` — inputs, results of work, wake-ups, ticks — one at a time, in the order
/// they come (an action sent while another is being reduced waits its turn in the inbox).
/// The rest is done by parts that each do one job and keep no copy of the state:
/// `EffectRunner` (effects, cancellation by id), `FrameScheduler` (coalesced redraws and
/// the tick), `SessionRecorder` (`--record`), `MetricsReporter` (navigation times) and the
/// picture pipeline (photos, reporting back through `MediaRuntime` as `.mediaNews(.pictures)`).
///
/// The terminal run loop feeds it keys and resizes and puts its frames on screen;
/// `--headless` feeds it a recording and prints its last frame; tests drive it on the
/// virtual scheduler through a `TestScreen`. Time and deferred work come from an
/// `EngineScheduler`, so the same engine runs on the system clock or a virtual one.
@MainActor
public final class AppEngine {
    public private(set) var state: AppState
    private let scheduler: any EngineScheduler
    private let services: any EngineServices
    private let effects: EffectRunner
    /// Pictures and players, driven only by the reducer's media effects.
    private let media: MediaRuntime
    private let frames: FrameScheduler
    private let recorder = SessionRecorder()
    private let metrics = MetricsReporter()
    private var gestureLog: GestureLogWriter?

    /// How the terminal shows colour, and a cell's width over its height (pictures): the
    /// state's, changed only by `setDisplay`.
    public var display: Display { state.display }
    public var colorDepth: ColorDepth { state.display.colorDepth }
    /// Puts a frame on screen (the terminal, a test screen); nil draws nowhere.
    public var draw: (@MainActor (Canvas) -> Void)?
    /// The app asked to quit, with this exit status.
    public var quit: @MainActor (Int32) -> Void = { _ in } {
        didSet { effects.quit = quit }
    }
    /// The app asked to stop the process (Ctrl-Z, `.suspendProcess`): the terminal's runtime
    /// does it; elsewhere there is nothing to stop.
    public var suspendProcess: @MainActor () -> Void = {} {
        didSet { effects.suspendProcess = suspendProcess }
    }
    /// The app decided how pictures are shown (`.showPictures`): the terminal's runtime sets
    /// its picture layer up so; elsewhere there is no layer.
    public var showPictures: @MainActor (GraphicsChoice) -> Void = { _ in } {
        didSet { effects.showPictures = showPictures }
    }
    /// Ctrl-L: the screen must forget what it thinks is shown (the next frame is whole).
    public var forgetScreen: @MainActor () -> Void = {}
    /// `y`: the screen puts a link on the terminal's clipboard.
    public var copyToClipboard: @MainActor (String) -> Void = { _ in } {
        didSet { effects.copyToClipboard = copyToClipboard }
    }
    /// Seen state changed: keep it.
    public var persistSeen: (@MainActor (SeenState) -> Void)? {
        didSet { effects.persistSeen = persistSeen }
    }
    /// What is seen here is also kept by `remote` (a server's `/v1/seen`) as well as by
    /// `keep` (the seen file), and what the same viewer sees elsewhere comes in as actions
    /// on the main queue: news merged by the reducer, a problem syncing as a notice, a
    /// home worth asking for again. The full screen and screen-reader mode alike.
    public func syncSeen(with remote: any SeenRemote, keep: @escaping @MainActor (SeenState) -> Void) {
        persistSeen = { state in
            keep(state)
            remote.push(state)
        }
        remote.start(local: state.seen, arrived: { [weak self] state in
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.send(.seenElsewhere(state)) } }
        }, problem: { [weak self] line in
            guard let line else { return }
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.send(.notice(line)) } }
        }, changed: { [weak self] in
            // The server works out this viewer's home from what they have seen.
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.send(.home(.stale)) } }
        })
    }

    /// Called after every turn (all queued actions reduced) and every frame: a headless run
    /// watches for the moment nothing is left to do.
    public var afterTurn: (@MainActor () -> Void)?
    /// Every navigation measured (t1, t2, t3, time to visible), as it completes.
    public var onNavigation: (@MainActor (NavigationRecord) -> Void)?
    /// The last frame drawn.
    public private(set) var frame: Canvas
    /// The most the rendition cache has held.
    public private(set) var peakCacheBytes = 0
    /// Reducer runs so far, all told and for `.input` actions alone (one per input).
    public private(set) var reductions = 0
    public private(set) var inputReductions = 0

    private var inbox: [AppAction] = []
    private var reducing = false
    private var stopped = false
    /// The clock's uptime when the engine started: recordings count from here.
    public private(set) var startUptime: Double

    public init(services: any EngineServices, scheduler: any EngineScheduler, bindings: KeyBindings = .standard,
                width: Int, height: Int, seen: SeenState = SeenState(), warnings: [FeedWarning] = [],
                reduceMotion: Bool = false, preload: PreloadPolicy = .on, photosFit: Bool = true, pauseOnBlur: Bool = true,
                sound: SoundState = SoundState(enabled: false), layout: LayoutChoice = LayoutChoice(),
                waitsAtItemEnd: Bool = false) {
        self.services = services
        self.scheduler = scheduler
        media = MediaRuntime(pictures: services.pictures, players: services.players,
                             clock: { [weak scheduler] in scheduler?.now().uptime ?? 0 }, soundOutput: services.soundOutput)
        effects = EffectRunner(services: services, scheduler: scheduler, media: media)
        frames = FrameScheduler(scheduler: scheduler)
        let now = scheduler.now()
        startUptime = now.uptime
        state = AppState(title: services.feedTitle, now: now, seen: seen, warnings: warnings)
        state.reduceMotion = reduceMotion
        state.pauseOnBlur = pauseOnBlur
        state.preloadPolicy = preload
        state.media.photosFit = photosFit
        state.media.sound = sound
        state.layout = layout
        state.waitsAtItemEnd = waitsAtItemEnd
        state.bindings = bindings
        state.screenWidth = max(0, width)
        state.screenHeight = max(0, height)
        if services.network != .local { state.network = services.network.name }
        frame = Canvas(width: width, height: height)
        effects.send = { [weak self] in self?.send($0) }
        media.send = { [weak self] in self?.send($0) }
        effects.redrawScreen = { [weak self] in
            guard let self else { return }
            self.forgetScreen()
            self.frames.setNeedsDisplay()
        }
        frames.redraw = { [weak self] in self?.redraw() }
        frames.tick = { [weak self] in self?.send(.tick) }
        metrics.onNavigation = { [weak self] in self?.navigated($0) }
    }

    public var bindings: KeyBindings { state.bindings }
    public var width: Int { state.screenWidth }
    public var height: Int { state.screenHeight }

    /// Starts recording every input to `file` (JSON lines, docs/gestures.md), with the
    /// setup that shaped the session in the header; `flow`: as a flow, with the screen's
    /// checkpoints — each gesture and each item shown — as expectations between them.
    public func record(to file: LineFile, setup: SessionSetup? = nil, flow: Bool = false) {
        recorder.onFailure = { [weak self] in self?.writeFailed($0) }
        recorder.start(file, header: InputRecording(width: width, height: height,
                                                    started: state.now.date.timeIntervalSince1970, seen: state.seen, setup: setup),
                       flow: flow)
    }

    /// A navigation finished: told, and a flow being recorded notes what it showed.
    private func navigated(_ record: NavigationRecord) {
        if recorder.isFlow, record.complete, let position = state.feed.store.positions[record.story],
           let number = state.feed.store.summaries[safe: position]?.itemIDs.firstIndex(of: record.item) {
            recorder.checkpoint(.shown(.story(record.story, item: .number(number + 1))), at: elapsed)
        }
        onNavigation?(record)
    }

    /// The terminal's colours or cell shape changed (or are first known): recorded, and
    /// reduced like any other news.
    public func setDisplay(_ display: Display) {
        // The background and the pictures are the reducer's once facts came
        // (`BackgroundFacts`, `GraphicsFacts`): not news.
        var said = display
        if state.backgroundFacts != nil {
            said.background = state.display.background
            said.backgroundKnown = state.display.backgroundKnown
        }
        if state.graphics != nil {
            said.graphics = state.display.graphics
            said.largestPicture = state.display.largestPicture
        }
        if state.movingFramesInCells { said.movingPixels = false }
        guard said != state.display else { return }
        if display.cellAspect != state.display.cellAspect { recorder.record(.cellAspect(display.cellAspect), at: elapsed) }
        send(.display(display))
    }

    /// Writes every routing decision to `file` as it is made (`--gesture-log`).
    public func writeGestureLog(to file: LineFile) {
        let writer = GestureLogWriter(file: file)
        writer.onFailure = { [weak self] in self?.writeFailed($0) }
        gestureLog = writer
    }

    /// Appends one JSON line per navigation to `file` (`--metrics`).
    public func writeMetrics(to file: LineFile) {
        metrics.onFailure = { [weak self] in self?.writeFailed($0) }
        metrics.write(to: file)
    }

    /// The files that could not be written, in the order they failed.
    public var failedWrites: [WriteFailure] { state.chrome.failedWrites }

    /// Told of each file that could not be written, as it happens (a headless run says it
    /// on standard error; the terminal's notice line shows it from the state).
    public var onWriteFailed: (@MainActor (WriteFailure) -> Void)?

    /// A file could not be written: told, and reduced (notice line, problems list).
    public func writeFailed(_ failure: WriteFailure) {
        if !state.chrome.failedWrites.contains(where: { $0.file == failure.file }) { onWriteFailed?(failure) }
        send(.writeFailed(failure))
    }

    /// Asks for the first page and draws the first frame.
    public func start() {
        startUptime = scheduler.now().uptime
        services.pictures.cache.setBudget(RenditionCache.budget(width: width, height: height))
        send(.resized(width: width, height: height))
        send(.start)
        redraw()
    }

    /// Seconds since the engine started.
    public var elapsed: Double { scheduler.now().uptime - startUptime }

    // MARK: - Input

    /// One input from the terminal or a recording, read now.
    public func input(_ event: InputEvent) {
        // Job control is not input a recording keeps (as focus is not): a replay never
        // stops its own process.
        if state.bindings.command(for: event, in: state.inputContext) != .suspend { recorder.record(.input(event), at: elapsed) }
        send(.input(event, readAt: scheduler.now().uptime))
    }

    public func resize(width: Int, height: Int) {
        // One screen-size limit everywhere (a terminal, a recording, `--size`).
        let width = InputLimits.side(width), height = InputLimits.side(height)
        guard width != self.width || height != self.height else { return }
        recorder.record(.resize(width: width, height: height), at: elapsed)
        services.pictures.cache.setBudget(RenditionCache.budget(width: width, height: height))
        send(.resized(width: width, height: height))
    }

    /// Marks the end of a recording (the app is quitting).
    public func endRecording() { recorder.end(at: elapsed) }

    // MARK: - Actions

    /// Stops the engine for good (a benchmark run that is over): timers are cancelled,
    /// answers still on their way are ignored, nothing more is drawn.
    public func stop() {
        stopped = true
        frames.stop()
        effects.cancelAll()
        media.stop()
    }

    /// Reduces an action, and every action its effects send back meanwhile, in order.
    public func send(_ action: AppAction) {
        guard !stopped else { return }
        inbox.append(action)
        guard !reducing else { return }
        reducing = true
        while !inbox.isEmpty, !stopped {
            reduce(inbox.removeFirst())
        }
        reducing = false
        guard !stopped else { return }
        frames.update(for: state)
        afterTurn?()
    }

    private func reduce(_ action: AppAction) {
        let before = state
        reductions += 1
        if case .input = action { inputReductions += 1 }
        let work = AppReducer.reduce(&state, action, at: scheduler.now())
        gestureLog?.write(state, before: before, startUptime: startUptime)
        if recorder.isFlow, state.gesture.decisionCount > before.gesture.decisionCount {
            let new = min(state.gesture.decisionCount - before.gesture.decisionCount, state.gesture.log.count)
            for decision in state.gesture.log.suffix(new) {
                if let checkpoint = Flow.checkpoint(for: decision) { recorder.checkpoint(checkpoint, at: elapsed) }
            }
        }
        for effect in work { effects.perform(effect) }
        // The clock moves with every action; only a change to anything else, or a tick
        // while something on screen changes with time, is worth a frame.
        var unmoved = before
        unmoved.now = state.now
        let timeShows = action == .tick && (state.wantsFrames || before.wantsFrames)
        guard state != unmoved || timeShows else { return }
        frames.setNeedsDisplay()
        metrics.stateChanged(state, by: action)
    }

    /// What the metrics overlay shows now: read from the state and the pipeline's counters.
    public func metricsSnapshot() -> MetricsSnapshot {
        let pictures = services.pictures
        var window: [MetricsSnapshot.WindowItem] = []
        let viewer = state.viewer
        for target in state.media.preloadRequest?.targets ?? [] {
            let position = state.feed.store.positions[target.story]
            let story = position.flatMap { state.feed.store.story(at: $0) }
            let itemNumber = (story?.items.firstIndex { $0.id == target.item } ?? 0) + 1
            let count = story?.items.count ?? 0
            let label: String
            switch target.priority {
            case .visible, .window: label = "\(itemNumber)/\(count)"
            case .adjacent: label = ((position ?? 0) > (viewer?.storyIndex ?? 0) ? "next " : "prev ") + "\(itemNumber)/\(count)"
            case .feed: label = "feed \((position ?? 0) + 1)"
            }
            let status = state.media.status[target.media.location]
            let stage = status == .ready && state.media.shown.contains(target.media.location) ? "shown" : (status?.word ?? "-")
            window.append(.init(label: label, stage: stage, isVisible: target.priority == .visible))
        }
        var snapshot = MetricsSnapshot(policy: state.preloadPolicy, latest: metrics.records, window: window,
                               memoryBytes: pictures.cache.bytesInUse, memoryBudget: pictures.cache.budget,
                               bytesFetched: pictures.bytesFetched,
                               bytesNeverShown: pictures.bytesNeverShown(shown: state.media.shown),
                               hits: metrics.hits, navigations: metrics.count,
                               framesShown: services.players.framesShown, framesDropped: services.players.framesDropped,
                               livePlayers: services.players.decoders.current)
        snapshot.preloadState = PreloadPlanner.describe(state)
        return snapshot
    }

    /// A video's (or voice note's) bytes as the cache holds them (`stories render` decodes
    /// the sound of what played).
    public func mediaData(for location: String) -> Data? { services.pictures.cache.videoData(for: location) }

    /// Work still on its way (loads, builds, pictures, an animation, a frame to draw): a
    /// headless run waits for none to be left.
    public var isBusy: Bool {
        services.pendingWork > 0 || !services.pictures.isIdle || state.viewing.transition != nil || frames.redrawScheduled
            || !inbox.isEmpty
    }

    // MARK: - Drawing

    public func setNeedsDisplay() { frames.setNeedsDisplay() }

    /// Draws a frame now: a pure function of the state and the rendition cache. Drawing
    /// starts no work and sends nothing back; the metrics reporter notes what the frame
    /// showed.
    @discardableResult
    public func redraw() -> Canvas {
        frames.drew()
        guard !stopped else { return frame }
        frame = render()
        draw?(frame)
        peakCacheBytes = max(peakCacheBytes, services.pictures.cache.bytesInUse)
        if metrics.frameDrawn(state, at: scheduler.now().uptime), state.chrome.showsMetrics {
            frames.setNeedsDisplay() // the overlay lists the record just made
        }
        afterTurn?()
        return frame
    }

    /// The screen for the current state, as `redraw` would draw it (without drawing it).
    public func render() -> Canvas {
        let pictures = PictureLookups.cached(services.pictures.cache, players: services.players, screenWidth: width,
                                             screenHeight: height, display: state.display, fit: state.media.photosFit)
        let banners = PictureLookups.banners(services.pictures.cache, screenWidth: width, display: state.display)
        return AppView.render(state, width: width, height: height,
                              metrics: state.chrome.showsMetrics ? metricsSnapshot() : nil, pictures: pictures, banners: banners)
    }
}
