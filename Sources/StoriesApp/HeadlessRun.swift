import StoriesFeedIO
import StoriesCells
import Dispatch
import Foundation
import StoriesCore
import StoriesMedia
import StoriesUI

/// `--headless`: the app over an off-screen canvas, no terminal. It starts, feeds a
/// recording's inputs (if any) at their times, waits until nothing is left to do (loads,
/// view models, pictures, animations), and hands over the last frame as text lines.
/// Nothing is read from or saved to the seen store: the run starts from the recording's
/// seen state, so it is the same wherever it runs.
@MainActor
public enum HeadlessRun {
    public struct Options {
        public var width: Int
        public var height: Int
        public var bindings: KeyBindings
        public var reduceMotion: Bool
        public var preload: PreloadPolicy
        public var recording: InputRecording?
        /// Where `--metrics` lines go.
        public var metrics: LineFile?
        /// `--until`: the moment of the recording to stop at (seconds from its start).
        public var until: Double?
        /// Where `--gesture-log` lines go.
        public var gestureLog: LineFile?
        /// Told of a file that could not be written, as it happens.
        public var onWriteFailed: (@MainActor (WriteFailure) -> Void)?
        /// The colours pictures are made for (a recording's).
        public var colors = "256"
        /// Photos shown whole at the start.
        public var photosFit = true
        /// The background text is kept readable on (a headless screen has no terminal to ask).
        public var background = Display.dark
        /// The block symbols pictures are drawn with (half blocks unless asked: a headless
        /// run's screen does not depend on the terminal it was started from).
        public var symbols = CellSymbols.half
        /// Which way the layout reads, and who reorders right-to-left text.
        public var layout = LayoutChoice()
        /// Real pixels as a terminal showing them would get (`stories render`): the protocol
        /// and the cell's size in pixels (its shape too). Cells unless said.
        public var graphics = GraphicsProtocol.cells
        public var cellPixels: CellPixels?
        /// Sound as the state plans it (`stories render` of a session with sound on): none
        /// is played, but the plan says what would be heard.
        public var sound = SoundState(enabled: false)

        public init(width: Int, height: Int, bindings: KeyBindings = .standard, reduceMotion: Bool = false,
                    preload: PreloadPolicy = .on, recording: InputRecording? = nil, metrics: LineFile? = nil) {
            self.width = width
            self.height = height
            self.bindings = bindings
            self.reduceMotion = reduceMotion
            self.preload = preload
            self.recording = recording
            self.metrics = metrics
        }
    }

    /// The virtual clock: the clock moves only from one scheduled piece of work to the
    /// next, network delays (photos' too) pass in virtual time and pictures decode inline
    /// when their bytes arrive, so the same
    /// recording gives the same frames, and the same last screen, every time.
    public static func runOnVirtualClock(client: FeedClient, options: Options) -> [String] {
        let started = options.recording?.started ?? 1_795_240_800 // 2026-11-21T06:00:00Z
        let start = Moment(uptime: 1000, date: Date(timeIntervalSince1970: started))
        let scheduler = VirtualScheduler(start: start)
        let engine = makeEngine(VirtualServices(client: client, scheduler: scheduler), scheduler, options)
        var quit = false
        engine.quit = { _ in quit = true }
        engine.start()
        let until = options.until
        for (time, entry) in options.recording?.entries ?? [] {
            if let until, time > until { break }
            scheduler.run(until: start.uptime + time)
            if quit { break }
            if !RecordingFeeder.feed(entry, to: engine, screen: .recorded) { break }
        }
        if let until {
            // The screen as it was at that moment, work in flight and all (a moment far past
            // the end stops after as many steps as the usual finish may take).
            scheduler.run(until: start.uptime + until, limit: 1_000_000)
            return Snapshot.lines(of: engine.redraw())
        }
        // Let what was started finish (a bounded number of steps: a failing page retries
        // forever, but not as pending work).
        var steps = 0
        while !quit, engine.isBusy, steps < 1_000_000, scheduler.runNext() { steps += 1 }
        return Snapshot.lines(of: engine.redraw())
    }

    /// The system clock and the app's own queues: inputs are fed at their recorded times
    /// while the network, decoding and view models run as they do in the terminal.
    /// `finish` receives the last screen once nothing is left to do.
    public static func runOnSystemClock(client: FeedClient, options: Options,
                                        finish: @escaping @MainActor ([String]) -> Never) -> Never {
        let scheduler = MainQueueScheduler()
        let engine = makeEngine(LiveServices(client: client), scheduler, options)
        var inputsDone = false
        func finishIfIdle() {
            // Idle means no frame is waiting to be drawn either: the last one is current.
            guard inputsDone, !engine.isBusy else { return }
            finish(Snapshot.lines(of: engine.frame))
        }
        engine.quit = { _ in finish(Snapshot.lines(of: engine.frame)) }
        engine.afterTurn = { finishIfIdle() }
        engine.start()
        let until = options.until
        let entries = (options.recording?.entries ?? []).filter { entry in until.map { entry.time <= $0 } ?? true }
        if let until {
            // The screen as it was at that moment, work in flight and all.
            scheduler.after(until) { finish(Snapshot.lines(of: engine.redraw())) }
        }
        for (time, entry) in entries {
            scheduler.after(time) {
                guard !inputsDone else { return }
                if !RecordingFeeder.feed(entry, to: engine, screen: .recorded) { inputsDone = true }
                finishIfIdle()
            }
        }
        scheduler.after(entries.last?.time ?? 0) {
            inputsDone = true
            finishIfIdle()
        }
        dispatchMain()
    }

    static func makeEngine(_ services: any EngineServices, _ scheduler: any EngineScheduler, _ options: Options) -> AppEngine {
        let engine = AppEngine(services: services, scheduler: scheduler, bindings: options.bindings, width: options.width,
                               height: options.height, seen: options.recording?.seen ?? SeenState(),
                               reduceMotion: options.reduceMotion, preload: options.preload, photosFit: options.photosFit,
                               sound: options.sound, layout: options.layout)
        engine.onWriteFailed = options.onWriteFailed
        if let metrics = options.metrics { engine.writeMetrics(to: metrics) }
        if let log = options.gestureLog { engine.writeGestureLog(to: log) }
        let aspect = options.cellPixels.map { Double($0.width) / Double($0.height) } ?? Display.standardCellAspect
        engine.setDisplay(Display(colorDepth: ColorDepth(name: options.colors) ?? .palette256, cellAspect: aspect,
                                  background: options.background, symbols: options.symbols, graphics: options.graphics,
                                  cellPixels: options.cellPixels))
        return engine
    }
}
