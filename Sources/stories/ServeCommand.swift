import StoriesFeedIO
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesServer
import StoriesTerminal
import StoriesCommandLine

/// `stories serve [DIR]`: the feed API over HTTP (docs/feed-format.md, "Over HTTP").
/// (`stories serve add-viewer NAME` is `AddViewerCommand`, reached from main.swift: a
/// subcommand here would be taken for the folder, or hide these flags from `--help`.)
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a feed folder, or any folder of photos and videos (the demo feed by default), over HTTP: /v1/feed, /v1/stories/{id}, /v1/media/{path}, /v1/home, /v1/seen.",
        discussion: "Viewers: `stories serve add-viewer NAME [--viewers FILE]` adds one to a viewers file and prints their token once; `stories serve --viewers FILE` then asks every request for one (`Authorization: Bearer TOKEN`) and keeps each viewer's seen state (in --database)."
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

    @Option(help: ArgumentHelp("Viewers and their tokens' hashes, one a line: every request then needs `Authorization: Bearer TOKEN` (`stories serve add-viewer NAME` adds one). Without it, one anonymous viewer.", valueName: "file"))
    var viewers: String?

    @Option(help: ArgumentHelp("Where viewers' seen state is kept: an SQLite file (made and migrated at start; default: serve-<folder's hash>.sqlite under $XDG_STATE_HOME/stories), a PostgreSQL database that several servers share (postgres://USER@HOST:PORT/DATABASE; the password from PGPASSWORD; a primary and its standby as postgres://USER@HOST1:PORT1,HOST2:PORT2/DATABASE?target_session_attrs=read-write), or `none`.", valueName: "path|url"))
    var database: String?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS: the server's certificate (and the chain after it), a PEM file. With --tls-key.", valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The certificate's private key, a PEM file (not encrypted; refused when another user could change it).", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (got \(port))") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        _ = try network.profile()
    }

    func run() throws {
        guard let folder = directory.map({ URL(fileURLWithPath: $0) }) ?? DemoFeed.directory else {
            throw StoriesCommandLine.fail("the demo feed is missing from this build; give a feed folder")
        }
        // Each held long poll is a descriptor: the soft limit raised to the hard one.
        let files = ProcessLimits.raiseOpenFiles()
        var options = FeedServer.Options()
        options.host = host
        options.port = port
        options.network = try network.profile()
        options.tlsCertificate = tlsCertificate
        options.tlsKey = tlsKey
        if let viewers {
            do { options.viewers = try Viewers.load(viewers) } catch { throw StoriesCommandLine.fail("\(error)") }
        }
        let seenDatabase = try Self.openSeenDatabase(database, folder: folder)
        let server: FeedServer
        // As FeedAPI decides it: feed.json looked at from the folder's descriptor, a link as a link.
        let isFeedFolder = (try? OpenFolder.open(folder.path))?.status(of: "feed.json") != nil
        let cache = isFeedFolder ? nil : PhotoFolderCache.standard(for: folder)
        do { server = try FeedServer(directory: folder, options: options, logFile: log, folderCache: cache, seenDatabase: seenDatabase) } catch {
            throw StoriesCommandLine.fail("\(error)")
        }
        // An IPv6 address goes in brackets in a URL.
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let port = self.port
        let scheme = tlsCertificate == nil ? "http" : "https"
        Task {
            do {
                try await server.run { port in
                    var line = "stories serve: \(SafeText.line(server.api.title)) on \(scheme)://\(host):\(port) (Ctrl-C or SIGTERM stops)\n"
                    if let place = seenDatabase?.place {
                        line += "stories serve: seen state in \(SafeText.line(place))"
                            + (server.viewers.required ? ", \(server.viewers.count) viewer\(server.viewers.count == 1 ? "" : "s")\n" : ", one anonymous viewer\n")
                    }
                    FileHandle.standardOutput.write(Data(line.utf8))
                    if scheme == "http", let warning = FeedServer.plainHTTPWarning(host: host) { FileWrites.sayOnStandardError(warning) }
                    if let warning = ProcessLimits.openFilesWarning(files) { FileWrites.sayOnStandardError(warning) }
                }
                cache?.flush()
                await seenDatabase?.close()
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
        // With a viewers file, SIGHUP reads it again (a token taken back, a viewer added)
        // without a restart. Like SIGINT and SIGTERM it was blocked in every thread before
        // any started (main.swift), so one sent before this source exists waits for it;
        // without a viewers file SIGHUP keeps its default action.
        var hangUp: (any DispatchSourceSignal)?
        if let viewersFile = viewers {
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .main)
            source.setEventHandler {
                let said = server.readViewersAgain(viewersFile)
                if said.ok {
                    FileHandle.standardOutput.write(Data("stories serve: \(said.line)\n".utf8))
                } else {
                    FileWrites.sayOnStandardError("stories serve: \(said.line)")
                }
            }
            source.resume()
            hangUp = source
        }
        withExtendedLifetime(hangUp) { TerminalSignals.serveMainQueueForever() }
    }

    /// The seen store `--database` names (or the default one), opened and migrated before
    /// the server listens; nil for `none`. A store that cannot be used stops the server
    /// with one line that says why.
    static func openSeenDatabase(_ choice: String?, folder: URL) throws -> (any SeenDatabase)? {
        if choice == "none" { return nil }
        let path: String
        var postgres: PostgresSeenDatabase.Address?
        if let choice {
            if choice.hasPrefix("postgres://") || choice.hasPrefix("postgresql://") {
                do throws(SeenStoreFailure) { postgres = try PostgresSeenDatabase.Address.parse(choice) } catch { throw StoriesCommandLine.fail("\(error)") }
            }
            path = choice.hasPrefix("sqlite:") ? String(choice.dropFirst("sqlite:".count)) : choice
        } else {
            let directory = SeenStore.directory(environment: ProcessInfo.processInfo.environment)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            path = directory.appendingPathComponent("serve-\(SeenStore.hash(folder.standardizedFileURL.path).prefix(16)).sqlite").path
        }
        let opened = Opened()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(SeenStoreFailure) {
                if let postgres {
                    opened.set(.success(try await PostgresSeenDatabase.open(postgres)))
                } else {
                    opened.set(.success(try await SQLiteSeenDatabase.open(path: path)))
                }
            } catch { opened.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        switch opened.value {
        case .success(let database): return database
        case .failure(let failure): throw StoriesCommandLine.fail("\(failure)")
        case nil: throw StoriesCommandLine.fail("the seen store could not be opened")
        }
    }

    /// The result of opening the store, handed from its task. `@unchecked Sendable`: `value`
    /// is touched only under `lock`.
    final class Opened: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<any SeenDatabase, SeenStoreFailure>?
        func set(_ value: Result<any SeenDatabase, SeenStoreFailure>) { lock.withLock { result = value } }
        var value: Result<any SeenDatabase, SeenStoreFailure>? { lock.withLock { result } }
    }
}

/// `stories serve add-viewer NAME`: a new viewer in the viewers file, and their token,
/// printed once (only its hash is kept).
struct AddViewerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stories serve add-viewer",
        abstract: "Add a viewer to a viewers file and print their new token, once (only its SHA-256 is kept)."
    )

    @Argument(help: "The viewer's name: 1 to 64 letters, digits, '.', '_' or '-'.")
    var name: String

    @Option(help: ArgumentHelp("The viewers file (made, mode 0600, if missing).", valueName: "file"))
    var viewers = "viewers.txt"

    func run() throws {
        let token: String
        do { token = try Viewers.add(name: name, to: viewers) } catch { throw StoriesCommandLine.fail("\(error)") }
        FileHandle.standardOutput.write(Data((token + "\n").utf8))
        FileWrites.sayOnStandardError("stories serve: \(name) added to \(SafeText.line(viewers)); the token above is shown only now: give it to them (STORIES_TOKEN=… stories --server URL)")
    }
}
