import Foundation

/// What one process uses now (from /proc): resident memory, open descriptors, CPU time.
struct ProcessSample {
    var residentKB = 0
    var descriptors = 0
    /// CPU time of every thread, in nanoseconds (schedstat: finer than the 10 ms ticks).
    var cpu: UInt64 = 0

    static func take(_ pid: Int32) -> ProcessSample {
        var sample = ProcessSample()
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) {
            sample.residentKB = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        sample.descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            sample.cpu += UInt64(text.split(separator: " ").first ?? "") ?? 0
        }
        return sample
    }

    /// CPU seconds of every PostgreSQL process on the machine (utime + stime, in ticks of 1/100 s).
    static func postgresCPU() -> Double {
        var ticks = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8), stat.contains("(postgres)"),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13 { ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) }
        }
        return Double(ticks) / 100
    }
}

/// `stories bench hold`'s lines, as each part ends.
final class Report {
    let pids: [Int32]
    init(pids: [Int32]) { self.pids = pids }

    func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

    static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / max(seconds, 0.001)) }
    static func mb(_ kb: Int) -> String { String(format: "%.1f MB", Double(kb) / 1024) }

    func held(base: [ProcessSample], held: [ProcessSample], viewers: Int, limit: Int) {
        line("held: \(viewers) long polls across \(pids.count) replicas (this process may open \(limit) files)")
        for (index, (before, after)) in zip(base, held).enumerated() {
            let each = viewers / pids.count
            let perConnection = Double(after.residentKB - before.residentKB) * 1024 / Double(max(1, each))
            line("  replica \(index + 1): resident \(Self.mb(before.residentKB)) → \(Self.mb(after.residentKB)) (\(String(format: "%.1f", perConnection / 1024)) KB a held poll), descriptors \(before.descriptors) → \(after.descriptors)")
        }
    }

    /// Runs `body`, then says the replicas' and PostgreSQL's CPU over it (share of one core).
    @discardableResult
    func window(_ name: String, _ body: () -> Void) -> [Double] {
        let me = getpid()
        let before = pids.map(ProcessSample.take), postgres = ProcessSample.postgresCPU(), mine = ProcessSample.take(me), started = HoldCrowd.now()
        body()
        let seconds = HoldCrowd.now() - started
        let after = pids.map(ProcessSample.take)
        let shares = zip(before, after).map { Double($1.cpu &- $0.cpu) / 1e9 / seconds * 100 }
        let postgresShare = (ProcessSample.postgresCPU() - postgres) / seconds * 100
        let myShare = Double(ProcessSample.take(me).cpu &- mine.cpu) / 1e9 / seconds * 100
        line("\(name), \(String(format: "%.0f", seconds)) s: CPU " + shares.enumerated().map { "replica \($0 + 1) \(String(format: "%.1f", $1))%" }.joined(separator: ", ")
             + ", PostgreSQL \(String(format: "%.1f", postgresShare))%, the viewers (this process) \(String(format: "%.1f", myShare))% (of one core)")
        return shares
    }

    func latency(_ crowd: HoldCrowd, seconds: Double) {
        let sorted = crowd.latencies.sorted()
        func at(_ share: Double) -> String {
            guard !sorted.isEmpty else { return "–" }
            return String(format: "%.1f ms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))] * 1000)
        }
        line("  batches acknowledged: \(crowd.batches) (\(Self.rate(crowd.batches, seconds)) a second); acknowledgement → the viewer's poll on the other replica answered: "
             + "p50 \(at(0.5)), p99 \(at(0.99)), max \(at(1)) over \(sorted.count) wake-ups (\(crowd.early) read before the acknowledgement, counted as 0)")
        if !crowd.failures.isEmpty { line("  failures: " + crowd.failures.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")) }
    }

    func churn(_ samples: [[ProcessSample]], held: Int, viewers: Int) {
        guard let first = samples.first, let last = samples.last else { return }
        for index in pids.indices {
            let resident = samples.map { $0[index].residentKB }, descriptors = samples.map { $0[index].descriptors }
            let middle = samples[samples.count / 2][index]
            line("  replica \(index + 1): resident \(Self.mb(first[index].residentKB)) → \(Self.mb(middle.residentKB)) (half-way) → \(Self.mb(last[index].residentKB)), at most \(Self.mb(resident.max() ?? 0)); "
                 + "descriptors \(first[index].descriptors) → \(middle.descriptors) → \(last[index].descriptors), at most \(descriptors.max() ?? 0)")
        }
        line("  polls held afterwards: \(held) of \(viewers)")
    }

    /// `count` NOTIFYs on the replicas' channel in one transaction (each naming a viewer
    /// nobody holds a poll for), then the replicas' CPU until they are quiet again.
    func notifyCost(database: String, count: Int, crowd: HoldCrowd) throws {
        let before = pids.map(ProcessSample.take), started = HoldCrowd.now()
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        psql.arguments = ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", database, "-c",
                          "SELECT count(pg_notify('stories_seen', 'nobody' || g)) FROM generate_series(1, \(count)) AS g"]
        psql.standardOutput = FileHandle.nullDevice
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else { throw HoldBench.Failure("psql could not send the NOTIFYs (status \(psql.terminationStatus))") }
        // Quiet: no replica's CPU time moved by more than 1 ms over 200 ms (at most 30 s).
        var last = before
        var quietSince = HoldCrowd.now()
        while HoldCrowd.now() - quietSince < 0.2, HoldCrowd.now() - started < 30 {
            crowd.run(until: HoldCrowd.now() + 0.05, rate: 0)
            let now = pids.map(ProcessSample.take)
            if zip(last, now).contains(where: { $1.cpu &- $0.cpu > 1_000_000 }) { quietSince = HoldCrowd.now() }
            last = now
        }
        let seconds = HoldCrowd.now() - started
        let costs = zip(before, last).map { Double($1.cpu &- $0.cpu) / 1e3 / Double(count) }
        line("one NOTIFY (one name, no poll waiting for it), \(count) sent in \(String(format: "%.1f", seconds)) s: CPU "
             + costs.enumerated().map { "replica \($0 + 1) \(String(format: "%.1f", $1)) µs" }.joined(separator: ", ") + " (idle replicas, no poll held)")
    }
}
