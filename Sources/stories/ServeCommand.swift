import StoriesFeedIO
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesServer
import StoriesTerminal

/// `stories serve [DIR]`: the feed API over HTTP (docs/feed-format.md, "Over HTTP").
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a feed folder, or any folder of photos and videos (the demo feed by default), over HTTP: /v1/feed, /v1/stories/{id}, /v1/media/{path}, /v1/home."
    )

    @Argument(help: ArgumentHelp("A feed folder (holding feed.json), or any folder of photos and videos.", valueName: "dir"))
    var directory: String?

    @Option(help: "The address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 8080

    /// The same flags as the viewer's pretend network, applied by the server to its answers.
    @OptionGroup var network: ShapingOptions

    @Option(help: ArgumentHelp("Append the access log to FILE instead of standard error.", valueName: "file"))
    var log: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (got \(port))") }
        _ = try network.profile()
    }

    func run() throws {
        guard let folder = directory.map({ URL(fileURLWithPath: $0) }) ?? DemoFeed.directory else {
            throw stories.fail("the demo feed is missing from this build; give a feed folder")
        }
        var options = FeedServer.Options()
        options.host = host
        options.port = port
        options.network = try network.profile()
        let server: FeedServer
        // As FeedAPI decides it: feed.json looked at from the folder's descriptor, a link as a link.
        let isFeedFolder = (try? OpenFolder.open(folder.path))?.status(of: "feed.json") != nil
        let cache = isFeedFolder ? nil : FolderCache.standard(for: folder)
        do { server = try FeedServer(directory: folder, options: options, logFile: log, folderCache: cache) } catch {
            throw stories.fail("\(error)")
        }
        // An IPv6 address goes in brackets in a URL.
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let port = self.port
        Task {
            do {
                try await server.run { port in
                    let line = "stories serve: \(SafeText.line(server.api.title)) on http://\(host):\(port) (Ctrl-C or SIGTERM stops)\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                }
                cache?.flush()
                // A log that could not be written is said again, and the exit status says so.
                if let failure = server.logFailure {
                    FileWrites.sayOnStandardError("stories serve: \(failure)")
                    Foundation.exit(1)
                }
                Foundation.exit(0)
            } catch {
                let text = String(describing: error)
                let reason = text.contains("Address already in use") ? "port \(port) is already in use (try --port 0 for any free one)"
                    : SafeText.line(text)
                FileWrites.sayOnStandardError("stories: serve: \(reason)")
                Foundation.exit(1)
            }
        }
        // SIGINT and SIGTERM were blocked in every thread at start (main.swift).
        TerminalSignals.serveMainQueueForever()
    }
}
