import StoriesFeedIO
import StoriesCells
import CNcursesw
import CStoriesSupport
import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesUI

/// The run loop of DESIGN.md: everything happens on the main queue (served on the main
/// thread by `TerminalSignals.serveMainQueueForever`), fed by
/// Dispatch sources — stdin (drained to ERR), SIGWINCH, SIGINT/SIGTERM/SIGHUP/SIGQUIT, SIGTSTP.
/// The app itself — state, reducer (gestures included), effects, frame timer — is an
/// `AppEngine` on the main-queue scheduler; this class gives it a terminal.
@MainActor
public final class TerminalApp {
    let terminal: CursesScreen
    let engine: AppEngine
    var decoder = InputDecoder()
    private var sources: [any DispatchSourceProtocol] = []
    private let seenStore: SeenStore?
    /// Where seen state is also kept, when the feed is a server's (`syncSeen`).
    private var remote: (any SeenRemote)?
    /// Run as the app ends, before the terminal is given back (a cache's last write).
    public var onQuit: (() -> Void)?
    var replay: (recording: InputRecording, name: String, until: Double?, notes: [String])?
    /// A line for stderr once the terminal is given back (the network's seed).
    public var farewell: String?
    /// Why stories.conf's colours could not be had, said at start.
    private var colorsNote: String?
    /// What says which background the terminal has (the reducer decides it from them).
    var backgroundFacts: BackgroundFacts
    /// The block symbols pictures are drawn with.
    private let symbols: CellSymbols

    /// What the terminal said about itself before the first frame.
    let probe: ProbeResult
    /// Its answers: the probe's, and those that came after it stopped waiting (a slow
    /// terminal, over ssh, or kitty starting on software OpenGL), read by the input decoder.
    var replies: ProbeReplies
    /// What says how pictures can be shown, as reported to the reducer (`.graphics`): a late
    /// DA1 answer adds to it.
    var graphicsFacts: GraphicsFacts
    /// When the probe's answers were asked for: until DA1 answers (for at most
    /// `TerminalApp.answersAwaited`), an ESC waits for the rest of its sequence.
    let askedAt = ContinuousClock.now
    /// When the last answer (or a piece of one) was read.
    lazy var lastAnswerAt = askedAt
    /// Ends a sequence begun and not ended once nothing more comes (`holdPartialSequence`).
    var pendingFlush: DispatchWorkItem?
    /// Why pictures are shown as they are (said on the notice line when asked for and not had).
    var graphicsNote: String?
    /// Inside tmux: what it says of itself and the terminal outside it.
    let tmux: TmuxClient?
    /// Whether 24-bit colour was already decided from what the terminal says (at start, or
    /// once from a late answer): it is looked for in the answers only once.
    var directColourDecided: Bool

    /// What the terminal shows now. A cell's pixel size is the window's when the terminal
    /// says it (it changes with the font), else what it answered at start.
    var display: Display {
        let cell = terminal.cellPixels ?? replies.cellPixels.flatMap { CellPixels(width: $0.width, height: $0.height) }
        var aspect = terminal.cellAspect
        if terminal.cellPixels == nil, let cell { aspect = Double(cell.width) / Double(cell.height) }
        // (Its background is the reducer's to decide, from `backgroundFacts`.)
        var display = Display(colorDepth: terminal.colorDepth, cellAspect: aspect, symbols: symbols,
                              graphics: terminal.graphics, cellPixels: cell)
        display.palette = replies.palette(defaults: paletteDefaults)
        return display
    }
    /// The terminal fell behind a video's frames in real pixels, and the reducer was told.
    private var toldFellBehind = false
    /// The 16 colours of the terminal's kind, for those OSC 4 does not answer.
    private let paletteDefaults = TerminalPalette.defaults(term: ProcessInfo.processInfo.environment["TERM"] ?? "")

    /// `--step`: where the replay is, on its virtual clock.
    var stepper: Stepper?

    struct Stepper {
        let recording: InputRecording
        let name: String
        let scheduler: VirtualScheduler
        /// The next entry to feed.
        var next = 0

        var start: Double { 1000 }
        var end: Double { recording.duration }
    }

    /// The colours this terminal shows, as recordings name them.
    public var colorName: String { terminal.colorDepth.name }

    /// `seenStore` keeps what was watched between runs; its state is read before the screen
    /// is touched (a corrupt file becomes a warning on the home screen).
    ///
    /// `stepping` (`--replay FILE --step`): the recording is replayed on the virtual clock,
    /// one input (→, Space, Enter) or one frame (.) per key, and nothing is saved.
    public init(client: FeedClient, seenStore: SeenStore? = nil, clock: any Clock = SystemClock(),
                bindings: KeyBindings = .standard, reduceMotion: Bool = false,
                preload: PreloadPolicy = .on, photosFit: Bool = true, pauseOnBlur: Bool = true, theme: ThemeChoice = .auto,
                colors: (depth: String, origin: String)? = nil, symbols: CellSymbols = .half,
                graphics: GraphicsProtocol? = nil, sound: SoundState = SoundState(enabled: false), cursor: CursorMode = .hidden,
                layout: LayoutChoice = LayoutChoice(), stepping: (recording: InputRecording, name: String)? = nil) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        // One burst of questions before ncurses starts (at most 5 ms for a terminal that
        // answers nothing, 100 ms where TERM has no entry here: `TerminalProbe.window`);
        // keys typed meanwhile are read first once the app runs, answers as they come.
        // Inside tmux, the terminal outside is tmux's to say (the probe reaches only tmux).
        // Asked first: nothing may stand between the probe's read and the input's (a
        // terminal slower than the probe answers into the input, which reads it).
        // The terminal's modes are kept first: a crash from here on gives them back.
        stories_install_crash_restore(STDOUT_FILENO)
        let environment = ProcessInfo.processInfo.environment
        tmux = stepping == nil ? TmuxClient.ask(environment: environment) : nil
        // The terminal stays raw after the probe until ncurses has it: an answer later than
        // the probe's window is read by the input decoder, neither echoed nor lost.
        probe = TerminalProbe.ask(environment: environment, timeout: TerminalProbe.window(environment: environment), handOver: true,
                                  offersSharedMemory: true)
        replies = probe.replies
        // No screen after all: the modes from before the probe, and its late answers dropped.
        let giveBack = { [probe] in
            if var saved = probe.savedModes { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            if let offer = probe.sharedMemoryOffer { KittySharedMemory.remove(offer) }
        }
        guard let input = fdopen(STDIN_FILENO, "r"), let output = fdopen(STDOUT_FILENO, "w") else {
            giveBack()
            throw TerminalError.notATerminal
        }
        self.symbols = symbols
        let evidence = TerminalEvidence.from(probe, environment: environment, tmux: tmux)
        directColourDecided = evidence.truecolor != nil
        do {
            terminal = try CursesScreen(input: input, output: output, evidence: evidence)
        } catch {
            giveBack()
            throw error
        }
        if cursor == .focus { terminal.showFocus() }
        // A VTE terminal would reorder what the app has already put in order.
        if layout.bidi == .app, ProcessInfo.processInfo.environment["VTE_VERSION"] != nil { terminal.keepTextOrder() }
        if let colors, let depth = ColorDepth(name: colors.depth), !terminal.limitColors(to: depth) {
            colorsNote = "\(SafeText.line(colors.origin, maxColumns: 60)) asks for more colours than this terminal shows (\(terminal.colorDepth.name))"
        }
        let size = terminal.size
        if let stepping {
            // The recording's own start and seen state, on a clock that moves only when a key
            // asks it to: the same frames as a headless replay, one at a time.
            let scheduler = VirtualScheduler(start: Moment(uptime: 1000, date: Date(timeIntervalSince1970: stepping.recording.started)))
            self.seenStore = nil
            engine = AppEngine(services: VirtualServices(client: client, scheduler: scheduler), scheduler: scheduler,
                               bindings: bindings, width: size.width, height: size.height, seen: stepping.recording.seen,
                               reduceMotion: reduceMotion, preload: preload, photosFit: photosFit, layout: layout)
            stepper = Stepper(recording: stepping.recording, name: stepping.name, scheduler: scheduler)
        } else {
            self.seenStore = seenStore
            let loaded = seenStore?.load()
            engine = AppEngine(services: LiveServices(client: client), scheduler: MainQueueScheduler(clock: clock),
                               bindings: bindings, width: size.width, height: size.height,
                               seen: loaded?.state ?? SeenState(), warnings: loaded?.warning.map { [$0] } ?? [],
                               reduceMotion: reduceMotion, preload: preload, photosFit: photosFit, pauseOnBlur: pauseOnBlur,
                               sound: sound, layout: layout)
        }
        // What says the background — the theme, the answer to OSC 11, COLORFGBG, XTerm —
        // goes to the reducer, which decides it (`BackgroundFacts.decided`); a terminal
        // slower than the probe answers with the input (`takeAnswers`).
        backgroundFacts = BackgroundFacts(theme: theme, answer: probe.replies.background, colorfgbg: environment["COLORFGBG"],
                                          isXTerm: probe.replies.version?.hasPrefix("XTerm") == true)
        if theme == .auto, !probe.asked { terminal.askBackground() }
        // Real pixels: as said, else as the terminal answered — the reducer's to decide
        // (`GraphicsFacts.decided`, the sixel limit, the note), from what the probe found here.
        let window = terminal.cellPixels.map { PixelArea(width: size.width * $0.width, height: size.height * $0.height) }
        graphicsFacts = GraphicsFacts(probe, environment: environment, tmux: tmux, said: graphics, stepping: stepping != nil,
                                      windowPixels: window,
                                      cellSizeKnown: terminal.cellPixels != nil || probe.replies.cellPixels != nil)
        graphicsNote = graphicsFacts.note
        // The probe's stray keys, read as the first input, then the start of an answer its
        // window cut (the rest comes with the input).
        for scalar in String(decoding: probe.replies.typed + probe.replies.unread, as: UTF8.self).unicodeScalars {
            decoder.feed(.scalar(scalar))
        }
        engine.showPictures = { [terminal] choice in terminal.showPictures(choice) }
        engine.send(.app(.background(backgroundFacts)))
        engine.send(.app(.graphics(graphicsFacts)))
        engine.setDisplay(display)
        engine.draw = { [unowned self] canvas in
            self.terminal.draw(canvas)
            // Video frames in pixels that the terminal did not take in time: news, after this frame.
            if !self.toldFellBehind, !self.terminal.picturesKeepUp {
                self.toldFellBehind = true
                DispatchQueue.main.async { MainActor.assumeIsolated { self.engine.send(.app(.picturesFellBehind)) } }
            }
        }
        engine.forgetScreen = { [terminal] in terminal.forgetScreen() }
        engine.copyToClipboard = { [terminal] text in terminal.copyToClipboard(text) }
        engine.persistSeen = { [seenStore = self.seenStore] in seenStore?.save($0) }
        // A seen state that cannot be written is said at once, on the notice line, and at the end.
        let engine = self.engine
        if let path = seenStore?.file.path {
            seenStore?.onWriteFailure = { reason in
                DispatchQueue.main.async { MainActor.assumeIsolated { engine.writeFailed(WriteFailure(.seenState, path: path, reason: reason)) } }
            }
        }
        engine.quit = { [unowned self] status in self.quit(status: status) }
        // After this reduction is done: `.app(.suspend)` is reduced (what plays stops) before the stop.
        engine.suspendProcess = { [unowned self] in DispatchQueue.main.async { MainActor.assumeIsolated { self.suspend() } } }
    }

    /// What is seen here is also kept by `remote` (a server's `/v1/seen`), and what the same
    /// viewer sees elsewhere arrives as news: the reducer merges it, the rings follow.
    public func syncSeen(with remote: any SeenRemote) {
        guard seenStore != nil, stepper == nil else { return }
        self.remote = remote
        let store = seenStore
        engine.syncSeen(with: remote) { store?.save($0) }
    }

    /// Writes every input to `file` as the session goes (`--record`).
    public func record(to file: LineFile, setup: SessionSetup? = nil, flow: Bool = false) { engine.record(to: file, setup: setup, flow: flow) }

    /// Writes every routing decision to `file` as JSON lines (`--gesture-log`).
    public func writeGestureLog(to file: LineFile) { engine.writeGestureLog(to: file) }

    /// Appends one JSON line per navigation to `file` (`--metrics`).
    public func writeMetrics(to file: LineFile) { engine.writeMetrics(to: file) }

    /// Feeds a recording's inputs at their times once the app runs (`--replay`, up to
    /// `until`); keys and the mouse keep working meanwhile and after. The hint line says it
    /// is a replay, the notice line how this run differs from the recorded one.
    public func replay(_ recording: InputRecording, name: String, until: Double? = nil, notes: [String] = []) {
        replay = (recording, name, until, notes)
    }

    /// Starts the app and never returns; the process ends through `quit(status:)`.
    public func run() -> Never {
        installSources()
        engine.start()
        // What is said at start, on the one notice line: why colours are fewer than asked,
        // and how a replay differs from its recording.
        var notices = [terminal.standInNote, terminal.truecolorNote, colorsNote, graphicsNote].compactMap { $0 }
        if let replay, !replay.notes.isEmpty { notices.append("Replaying: " + replay.notes.joined(separator: "; ")) }
        if !notices.isEmpty { engine.send(.notice(notices.joined(separator: " · "))) }
        if stepper != nil {
            showStep()
            TerminalSignals.serveMainQueueForever()
        }
        if let replay {
            // The terminal keeps its own size: resize entries are skipped.
            let entries = replay.recording.entries.filter { entry in replay.until.map { entry.time <= $0 } ?? true }
            let end = min(replay.until ?? replay.recording.duration, replay.recording.duration)
            let status = ReplayStatus(name: replay.name, since: engine.startUptime, end: end,
                                      stoppedEarly: (replay.until ?? .infinity) < replay.recording.duration)
            engine.send(.replay(status))
            for (time, entry) in entries {
                DispatchQueue.main.asyncAfter(deadline: .now() + time) {
                    MainActor.assumeIsolated {
                        _ = RecordingFeeder.feed(entry, to: self.engine, screen: .terminal)
                    }
                }
            }
            var over = status
            over.isOver = true
            let ended = over
            DispatchQueue.main.asyncAfter(deadline: .now() + end) {
                MainActor.assumeIsolated { self.engine.send(.replay(ended)) }
            }
        }
        TerminalSignals.serveMainQueueForever()
    }

    // MARK: - Input

    private func handleInput() {
        let raw = terminal.readAvailable()
        if raw.isEmpty && Self.inputHungUp() {
            quit(status: 0) // the terminal went away; without this the source would fire forever
        }
        for input in raw { decoder.feed(input) }
        dispatch(decoder.takeEvents())
        takeAnswers()
        holdPartialSequence()
    }

    /// Events from the decoder, to the app (or the stepper).
    func dispatch(_ events: [InputEvent]) {
        for event in events {
            // Ctrl-Z arrives as a key (the terminal's suspend character is off while the app
            // has the screen): the key map makes it `suspend`, and the reducer's
            // `.suspendProcess` brings it back here (`suspend()`), as SIGTSTP does.
            if stepper != nil { step(event) } else { engine.input(event) }
        }
        // Focus is not input a recording keeps: a replay is not paused by it.
        for focused in decoder.takeFocusReports() where stepper == nil && replay == nil { engine.send(.app(.focus(focused))) }
    }

    // MARK: - Sources and exit

    private func installSources() {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler {
            MainActor.assumeIsolated { self.handleInput() }
        }
        input.resume()
        sources.append(input)

        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        resize.setEventHandler {
            MainActor.assumeIsolated {
                self.terminal.updateSize()
                self.engine.setDisplay(self.display)
                let size = self.terminal.size
                self.engine.resize(width: size.width, height: size.height)
            }
        }
        resize.resume()
        sources.append(resize)

        // (Every signal taken here is in `TerminalSignals.taken`, blocked in every thread.)
        // One that came before now (Ctrl-C during the probe) waits, pending: it is acted on
        // first, as it would have been. Each is then given a handler that does nothing
        // rather than SIG_IGN, which would discard one arriving meanwhile.
        let pending = TerminalSignals.pending()
        for (signalNumber, status) in [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129), (SIGQUIT, 131)] as [(Int32, Int32)]
        where pending.contains(signalNumber) {
            quit(status: status)
        }
        if pending.contains(SIGTSTP) { DispatchQueue.main.async { MainActor.assumeIsolated { self.suspend() } } }
        stories_ignore_keeping_pending(SIGTSTP)
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .main)
        stop.setEventHandler {
            MainActor.assumeIsolated { self.suspend() }
        }
        stop.resume()
        sources.append(stop)

        // Ctrl-\ (SIGQUIT) quits like Ctrl-C: the runtime's backtrace would otherwise hold the
        // terminal in curses mode for half a minute.
        let exits: [(signal: Int32, status: Int32)] = [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129), (SIGQUIT, 131)]
        for (signalNumber, status) in exits {
            stories_ignore_keeping_pending(signalNumber)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated { () -> Void in self.quit(status: status) }
            }
            source.resume()
            sources.append(source)
        }
    }

    func quit(status: Int32) -> Never {
        engine.endRecording()
        seenStore?.flush()
        remote?.finish(timeout: 1)
        onQuit?()
        if let offer = probe.sharedMemoryOffer { KittySharedMemory.remove(offer) }
        terminal.restore()
        if let farewell { FileWrites.sayOnStandardError(farewell) }
        // Every file that could not be written is said again, now that the screen is gone,
        // and the exit status says so.
        var failures = engine.failedWrites
        if let store = seenStore, let reason = store.lastError, !failures.contains(where: { $0.file == .seenState }) {
            failures.append(WriteFailure(.seenState, path: store.file.path, reason: reason))
        }
        for failure in failures { FileWrites.sayOnStandardError("stories: " + failure.line) }
        exit(status == 0 && !failures.isEmpty ? Self.writeFailedStatus : status)
    }

    /// The exit status of a run whose files could not all be written (sysexits' EX_IOERR).
    public nonisolated static let writeFailedStatus: Int32 = 74
}
