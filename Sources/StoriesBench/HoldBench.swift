import ArgumentParser
import Foundation
import StoriesCore
import StoriesServer

/// `stories bench hold`: viewers' long polls held by two `stories serve` replicas sharing
/// PostgreSQL, on loopback (issue 51). What a held connection costs (memory, a descriptor),
/// CPU at rest and under batches, how soon a batch acknowledged by one replica wakes the
/// viewer's poll on the other, what one NOTIFY costs a replica, and whether anything grows
/// while connections come and go. Bounded in connections and time; it stops by itself.
/// `scripts/bench-hold` starts PostgreSQL and runs it (docs/deploy.md, "Sizing").
struct HoldBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Hold viewers' long polls on two replicas sharing PostgreSQL: memory, descriptors, CPU, wake-up latency, churn."
    )

    @Option(help: ArgumentHelp("The PostgreSQL database the replicas share (postgres://…; scripts/bench-hold starts one).", valueName: "url"))
    var database: String

    @Option(help: "Viewers, each holding one long poll (at most 10 000: a viewers file's limit).")
    var viewers = 10_000

    @Option(help: "How many of them send batches (default: 1 000, or every viewer when fewer).")
    var senders: Int?

    @Option(help: "Batches a second, all senders together.")
    var rate = 1000.0

    @Option(help: "Seconds held at rest, under batches, and coming and going (10% a second).")
    var seconds: [Double] = [30, 30, 60]

    @Option(help: "NOTIFYs sent straight to the channel to measure what one costs a replica.")
    var notifies = 20_000

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func validate() throws {
        guard (2...Viewers.maxViewers).contains(viewers) else { throw ValidationError("--viewers is 2 to \(Viewers.maxViewers)") }
        guard database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") else {
            throw ValidationError("--database is the postgres://… address of a PostgreSQL the replicas share (scripts/bench-hold starts one)")
        }
        guard (0...viewers).contains(senderCount) else { throw ValidationError("--senders is 0 to --viewers (\(viewers)); got \(senderCount)") }
        guard rate >= 0, rate <= 100_000 else { throw ValidationError("--rate is 0 to 100 000 batches a second") }
        guard seconds.count == 3, seconds.allSatisfy({ $0 >= 1 && $0 <= 600 }) else { throw ValidationError("--seconds is three numbers of seconds, 1 to 600 each (rest, batches, churn)") }
        guard (0...1_000_000).contains(notifies) else { throw ValidationError("--notifies is 0 to 1 000 000") }
    }

    var senderCount: Int { senders ?? min(1000, viewers) }

    func run() throws {
        BenchCommand.warnIfDebugBuild()
        let senders = senderCount
        let limit = ProcessLimits.raiseOpenFiles()
        guard limit >= viewers + senders + 256 else {
            throw Failure("this process may open \(limit) files, fewer than \(viewers + senders + 256) connections need (ulimit -Hn)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stories-hold-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var tokens: [String] = [], file = ""
        for index in 0..<viewers {
            let token = Viewers.newToken()
            tokens.append(token)
            file += Viewers.line(name: "hold\(index)", token: token)
        }
        let viewersFile = folder.appendingPathComponent("viewers.txt")
        try Data(file.utf8).write(to: viewersFile)
        chmod(viewersFile.path, 0o600)
        var replicas: [Replica] = []
        defer { for replica in replicas { replica.stop() } }
        for index in 0..<2 { replicas.append(try Replica(folder: folder, index: index, viewers: viewersFile.path, database: database)) }
        let crowd = try HoldCrowd(ports: replicas.map(\.port), tokens: tokens, senders: senders)
        let pids = replicas.map(\.process.processIdentifier)
        let report = Report(pids: pids)

        // One NOTIFY's cost to each replica: many, straight to the channel, naming nobody
        // (before any poll is held, so nothing else is measured with them).
        if notifies > 0 { try report.notifyCost(database: database, count: notifies, crowd: crowd) }

        // Held: every poll asked and waiting.
        let base = pids.map(ProcessSample.take)
        crowd.openPolls()
        let deadline = HoldCrowd.now() + 120
        while crowd.held < viewers, HoldCrowd.now() < deadline { crowd.run(until: HoldCrowd.now() + 0.5, rate: 0) }
        guard crowd.held == viewers else { throw Failure("only \(crowd.held) of \(viewers) polls were held within 2 minutes: \(crowd.failures)") }
        crowd.run(until: HoldCrowd.now() + 2, rate: 0)
        let held = pids.map(ProcessSample.take)
        report.held(base: base, held: held, viewers: viewers, limit: limit)

        // At rest: the polls wait; each is asked again when its 30 s are up.
        crowd.resetCounts()
        report.window("at rest (\(viewers) polls held)") { crowd.run(until: HoldCrowd.now() + seconds[0], rate: 0) }
        report.line("  polls answered at their time and asked again: \(crowd.answers) (\(Report.rate(crowd.answers, seconds[0])) a second)")

        // Under batches.
        crowd.resetCounts()
        _ = report.window("\(Int(rate)) batches a second from \(senders) viewers") { crowd.run(until: HoldCrowd.now() + seconds[1], rate: rate) }
        report.latency(crowd, seconds: seconds[1])

        // Coming and going, batches on.
        crowd.resetCounts()
        var samples: [[ProcessSample]] = [pids.map(ProcessSample.take)]
        _ = report.window("10% of the polls closed and opened again each second, batches on") {
            let end = HoldCrowd.now() + seconds[2]
            while HoldCrowd.now() < end {
                crowd.churn(0.1)
                crowd.run(until: min(end, HoldCrowd.now() + 1), rate: rate)
                samples.append(pids.map(ProcessSample.take))
            }
        }
        report.latency(crowd, seconds: seconds[2])
        crowd.run(until: HoldCrowd.now() + 2, rate: 0)
        samples.append(pids.map(ProcessSample.take))
        report.churn(samples, held: crowd.held, viewers: viewers)

    }
}

/// A `stories serve` replica the bench starts (this very binary), on a free port.
final class Replica {
    let process = Process()
    let port: UInt16

    init(folder: URL, index: Int, viewers: String, database: String) throws {
        let out = folder.appendingPathComponent("replica-\(index).out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve", "--port", "0", "--viewers", viewers, "--database", database,
                             "--log", folder.appendingPathComponent("replica-\(index).log").path]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.standardError
        try process.run()
        var port: UInt16?
        let deadline = Date() + 30
        while port == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let at = text.range(of: "http://127.0.0.1:") { port = UInt16(text[at.upperBound...].prefix { $0.isNumber }) }
            if port == nil { usleep(50_000) } // the replica's first line, looked for until it is there
        }
        guard let port else {
            process.terminate()
            throw HoldBench.Failure("replica \(index) did not start")
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
