import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCore
import StoriesTerminal

/// `stories [view] [--feed PATH]`: checks the feed before the screen is touched, then hands
/// over to the terminal run loop.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open the stories viewer (the default).",
        discussion: """
            Opens the embedded demo feed unless --feed names another feed folder \
            (docs/feed-format.md). Stories come in pages of 10; --network (or --latency, \
            --bandwidth, --fail, --timeout) puts a pretend network in front of the feed.

            Keys: ← → choose a story, Enter open it; in the viewer ← → previous/next item, \
            [ ] previous/next story, Space pause, Esc back to the row; ? shows every key; \
            q quits.
            """
    )

    @Option(name: .long, help: ArgumentHelp("A feed folder holding feed.json.", valueName: "path"))
    var feed: String?

    @Option(name: .long, help: ArgumentHelp("Make up a feed of N stories instead (for scale; deterministic).", valueName: "N"))
    var synthetic: Int?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if feed != nil && synthetic != nil { throw ValidationError("--feed and --synthetic cannot be used together") }
        if let synthetic, !(1...100_000).contains(synthetic) {
            throw ValidationError("--synthetic takes a number of stories from 1 to 100000; got \(synthetic)")
        }
        _ = try network.profile()
    }

    mutating func run() throws {
        if let synthetic {
            let source = SyntheticFeed(count: synthetic)
            try start(source, seenKey: "synthetic:\(synthetic):\(source.seed)")
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
        let source: DirectoryFeed
        do {
            source = try DirectoryFeed(directory: directory)
        } catch {
            throw fail(error.description)
        }
        try start(source, seenKey: directory.standardizedFileURL.path)
    }

    private func start(_ source: any FeedSource, seenKey: String) throws {
        let client = FeedClient(source: source, profile: try network.profile())
        // Key bindings: the defaults, with keys.conf applied when there is one.
        var bindings = KeyBindings.standard
        let config = KeyBindings.configFile(environment: ProcessInfo.processInfo.environment)
        if FileManager.default.fileExists(atPath: config.path) {
            guard let text = try? String(contentsOf: config, encoding: .utf8) else {
                throw fail("\(config.path): cannot be read as UTF-8 text")
            }
            do { bindings = try bindings.applying(text, file: config.path) } catch { throw fail(error.description) }
        }
        try MainActor.assumeIsolated {
            let app: TerminalApp
            do {
                app = try TerminalApp(client: client, seenStore: SeenStore(feedKey: seenKey), bindings: bindings)
            } catch {
                throw fail("\(error)")
            }
            app.run()
        }
    }
}

/// The pretend network between the app and its feed (`NetworkProfile`): a named profile,
/// with any of its values replaced.
struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A network profile: local (the default: no delay), wifi, 4g, 3g, offline.", valueName: "name"))
    var network: String?

    @Option(help: ArgumentHelp("Delay before each response, like 300ms or 1.5s (no jitter).", valueName: "time"))
    var latency: String?

    @Option(help: ArgumentHelp("Transfer rate, like 2MB/s or 500KB/s.", valueName: "rate"))
    var bandwidth: String?

    @Option(help: ArgumentHelp("Share of requests that fail, 0 to 1 (0.1: one in ten).", valueName: "share"))
    var fail: Double?

    @Option(help: ArgumentHelp("Give up on a request after this long, like 10s.", valueName: "time"))
    var timeout: String?

    func profile() throws -> NetworkProfile {
        var profile = NetworkProfile.local
        if let network {
            guard let named = NetworkProfile.named[network.lowercased()] else {
                let names = NetworkProfile.named.keys.sorted().joined(separator: ", ")
                throw ValidationError("--network: unknown profile '\(network)'; choose one of \(names)")
            }
            profile = named
        }
        let customised = latency != nil || bandwidth != nil || fail != nil || timeout != nil
        if customised && network == nil { profile.name = "custom" }
        if let latency {
            guard let seconds = NetworkProfile.parseDuration(latency) else {
                throw ValidationError("--latency: '\(latency)' is not a time like 300ms or 1.5s")
            }
            profile.latency = seconds
            profile.jitter = 0
        }
        if let bandwidth {
            guard let rate = NetworkProfile.parseBandwidth(bandwidth) else {
                throw ValidationError("--bandwidth: '\(bandwidth)' is not a rate like 2MB/s or 500KB/s")
            }
            profile.bandwidth = rate
        }
        if let fail {
            guard (0...1).contains(fail) else { throw ValidationError("--fail takes a share from 0 to 1; got \(fail)") }
            profile.failureRate = fail
        }
        if let timeout {
            guard let seconds = NetworkProfile.parseDuration(timeout), seconds > 0 else {
                throw ValidationError("--timeout: '\(timeout)' is not a time like 10s")
            }
            profile.timeout = seconds
        }
        return profile
    }
}
