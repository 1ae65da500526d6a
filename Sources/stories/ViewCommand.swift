import ArgumentParser
import Foundation
import StoriesAssets
import StoriesApp
import StoriesCore
import StoriesHTTP
import StoriesTerminal

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

            Keys: ← → choose a story, Enter open it, ↓ ↑ the home sections below the row; in the viewer ← → previous/next item, \
            [ ] previous/next story, Space pause, Esc back to the row; g shows how each \
            input was routed; ? shows every key; q quits. The mouse taps (left third: back), \
            holds (pause), drags sideways (next/previous story) and pulls down (dismiss).

            QA: --record FILE keeps every input with its time; --replay FILE plays it back; \
            --headless --virtual-clock --replay FILE prints the same last screen every time.
            """
    )

    @Argument(help: ArgumentHelp("A folder of photos and videos, or a feed folder (as --feed).", valueName: "folder"))
    var folder: String?

    @Option(name: .long, help: ArgumentHelp("A folder (with feed.json, or of photos and videos), or a server's address (as --server).", valueName: "path"))
    var feed: String?

    @Option(name: .long, help: ArgumentHelp("A feed server (`stories serve`), like http://127.0.0.1:8080; answers are cached in $XDG_CACHE_HOME/stories/http and revalidated.", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("Make up a feed of N stories instead (for scale; deterministic).", valueName: "N"))
    var synthetic: Int?

    @OptionGroup var network: NetworkOptions

    @Flag(help: "Instant cuts instead of animations (or reduce-motion = on in stories.conf).")
    var reduceMotion = false

    @Option(help: ArgumentHelp("Preloading: on (the default: feed, adjacent stories, a window in the story) or off (everything on demand).", valueName: "on|off"))
    var preload: String = "on"

    @Option(help: ArgumentHelp("Append one JSON line per navigation to FILE: trigger, t1, t2, t3, time to visible, hit (docs/performance.md).", valueName: "file"))
    var metrics: String?

    @Option(help: ArgumentHelp("Write every input with its time to FILE (JSON lines, docs/gestures.md).", valueName: "file"))
    var record: String?

    @Option(help: ArgumentHelp("Feed the inputs recorded in FILE back at their times.", valueName: "file"))
    var replay: String?

    @Flag(help: "No terminal: run over an off-screen canvas, then print the last screen as text on stdout.")
    var headless = false

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
        if virtualClock && !headless { throw ValidationError("--virtual-clock works with --headless (add --headless)") }
        if size != nil && !headless { throw ValidationError("--size works with --headless; the terminal sets the size otherwise") }
        if let size { _ = try parseSize(size) }
        _ = try preloadPolicy()
    }

    func preloadPolicy() throws -> PreloadPolicy {
        guard let policy = PreloadPolicy(rawValue: preload.lowercased()) else {
            throw ValidationError("--preload takes on or off; got '\(preload)'")
        }
        return policy
    }

    mutating func run() throws {
        if let synthetic {
            let source = SyntheticFeed(count: synthetic, photos: demoPhotoPool())
            try start(source, seenKey: "synthetic:\(synthetic):\(source.seed)")
            return
        }
        let feed = self.feed ?? folder
        if let address = server ?? feed.flatMap({ $0.hasPrefix("http://") || $0.hasPrefix("https://") ? $0 : nil }) {
            let source: HTTPFeed
            do {
                source = try HTTPFeed(server: address, cache: HTTPCache.standardDirectory().map { HTTPCache(directory: $0) })
            } catch {
                throw fail(error.description)
            }
            try start(source, seenKey: source.server.absoluteString)
            return
        }
        let directory: URL
        if let feed {
            directory = URL(fileURLWithPath: feed)
        } else if let demo = DemoFeed.directory {
            directory = demo
        } else {
            throw fail("the embedded demo feed is missing next to the binary; pass --feed PATH")
        }
        let source: any FeedSource
        var cache: FolderCache?
        do {
            // A feed folder has feed.json; any other folder is read as photos and videos.
            if feed == nil || FileManager.default.fileExists(atPath: directory.appendingPathComponent("feed.json").path) {
                source = try DirectoryFeed(directory: directory)
            } else {
                cache = FolderCache.standard(for: directory)
                source = try FolderFeed(directory: directory, cache: cache)
            }
        } catch {
            throw fail(error.description)
        }
        var onQuit: (@Sendable () -> Void)?
        if let cache { onQuit = { cache.flush() } }
        try start(source, seenKey: directory.standardizedFileURL.path, onQuit: onQuit)
    }

    private func start(_ source: any FeedSource, seenKey: String, onQuit: (@Sendable () -> Void)? = nil) throws {
        let client = FeedClient(source: source, profile: try network.profile())
        let environment = ProcessInfo.processInfo.environment
        // Key bindings and settings: the defaults, with the config files applied when there are some.
        var bindings = KeyBindings.standard
        var settings = AppSettings()
        do {
            if let text = try readConfig(KeyBindings.configFile(environment: environment)) {
                bindings = try bindings.applying(text.content, file: text.path)
            }
            if let text = try readConfig(AppSettings.configFile(environment: environment)) {
                settings = try settings.applying(text.content, file: text.path)
            }
        } catch let error as ConfigError {
            throw fail(error.description)
        }
        let reduceMotion = reduceMotion || settings.reduceMotion
        var recording: InputRecording?
        if let replay {
            let data: Data
            do { data = try SafeFile.read(replay, maxBytes: 64 << 20, followLinks: true).0 } catch {
                throw fail("--replay \(replay): \(SafeFile.describe(error, maxBytes: 64 << 20))")
            }
            guard let text = String(data: data, encoding: .utf8) else { throw fail("--replay \(replay): not UTF-8 text") }
            do { recording = try InputRecording.parse(text, file: replay) } catch { throw fail(error.description) }
        }
        let recorder = try record.map { try openForWriting($0, flag: "--record") }
        let metricsFile = try metrics.map { try openForAppending($0) }
        let preload = try preloadPolicy()

        if headless {
            let (width, height) = try size.map(parseSize) ?? (recording.map { ($0.width, $0.height) } ?? (80, 24))
            let options = HeadlessRun.Options(width: width, height: height, bindings: bindings, reduceMotion: reduceMotion,
                                              preload: preload, recording: recording, metrics: metricsFile)
            MainActor.assumeIsolated {
                if virtualClock {
                    printScreen(HeadlessRun.runOnVirtualClock(client: client, options: options))
                    onQuit?()
                } else {
                    HeadlessRun.runOnSystemClock(client: client, options: options) { lines in
                        printScreen(lines)
                        onQuit?()
                        Foundation.exit(0)
                    }
                }
            }
            return
        }
        try MainActor.assumeIsolated {
            let app: TerminalApp
            do {
                app = try TerminalApp(client: client, seenStore: SeenStore(feedKey: seenKey), bindings: bindings,
                                      reduceMotion: reduceMotion, preload: preload)
            } catch {
                throw fail("\(error)")
            }
            if let recorder { app.record(to: recorder) }
            if let metricsFile { app.writeMetrics(to: metricsFile) }
            if let recording { app.replay(recording) }
            app.onQuit = onQuit
            app.run()
        }
    }

    /// A config file's text, or nil when there is none; read the one safe way (a symlinked
    /// dotfile is followed; a FIFO, a device or a file over 1 MB is refused with what it is).
    private func readConfig(_ url: URL) throws -> (path: String, content: String)? {
        let data: Data
        do { data = try SafeFile.read(url.path, maxBytes: 1 << 20, followLinks: true).0 } catch .missing { return nil } catch {
            throw fail("\(url.path): \(SafeFile.describe(error, maxBytes: 1 << 20))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw fail("\(url.path): cannot be read as UTF-8 text") }
        return (url.path, text)
    }

    private func openForWriting(_ path: String, flag: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw fail("\(flag) \(path): cannot be written (\(String(cString: strerror(errno))))")
        }
        return handle
    }

    /// `--metrics` adds to a file that is there (one line per navigation, run after run).
    private func openForAppending(_ path: String) throws -> FileHandle {
        guard FileManager.default.fileExists(atPath: path) else { return try openForWriting(path, flag: "--metrics") }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw fail("--metrics \(path): cannot be written (\(String(cString: strerror(errno))))")
        }
        handle.seekToEndOfFile()
        return handle
    }
}

/// The headless screen on stdout: its lines and nothing else.
private func printScreen(_ lines: [String]) {
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
}

/// How answers are shaped (`NetworkProfile`): a named profile, with any of its values
/// replaced. The viewer puts it between itself and its feed; `serve` shapes its answers.
struct ShapingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A network profile: local (the default: no delay), wifi, 4g, 3g, offline.", valueName: "name"))
    var network: String?

    @Option(help: ArgumentHelp("Delay before each response, like 300ms or 1.5s (no jitter; at most an hour).", valueName: "time"))
    var latency: String?

    @Option(help: ArgumentHelp("Transfer rate, like 2MB/s or 500KB/s.", valueName: "rate"))
    var bandwidth: String?

    @Option(help: ArgumentHelp("Share of requests that fail, 0 to 1 (0.1: one in ten).", valueName: "share"))
    var fail: Double?

    var isGiven: Bool { network != nil || latency != nil || bandwidth != nil || fail != nil }

    func profile(timeout: String? = nil) throws -> NetworkProfile {
        var profile = NetworkProfile.local
        if let network {
            guard let named = NetworkProfile.named[network.lowercased()] else {
                let names = NetworkProfile.named.keys.sorted().joined(separator: ", ")
                throw ValidationError("--network: unknown profile '\(SafeText.line(network))'; choose one of \(names)")
            }
            profile = named
        }
        if (isGiven || timeout != nil) && network == nil { profile.name = "custom" }
        if let latency {
            guard let seconds = NetworkProfile.parseDuration(latency), seconds <= 3600 else {
                throw ValidationError("--latency: '\(SafeText.line(latency))' is not a time like 300ms or 1.5s (at most an hour)")
            }
            profile.latency = seconds
            profile.jitter = 0
        }
        if let bandwidth {
            guard let rate = NetworkProfile.parseBandwidth(bandwidth), rate >= 1, rate <= 1e12 else {
                throw ValidationError("--bandwidth: '\(SafeText.line(bandwidth))' is not a rate like 2MB/s or 500KB/s")
            }
            profile.bandwidth = rate
        }
        if let fail {
            guard (0...1).contains(fail) else { throw ValidationError("--fail takes a share from 0 to 1; got \(fail)") }
            profile.failureRate = fail
        }
        if let timeout {
            guard let seconds = NetworkProfile.parseDuration(timeout), seconds > 0, seconds <= 3600 else {
                throw ValidationError("--timeout: '\(SafeText.line(timeout))' is not a time like 10s (at most an hour)")
            }
            profile.timeout = seconds
        }
        return profile
    }
}

/// The pretend network between the app and its feed: the shaping, and when to give up.
struct NetworkOptions: ParsableArguments {
    @OptionGroup var shaping: ShapingOptions

    @Option(help: ArgumentHelp("Give up on a request after this long, like 10s.", valueName: "time"))
    var timeout: String?

    var isGiven: Bool { shaping.isGiven || timeout != nil }

    func profile() throws -> NetworkProfile { try shaping.profile(timeout: timeout) }
}
