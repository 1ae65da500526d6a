import ArgumentParser
import Foundation
import StoriesApp
import StoriesCommandLine
import StoriesCore
import StoriesFeedIO

/// `stories check FLOW…`: each flow run headless on the virtual clock, one line per
/// expectation, a non-zero exit on any failure, JUnit XML on request.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run flows (inputs with expectations) headless on the virtual clock; pass or fail.",
        discussion: """
            A flow is JSON lines (docs/gestures.md, "Flows"): a header, then inputs (key, mouse, tap, \
            hold, drag, resize), waits, and expectations (text, gesture, shown, progress, seen, \
            navigation, screen). Any recording is a flow without expectations. Exit status: 0 when \
            every expectation is met, 1 when one is not, 2 when a flow cannot be read.
            """
    )

    @Argument(help: "Flow files (JSON lines).")
    var flows: [String]

    @Option(help: ArgumentHelp("The seed of the pretend network's draws, for every flow (default: the flow's, else 1).", valueName: "N"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Also write the results as JUnit XML to FILE, for CI systems.", valueName: "FILE"))
    var junit: String?

    @Option(help: ArgumentHelp("Run every flow on this feed folder or server instead of its own (a flow's own folder must be beside it).", valueName: "path"))
    var feed: String?

    @Flag(help: "Only failures (with their screens) and each flow's tally, not a line per expectation met.")
    var quiet = false

    @Flag(help: "Write each screen expectation's snapshot file that is missing or differs, from the screen then (beside the flow).")
    var updateSnapshots = false

    mutating func validate() throws {
        if let seed, seed > SessionSetup.maxSeed { throw ValidationError("--seed must be 0 to \(SessionSetup.maxSeed)") }
        guard !flows.isEmpty else { throw ValidationError("give at least one flow file") }
    }

    mutating func run() throws {
        let junitFile = try junit.map { path -> LineFile in
            do throws(FileWriteFailure) { return try LineFile.open(path, append: false) } catch { throw fail("--junit \(path): cannot be written (\(error.reason))") }
        }
        var reports: [FlowRunReport] = []
        var problems: [(file: String, reason: String)] = []
        for path in flows {
            let loaded: (Flow, FeedClient, KeyBindings)
            do { loaded = try Self.load(path, seed: seed, feed: feed, missingSnapshotsEmpty: updateSnapshots) } catch {
                let reason = SafeText.line(error.message)
                FileWrites.sayOnStandardError("stories: " + reason)
                problems.append((path, reason))
                continue
            }
            let (flow, client, bindings) = loaded
            var report = MainActor.assumeIsolated {
                var options = HeadlessRun.Options(width: flow.width, height: flow.height, reduceMotion: flow.setup.reduceMotion,
                                                  preload: flow.setup.preload)
                options.bindings = bindings
                options.colors = flow.setup.colors
                options.photosFit = flow.setup.photosFit
                return FlowRun.run(flow, client: client, options: options)
            }
            if updateSnapshots { report = Self.writeSnapshots(report, beside: path) }
            reports.append(report)
            let lines = report.lines(passes: !quiet)
            let text = Array((lines.joined(separator: "\n") + "\n").utf8)
            if let code = FileWrites.writeAll(STDOUT_FILENO, text) {
                FileWrites.sayOnStandardError("stories: the results could not be written to standard output (\(String(cString: strerror(code))))")
                throw ExitCode(1)
            }
        }
        if let junitFile, let failure = junitFile.write(Array(JUnitReport.xml(reports, problems: problems).utf8)) {
            throw fail("--junit \(junitFile.path): \(failure)")
        }
        if !problems.isEmpty { throw ExitCode(2) }
        if reports.contains(where: { $0.failures > 0 }) { throw ExitCode(1) }
    }

    struct LoadProblem: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// A flow read the one safe way, its snapshots from its own folder, and the client its
    /// setup names (a server only when it is this machine, as for a replay).
    static func load(_ path: String, seed: UInt64?, feed: String? = nil, missingSnapshotsEmpty: Bool = false) throws(LoadProblem)
        -> (Flow, FeedClient, KeyBindings) {
        let data: Data
        do { data = try SafeFile.read(path, maxBytes: Flow.maxBytes, followLinks: true).0 } catch {
            throw LoadProblem(message: "\(path): \(SafeFile.describe(error, maxBytes: Flow.maxBytes))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw LoadProblem(message: "\(path): not UTF-8 text") }
        var flow: Flow
        do { flow = try Flow.parse(text, file: path) } catch { throw LoadProblem(message: error.description) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        if !flow.snapshotFiles.isEmpty {
            let folder: OpenFolder
            do { folder = try OpenFolder.open(directory) } catch {
                throw LoadProblem(message: "\(path): its folder cannot be opened (\(SafeFile.describe(error, maxBytes: 0)))")
            }
            let lines = flow.snapshotFiles.map(\.line)
            var index = 0
            // Each snapshot read once, however many steps name it.
            var read: [String: [String]] = [:]
            do {
                flow = try flow.resolvingSnapshots { name in
                    defer { index += 1 }
                    if let known = read[name] { return known }
                    let snapshot: Data
                    do throws(SafeFile.Failure) { snapshot = try folder.read(name, maxBytes: 4 << 20).0 } catch .missing where missingSnapshotsEmpty {
                        // To be written from the screen (`--update-snapshots`).
                        read[name] = []
                        return []
                    } catch {
                        let hint = error == .missing ? " (stories check --update-snapshots writes it from the screen)" : ""
                        throw LoadProblem(message: "\(path):\(lines[safe: index] ?? 0): snapshot \(name): \(SafeFile.describe(error, maxBytes: 4 << 20))\(hint)")
                    }
                    guard let text = String(data: snapshot, encoding: .utf8) else {
                        throw LoadProblem(message: "\(path):\(lines[safe: index] ?? 0): snapshot \(name): not UTF-8 text")
                    }
                    var rows = TextLines.split(text).map(String.init)
                    if rows.last == "" { rows.removeLast() }
                    guard rows.count <= Flow.maxScreenLines else {
                        throw LoadProblem(message: "\(path):\(lines[safe: index] ?? 0): snapshot \(name): more than \(Flow.maxScreenLines) lines (a screen has at most that many)")
                    }
                    read[name] = rows
                    return rows
                }
            } catch let problem as LoadProblem {
                throw problem
            } catch {
                throw LoadProblem(message: "\(path): \(error)")
            }
        }
        if let seed {
            flow.setup.seed = seed
            if case .synthetic(let count, _) = flow.setup.feed { flow.setup.feed = .synthetic(count, seed: seed) }
        }
        if feed == nil, case .server(let address) = flow.setup.feed, !SessionSetup.isLoopback(address) {
            throw LoadProblem(message: "\(path): setup.feed names \(SafeText.line(address, maxColumns: 200)); a flow is run only against this machine's server")
        }
        if let feed {
            // The person's own choice of feed, in place of the flow's.
            let isAddress = feed.hasPrefix("http://") || feed.hasPrefix("https://")
            flow.setup.feed = isAddress ? .server(feed) : .folder(URL(fileURLWithPath: feed).standardizedFileURL.path)
        } else if case .folder(let folder) = flow.setup.feed {
            // A folder named in a flow is beside it (or below), wherever it is run from: a
            // shared flow cannot have its run list, show or print a folder elsewhere.
            let parts = folder.split(separator: "/", omittingEmptySubsequences: false)
            guard !folder.hasPrefix("/"), !parts.contains("..") else {
                throw LoadProblem(message: "\(path): setup.feed names the folder \(SafeText.line(folder, maxColumns: 200)), which is not inside the flow's folder; "
                    + "pass --feed PATH to run it on a folder of your choice")
            }
            flow.setup.feed = .folder(URL(fileURLWithPath: folder, relativeTo: URL(fileURLWithPath: directory + "/")).standardizedFileURL.path)
        }
        let bindings: KeyBindings
        do { bindings = try flow.setup.bindings(file: "\(path): setup.keys") } catch { throw LoadProblem(message: error.description) }
        do {
            let source = try ViewFlags().source(for: flow.setup, origin: "\(path): setup.feed").source
            return (flow, FeedClient(source: source, profile: flow.setup.network, seed: flow.setup.seed), bindings)
        } catch {
            // `source` has said why on standard error.
            throw LoadProblem(message: "\(path): its feed cannot be opened")
        }
    }

    /// `--update-snapshots`: each snapshot not met is written from the screen then (in the
    /// flow's folder, from its descriptor, whole or not at all), and counts as met, said so.
    static func writeSnapshots(_ report: FlowRunReport, beside path: String) -> FlowRunReport {
        var report = report
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        var written: [String: [String]] = [:]
        for index in report.results.indices {
            guard let (file, lines) = report.results[index].snapshot else { continue }
            if let earlier = written[file] {
                // Another step's screen went into this file first: this one is met only if alike.
                if earlier != lines { report.results[index].verdict.actual += "; unlike the snapshot written for an earlier step" }
                else { report.results[index].verdict = FlowVerdict(passed: true, actual: "the snapshot just written") }
                continue
            }
            let parts = file.split(separator: "/").map(String.init)
            do {
                var folder = try OpenFolder.open(directory)
                for part in parts.dropLast() { folder = try folder.folder(part) }
                try folder.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: parts.last ?? file)
                written[file] = lines
                report.results[index].verdict = FlowVerdict(passed: true, actual: "written to \(SafeText.line(file)) (\(lines.count) lines)")
                report.results[index].name += " — snapshot written"
            } catch {
                report.results[index].verdict.actual += "; the snapshot could not be written (\(SafeText.line("\(error)")))"
            }
        }
        return report
    }
}
