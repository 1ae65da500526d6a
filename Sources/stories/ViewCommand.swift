import StoriesFeedIO
import StoriesCells
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesApp
import StoriesCore
import StoriesHTTP
import StoriesTerminal
import StoriesCommandLine

/// `stories [view] [FOLDER] [--feed PATH]`: checks the feed before the screen is touched,
/// then hands over to the terminal run loop.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open the stories viewer (the default).",
        discussion: """
            Opens the embedded demo feed unless a folder is given: a feed folder \
            (feed.json, docs/feed-format.md), or any folder of photos and videos — each \
            sub-folder a story, loose files one story per day, in capture order. --server \
            gives instead the address of a `stories serve` (or any \
            server of the same API). Stories come in pages of 10; --network (or --latency, \
            --bandwidth, --fail, --timeout) puts a pretend network in front of the feed.

            Keys: Left/Right (h/l) choose a story, Enter open it, Down/Up the home sections below \
            the row, Home/End the first and the feed's last story, PgUp/PgDn a screenful, n the \
            next unseen story, / a person by name, p every feed problem; in the viewer Left/Right \
            previous/next item, [ ] previous/next story, Space pause, m turns the sound off or \
            on, f photos fill the screen or show whole, o opens the item's link, y copies it, u shows links' addresses, Esc back to \
            the row; g shows how each input was routed, i the metrics; Ctrl-L redraws; Ctrl-Z \
            stops (fg brings it back); ? shows \
            every key; q quits. The mouse taps (left third: back), holds (pause), drags sideways \
            (next/previous story) and pulls down (dismiss).

            QA: --record FILE keeps every input with its time and the setup it met (feed, \
            network, seed, settings); --replay FILE plays it back on that setup (flags given \
            win); --until 3.2s stops there; --headless --virtual-clock --replay FILE prints the \
            same screen every time; --gesture-log FILE writes every routing decision.
            """
    )

    @Argument(help: ArgumentHelp("A folder of photos and videos, or a feed folder (as --feed).", valueName: "folder"))
    var folder: String?

    @Option(name: .long, help: ArgumentHelp("A folder (with feed.json, or of photos and videos), or a server's address (as --server).", valueName: "path"))
    var feed: String?

    @Option(name: .long, help: ArgumentHelp("A feed server (`stories serve`), like http://127.0.0.1:8080; answers are cached in $XDG_CACHE_HOME/stories/http and revalidated.", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("With --server: a file holding your viewer's token (else $STORIES_TOKEN): what you watch is seen on every terminal you use (`stories serve add-viewer` makes tokens).", valueName: "file"))
    var tokenFile: String?

    @Option(name: .long, help: ArgumentHelp("Make up a feed of N stories instead (for scale; deterministic).", valueName: "N"))
    var synthetic: Int?

    @OptionGroup var network: NetworkOptions

    @Flag(help: "Instant cuts instead of animations (or reduce-motion = on in stories.conf).")
    var reduceMotion = false

    @Option(help: ArgumentHelp("Preloading: on (the default: feed, adjacent stories, a window in the story) or off (everything on demand).", valueName: "on|off"))
    var preload: String?

    @Option(help: ArgumentHelp("Colours: truecolor, 256, 16, 8 or none (default: what the terminal shows, or colors in stories.conf).", valueName: "depth"))
    var colors: String?

    @Option(help: ArgumentHelp("Light or dark: auto (the default: as the terminal answers), dark or light (or theme in stories.conf).", valueName: "auto|dark|light"))
    var theme: String?

    @Option(help: ArgumentHelp("Picture cells: auto (the default: the richest set the terminal is known to draw), half, quad, sextant or octant (or symbols in stories.conf).", valueName: "set"))
    var symbols: String?

    @Option(help: ArgumentHelp("Photos in real pixels: auto (the default: as the terminal answers; `stories doctor` says what it found), kitty, sixel, iterm, or cells for none (or graphics in stories.conf).", valueName: "kind"))
    var graphics: String?

    @Option(help: ArgumentHelp("Seed of the pretend network's delays and failures, and of --synthetic's names (default: a new one each run for the network, said when the app ends and kept in --record; 1 for --synthetic).", valueName: "N"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Append one JSON line per navigation to FILE: trigger, t1, t2, t3, time to visible, hit (docs/performance.md).", valueName: "file"))
    var metrics: String?

    @Option(help: ArgumentHelp("Write every input with its time to FILE (JSON lines, docs/gestures.md).", valueName: "file"))
    var record: String?

    @Option(help: ArgumentHelp("Feed the inputs recorded in FILE back at their times, with the feed, network, seed and settings it was made with (flags given here win; the run says what differs).", valueName: "file"))
    var replay: String?

    @Option(help: ArgumentHelp("With --replay: stop at this moment of the recording, like 3.2s (headless: print the screen as it was then).", valueName: "time"))
    var until: String?

    @Option(help: ArgumentHelp("Write every routing decision (the g log) to FILE as JSON lines.", valueName: "file"))
    var gestureLog: String?

    @Flag(help: "With --replay in the terminal: step through it on a virtual clock, one input (→, Space) or one frame (.) per key.")
    var step = false

    @Flag(help: "No terminal: run over an off-screen canvas, then print the last screen as text on stdout.")
    var headless = false

    @Flag(help: "Videos without their sound (or sound = off in stories.conf; m toggles it while watching).")
    var mute = false

    @Flag(help: "Videos with their sound, also in a replay, which plays none unless asked (the default elsewhere, where there is a sound server: PulseAudio or PipeWire).")
    var sound = false

    @Flag(help: "No full screen: numbered lines that say what changed, for screen readers, braille displays and speech (stories --screen-reader | espeak-ng); commands are typed as words (help lists them) or key names, one a line.")
    var screenReader = false

    @Option(help: ArgumentHelp("Which way the layout reads: ltr, rtl (the ring row from the right, taps and swipes mirrored), or auto (the default: as the feed says, else the locale, like LANG=ar_EG.UTF-8).", valueName: "direction"))
    var direction: String?

    @Option(help: ArgumentHelp("Where the terminal's cursor is: focus (on what has focus, for screen readers and braille displays), hidden, or auto (the default: focus where a screen reader is likely).", valueName: "mode"))
    var cursor: String?

    @Option(help: ArgumentHelp("The screen for --headless, WxH (default: the recording's size, or 80x24).", valueName: "WxH"))
    var size: String?

    @Flag(help: "With --headless: time moves only from one event to the next, so a replay gives the same frames every time.")
    var virtualClock = false

    func validate() throws {
        if [feed != nil || folder != nil, synthetic != nil, server != nil].filter({ $0 }).count > 1 {
            throw ValidationError("a folder, --feed, --server and --synthetic cannot be used together")
        }
        if feed != nil && folder != nil { throw ValidationError("give the folder once: as the argument or as --feed") }
        if let synthetic, !(1...100_000).contains(synthetic) {
            throw ValidationError("--synthetic takes a number of stories from 1 to 100000; got \(synthetic)")
        }
        _ = try network.profile()
        if let seed, seed > SessionSetup.maxSeed {
            throw ValidationError("--seed takes a whole number from 0 to \(SessionSetup.maxSeed); got \(seed)")
        }
        if until != nil, replay == nil { throw ValidationError("--until needs --replay FILE") }
        if mute, sound { throw ValidationError("--mute and --sound ask for opposite things: give one") }
        if record != nil, headless {
            throw ValidationError("--record keeps a session in the terminal; a headless run has no inputs of its own to record (it replays --replay FILE)")
        }
        if step, replay == nil || headless { throw ValidationError("--step needs --replay FILE, in the terminal (not --headless)") }
        if let until, flags.untilSeconds(until) == nil {
            throw ValidationError("--until: '\(SafeText.line(until))' is not a time like 3.2s or 800ms (at most a year)")
        }
        if virtualClock && !headless { throw ValidationError("--virtual-clock works with --headless (add --headless)") }
        if size != nil && !headless { throw ValidationError("--size works with --headless; the terminal sets the size otherwise") }
        if let size { _ = try parseSize(size) }
        if let direction, direction.lowercased() != "auto", LayoutDirection(rawValue: direction.lowercased()) == nil {
            throw ValidationError("--direction takes auto, ltr or rtl; got '\(SafeText.line(direction))'")
        }
        if screenReader, headless || step || record != nil || replay != nil {
            throw ValidationError("--screen-reader reads its commands from standard input: --headless, --replay, --record and --step are for the full screen")
        }
        if let cursor, cursor.lowercased() != "auto", CursorMode(rawValue: cursor.lowercased()) == nil {
            throw ValidationError("--cursor takes auto, focus or hidden; got '\(SafeText.line(cursor))'")
        }
        if let symbols, !CellSymbols.names.contains(symbols.lowercased()) {
            throw ValidationError("--symbols takes \(CellSymbols.names.joined(separator: ", ")); got '\(SafeText.line(symbols))'")
        }
        if let graphics, !AppSettings.graphicsNames.contains(graphics.lowercased()) {
            throw ValidationError("--graphics takes \(AppSettings.graphicsNames.joined(separator: ", ")); got '\(SafeText.line(graphics))'")
        }
        if let theme, ThemeChoice(rawValue: theme.lowercased()) == nil {
            throw ValidationError("--theme takes auto, dark or light; got '\(SafeText.line(theme))'")
        }
        if let colors, ColorDepth(name: colors) == nil {
            throw ValidationError("--colors takes truecolor, 256, 16, 8 or none; got '\(SafeText.line(colors))'")
        }
        if let preload, PreloadPolicy(rawValue: preload.lowercased()) == nil {
            throw ValidationError("--preload takes on or off; got '\(SafeText.line(preload))'")
        }
    }

    /// The flags as plain values, for `runViewer`.
    var flags: ViewFlags {
        ViewFlags(folder: folder, feed: feed, server: server, tokenFile: tokenFile, synthetic: synthetic, networkFlags: network,
                  reduceMotion: reduceMotion, preload: preload, colors: colors, theme: theme, symbols: symbols, graphics: graphics,
                  seed: seed, metrics: metrics, record: record, replay: replay, until: until, gestureLog: gestureLog, step: step,
                  headless: headless, mute: mute, sound: sound, screenReader: screenReader, direction: direction, cursor: cursor,
                  size: size, virtualClock: virtualClock)
    }

    mutating func run() throws { try flags.runViewer() }
}

/// What the viewer does with its flags, whoever parsed them: ArgumentParser (`ViewCommand`),
/// or nobody, for `stories` alone (`ViewFlags()`, main.swift).
extension ViewFlags {
    func untilSeconds(_ text: String) -> Double? {
        NetworkProfile.parseDuration(text).flatMap { $0 <= InputLimits.maxRecordingTime ? $0 : nil }
    }

    /// The viewer, from these flags: settings, the feed, then the terminal (or a headless run,
    /// or the screen reader's lines). Never returns once the screen is up.
    func runViewer() throws {
        let environment = ProcessInfo.processInfo.environment
        // Settings: the defaults, then stories.conf and keys.conf, then a recording's setup
        // (a replay meets what the session met), then the flags given here.
        var settings = AppSettings()
        var keysText = ""
        do {
            if let text = try readConfig(KeyBindings.configFile(environment: environment)) {
                _ = try KeyBindings.standard.applying(text.content, file: text.path)
                keysText = text.content
            }
            if let text = try readConfig(AppSettings.configFile(environment: environment)) {
                settings = try settings.applying(text.content, file: text.path)
            }
        } catch let error as ConfigError {
            throw fail(error.description)
        }
        var recording: InputRecording?
        if let replay {
            let data: Data
            do { data = try SafeFile.read(replay, maxBytes: InputRecording.maxBytes, followLinks: true).0 } catch {
                throw fail("--replay \(replay): \(SafeFile.describe(error, maxBytes: InputRecording.maxBytes))")
            }
            guard let text = String(data: data, encoding: .utf8) else { throw fail("--replay \(replay): not UTF-8 text") }
            do { recording = try InputRecording.parse(text, file: replay) } catch { throw fail(error.description) }
        }

        var setup = SessionSetup(network: settings.network ?? .local, seed: settings.seed ?? SessionSetup.randomSeed(),
                                 preload: settings.preload ?? .on, reduceMotion: settings.reduceMotion, keys: keysText,
                                 colors: settings.colors ?? "256", photosFit: settings.fit ?? true)
        var notes: [String] = []
        if let recorded = recording?.setup {
            setup = recorded
            // A recording names a server: it is asked only when it is this machine (a shared
            // file must not make the app call out to an address of its author's choosing).
            if case .server(let address) = recorded.feed, !SessionSetup.isLoopback(address), server == nil, feed == nil {
                throw fail("--replay \(replay ?? ""): the recording was made against \(SafeText.line(address, maxColumns: 200)); "
                    + "pass --server \(SafeText.line(address, maxColumns: 200)) to replay against it")
            }
        }
        if let synthetic {
            var recordedSeed: UInt64?
            if case .synthetic(_, let seed)? = recording?.setup?.feed { recordedSeed = seed }
            setup.feed = .synthetic(synthetic, seed: seed ?? recordedSeed ?? settings.seed ?? 1)
        } else if let address = server ?? (feed ?? folder).flatMap({ $0.hasPrefix("http://") || $0.hasPrefix("https://") ? $0 : nil }) {
            setup.feed = .server(address)
        } else if let path = feed ?? folder {
            setup.feed = .folder(URL(fileURLWithPath: path).standardizedFileURL.path)
        } else if let seed, case .synthetic(let count, _) = setup.feed {
            setup.feed = .synthetic(count, seed: seed)
        }
        if let network = networkFlags, network.isGiven { setup.network = try network.profile(base: setup.network) }
        if let seed { setup.seed = seed }
        if let policy = preload.flatMap({ PreloadPolicy(rawValue: $0.lowercased()) }) { setup.preload = policy } // checked in validate()
        if reduceMotion { setup.reduceMotion = true }
        if let colors { setup.colors = colors } // checked in validate()
        // Sound at the start, kept in a recording (`stories render` puts what played in).
        if mute { setup.sound = false } else if self.sound { setup.sound = true } else if recording == nil { setup.sound = settings.sound ?? true }
        if let recorded = recording?.setup {
            notes = setup.differences(from: recorded)
        } else if recording != nil {
            notes = ["the recording is version 1: it does not say which feed, network or settings it was made with"]
        }
        // The terminal shows at most the colours stories.conf (or the recording) asks for.
        try start(setup, recording: recording, notes: notes,
                  terminalColors: colors.map { ($0, "--colors \($0)") } ?? recording?.setup.map { ($0.colors, "the recording's colors \($0.colors)") }
                    ?? settings.colors.map { ($0, "colors = \($0) in stories.conf") },
                  pauseOnBlur: settings.pauseOnBlur ?? true,
                  theme: theme.flatMap { ThemeChoice(rawValue: $0.lowercased()) } ?? settings.theme ?? .auto,
                  symbols: symbols ?? settings.symbols ?? "auto",
                  graphics: chosenGraphics(settings),
                  sound: SoundState(on: mute ? false : sound ? true : settings.sound ?? true, volume: settings.volume ?? 100,
                                    enabled: replay == nil || sound),
                  cursor: chosenCursor(settings),
                  layout: chosenLayout(settings),
                  // stories.conf's `screen-reader = on` gives way to a replay or a headless run.
                  linear: screenReader || (settings.screenReader ?? false) && !headless && replay == nil && record == nil && !step)
    }

    /// Which way the layout reads and who reorders right-to-left text: as said, else the
    /// locale (the feed may say more once it answers).
    func chosenLayout(_ settings: AppSettings) -> LayoutChoice {
        let environment = ProcessInfo.processInfo.environment
        let said = direction.flatMap { LayoutDirection(rawValue: $0.lowercased()) } ?? settings.direction
        return LayoutChoice(said: said, locale: LayoutDirection.locale(environment: environment),
                            bidi: settings.bidi ?? BidiMode.auto(environment: environment))
    }

    /// Where the cursor is: as `--cursor` says, else stories.conf, else where a screen
    /// reader is likely, on what has focus.
    func chosenCursor(_ settings: AppSettings) -> CursorMode {
        let said = cursor.flatMap { CursorMode(rawValue: $0.lowercased()) } ?? settings.cursor
        return said ?? CursorMode.auto(environment: ProcessInfo.processInfo.environment, brailleSocketExists: BrailleSocket.exists())
    }

    /// How photos are shown: as `--graphics` says (auto: nil, what the terminal answers),
    /// else as stories.conf does.
    func chosenGraphics(_ settings: AppSettings) -> GraphicsProtocol? {
        guard let graphics else { return settings.graphics }
        return GraphicsProtocol(name: graphics)
    }

    /// The set the viewer draws with: octants only where the C library gives them a width
    /// (ncurses draws nothing for a character of none), else sextants.
    static func viewerSymbols(_ name: String) -> CellSymbols {
        let symbols = CellSymbols.named(name, environment: ProcessInfo.processInfo.environment) ?? .half
        return symbols == .octant && !CellSymbols.octantsHaveWidth ? .sextant : symbols
    }

    func start(_ setup: SessionSetup, recording: InputRecording?, notes: [String], terminalColors: (depth: String, origin: String)?,
                       pauseOnBlur: Bool, theme: ThemeChoice, symbols symbolsName: String, graphics: GraphicsProtocol?,
                       sound: SoundState, cursor: CursorMode, layout: LayoutChoice, linear: Bool) throws {
        let fromRecording = recording?.setup != nil && synthetic == nil && server == nil && feed == nil && folder == nil
        let (source, seenKey, onQuit) = try source(for: setup, origin: fromRecording ? "--replay \(replay ?? ""): setup.feed" : nil)
        let client = FeedClient(source: source, profile: setup.network, seed: setup.seed)
        let bindings: KeyBindings
        do { bindings = try setup.bindings(file: recording != nil ? "\(replay ?? "recording"): setup.keys" : "keys.conf") } catch {
            throw fail(error.description)
        }
        let recorder = try record.map { try open($0, flag: "--record", append: false) }
        let metricsFile = try metrics.map { try open($0, flag: "--metrics", append: true) }
        let gestureFile = try gestureLog.map { try open($0, flag: "--gesture-log", append: false) }
        let stopAt = until.flatMap(untilSeconds)
        let replayName = replay.map { URL(fileURLWithPath: $0).lastPathComponent }

        if linear {
            var options = ScreenReaderRun.Options()
            options.bindings = bindings
            options.preload = setup.preload
            options.sound = sound
            let store = SeenStore(feedKey: seenKey)
            let loaded = store.load()
            options.seen = loaded.state
            options.warnings = loaded.warning.map { [$0] } ?? []
            MainActor.assumeIsolated {
                // Against a server, what is heard here is seen on the viewer's other terminals.
                ScreenReaderSession.run(client: client, store: store, remote: (source as? HTTPFeed).map { SeenSync(feed: $0) },
                                  options: options, onQuit: onQuit)
            }
        }
        if headless {
            // What differs from the recording is said on stderr; stdout is the screen alone.
            for note in notes { FileWrites.sayOnStandardError("stories: replaying \(SafeText.line(replayName ?? "")): \(note)") }
            let (width, height) = try size.map(parseSize) ?? (recording.map { ($0.width, $0.height) } ?? (80, 24))
            var options = HeadlessRun.Options(width: width, height: height, bindings: bindings, reduceMotion: setup.reduceMotion,
                                              preload: setup.preload, recording: recording, metrics: metricsFile)
            options.until = stopAt
            options.gestureLog = gestureFile
            options.colors = setup.colors
            if symbolsName.lowercased() != "auto" { options.symbols = Self.viewerSymbols(symbolsName) }
            options.photosFit = setup.photosFit
            options.layout = layout
            if theme == .light { options.background = Display.light }
            // A file that cannot be written is said at once on stderr, and again at the end.
            let failures = WriteFailures()
            options.onWriteFailed = { failure in
                failures.add(failure)
                FileWrites.sayOnStandardError("stories: " + failure.line)
            }
            MainActor.assumeIsolated {
                if virtualClock {
                    let lines = HeadlessRun.runOnVirtualClock(client: client, options: options)
                    onQuit?()
                    finishHeadless(lines, failures: failures)
                } else {
                    HeadlessRun.runOnSystemClock(client: client, options: options) { lines in
                        onQuit?()
                        finishHeadless(lines, failures: failures)
                    }
                }
            }
            return
        }
        try MainActor.assumeIsolated {
            let app: TerminalApp
            do {
                app = try TerminalApp(client: client, seenStore: SeenStore(feedKey: seenKey), bindings: bindings,
                                      reduceMotion: setup.reduceMotion, preload: setup.preload, photosFit: setup.photosFit,
                                      pauseOnBlur: pauseOnBlur, theme: theme, colors: terminalColors, symbols: Self.viewerSymbols(symbolsName),
                                      graphics: graphics, sound: sound, cursor: cursor, layout: layout, stepping: step ? recording.map { ($0, replayName ?? "") } : nil)
            } catch {
                throw fail("\(error)")
            }
            var setup = setup
            setup.colors = app.colorName
            if let recorder { app.record(to: recorder, setup: setup, flow: recordsFlow) }
            if let metricsFile { app.writeMetrics(to: metricsFile) }
            if let gestureFile { app.writeGestureLog(to: gestureFile) }
            if let recording, !step {
                var notes = notes
                if let recorded = recording.setup, recorded.colors != setup.colors {
                    notes.append("this terminal shows \(setup.colors) colours; the recording had \(recorded.colors)")
                }
                app.replay(recording, name: replayName ?? "", until: stopAt, notes: notes)
            }
            // The seed is said when the app ends, so a run worth repeating can be.
            if self.seed == nil, recording == nil, setup.network != .local {
                app.farewell = "stories: the network's seed was \(setup.seed) (--seed \(setup.seed) meets the same delays and failures)"
            }
            app.onQuit = onQuit
            // Against a server, what is watched here is seen on the viewer's other terminals
            // (not in a replay, which saves nothing).
            if recording == nil, let feed = source as? HTTPFeed { app.syncSeen(with: SeenSync(feed: feed)) }
            app.run()
        }
    }
}
