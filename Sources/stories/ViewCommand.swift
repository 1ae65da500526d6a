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
            Opens the embedded demo feed unless --feed names another feed folder \\
            (docs/feed-format.md).

            Keys: ← → choose a story, Enter open it; in the viewer ← → previous/next item, \\
            [ ] previous/next story, Space pause, Esc back to the row; ? shows every key; \\
            q quits.
            """
    )

    @Option(name: .long, help: ArgumentHelp("A feed folder holding feed.json.", valueName: "path"))
    var feed: String?

    @Option(name: .long, help: ArgumentHelp("Make up a feed of N stories instead (for scale; deterministic).", valueName: "N"))
    var synthetic: Int?

    func validate() throws {
        if feed != nil && synthetic != nil { throw ValidationError("--feed and --synthetic cannot be used together") }
        if let synthetic, !(1...100_000).contains(synthetic) {
            throw ValidationError("--synthetic takes a number of stories from 1 to 100000; got \(synthetic)")
        }
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
                app = try TerminalApp(source: source, seenStore: SeenStore(feedKey: seenKey), bindings: bindings)
            } catch {
                throw fail("\(error)")
            }
            app.run()
        }
    }
}
