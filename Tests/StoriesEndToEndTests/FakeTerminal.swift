import Foundation
import StoriesTestSupport
import Testing

/// A terminal the test plays itself (issue 45): `stories` runs on a pseudo-terminal whose
/// other end is this object. It reads everything the app writes, answers the app's questions
/// as a real terminal would — a byte at a time over a slow link if asked — types keys and
/// sends signals, and compares the terminal's modes before and after.
final class FakeTerminal: @unchecked Sendable {
    // `@unchecked Sendable`: `output` is guarded by `condition`; the descriptors and the child
    // are set once in init.
    let master: Int32
    let slave: Int32
    let child: Child
    let modesBefore: termios
    private let condition = NSCondition()
    private var output: [UInt8] = []
    /// When each read from the app arrived (seconds on the monotonic clock) and where in
    /// `output` it ends: the bursts a person's terminal receives, timed.
    private var arrivals: [(time: Double, end: Int)] = []
    private var closed = false
    private let writer = DispatchQueue(label: "fake-terminal-writer")

    init(_ arguments: [String], environment: [String: String], width: UInt16 = 80, height: UInt16 = 24, stderr: String? = nil) throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: height, ws_col: width, ws_xpixel: 0, ws_ypixel: 0)
        try #require(openpty(&master, &slave, nil, nil, &size) == 0)
        self.master = master
        self.slave = slave
        var modes = termios()
        tcgetattr(slave, &modes)
        modesBefore = modes
        child = try Child([try Binary.requireBuilt()] + arguments, environment: environment, stdin: slave, stdout: .descriptor(slave),
                          stderr: stderr.map { .file($0) } ?? .null)
        let reader = Thread { [self] in readForever() }
        reader.start()
    }

    deinit {
        _ = child.stop()
        close(slave)
        close(master)
    }

    /// A clean environment for a run: its own HOME and state, a UTF-8 locale, no sound.
    static func environment(term: String, home: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "TERM": term, "HOME": home.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": home.appendingPathComponent("state").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "PULSE_SERVER": "unix:/nonexistent/native",
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    private func readForever() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(master, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            condition.lock()
            if n > 0 {
                output += buffer[0..<n]
                arrivals.append((now, output.count))
            } else {
                closed = true
            }
            condition.broadcast()
            condition.unlock()
            if n <= 0 { return }
        }
    }

    /// What the app wrote as bursts: reads less than `gap` seconds apart joined into one,
    /// each with the time its first byte arrived.
    func bursts(gap: Double = 0.02) -> [(time: Double, bytes: [UInt8])] {
        condition.lock()
        defer { condition.unlock() }
        var result: [(time: Double, bytes: [UInt8])] = []
        var start = 0, last = -Double.infinity
        for arrival in arrivals {
            if arrival.time - last >= gap || result.isEmpty {
                result.append((arrival.time, Array(output[start..<arrival.end])))
            } else {
                result[result.count - 1].bytes += output[start..<arrival.end]
            }
            start = arrival.end
            last = arrival.time
        }
        return result
    }

    /// Everything the app wrote so far.
    var written: [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return output
    }

    /// Waits until the app has written `text` (after `from` bytes), at most `timeout`
    /// seconds; where it ends.
    @discardableResult
    func waitFor(_ text: String, after from: Int = 0, timeout: Double = 20) throws -> Int {
        let needle = Array(text.utf8)
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if output.count >= from + needle.count,
               let range = output[from...].firstRange(of: needle) { return range.upperBound }
            guard !closed, condition.wait(until: deadline) else {
                Issue.record("no \(text.debugDescription) within \(timeout) s; the app wrote \(String(decoding: output.suffix(300), as: UTF8.self).debugDescription)")
                throw FakeTerminalError.timedOut
            }
        }
    }

    /// Types or answers `bytes`, all at once, or one byte every `pace` (a slow link); returns
    /// once the last is written.
    func send(_ text: String, pace: Duration = .zero) {
        let bytes = Array(text.utf8)
        guard pace > .zero else {
            var written = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) }
                if n > 0 { written += n } else if errno != EINTR { return }
            }
            return
        }
        // Each byte at its own moment from now, as a link that slow delivers them.
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        let (seconds, atto) = pace.components
        let step = Double(seconds) + Double(atto) / 1e18
        for (index, byte) in bytes.enumerated() {
            Pace.at(step * Double(index), from: start, on: writer) { [master] in
                var one = byte
                _ = write(master, &one, 1)
                if index == bytes.count - 1 { done.signal() }
            }
        }
        done.wait()
    }

    /// Waits for the app to end, at most `timeout` seconds: its status (128 + a signal).
    func waitForExit(timeout: Double = 20) throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while child.isRunning {
            // Woken by output, or every 20 ms to look again: an exit writes nothing here.
            _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.02)))
            guard Date() < deadline else {
                Issue.record("still running after \(timeout) s")
                throw FakeTerminalError.timedOut
            }
        }
        return child.wait()
    }

    /// The terminal's modes now, against those it had before the app ran: what differs.
    func modesDiffer() -> [String] {
        var now = termios()
        tcgetattr(slave, &now)
        var differences: [String] = []
        if now.c_lflag != modesBefore.c_lflag { differences.append("c_lflag \(modesBefore.c_lflag) → \(now.c_lflag)") }
        if now.c_iflag != modesBefore.c_iflag { differences.append("c_iflag \(modesBefore.c_iflag) → \(now.c_iflag)") }
        if now.c_oflag != modesBefore.c_oflag { differences.append("c_oflag \(modesBefore.c_oflag) → \(now.c_oflag)") }
        let before = withUnsafeBytes(of: modesBefore.c_cc) { Array($0) }, after = withUnsafeBytes(of: now.c_cc) { Array($0) }
        if before != after { differences.append("c_cc \(before) → \(after)") }
        return differences
    }

    /// Whether the app is stopped (SIGTSTP): its state in /proc.
    var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state == "T" || state == "t"
    }

    /// Waits until `condition` holds, looking every 20 ms, at most `timeout` seconds.
    func waitUntil(_ what: String, timeout: Double = 10, _ check: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !check() {
            // The check may read `written`: the lock is not held while it runs.
            condition.lock()
            _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.02)))
            condition.unlock()
            guard Date() < deadline else {
                Issue.record("not \(what) within \(timeout) s")
                throw FakeTerminalError.timedOut
            }
        }
    }
}

enum FakeTerminalError: Error { case timedOut }

/// What xterm (patch 379, `TERM=xterm`, white) answers to the probe, in the order it does.
/// `q` appears in answers a slow link once turned into keys (the kitty error's text).
enum XtermAnswers {
    static let all = "\u{1B}_Gi=31;EINVAL:quit\u{1B}\\" + "\u{1B}P>|XTerm(379)\u{1B}\\" + "\u{1B}P1+r524742=382F382F38\u{1B}\\"
        + "\u{1B}P1$r0;48:2::1:2:3m\u{1B}\\" + "\u{1B}[?2;0;1000;1000S" + "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\"
        + "\u{1B}[?1006;1$y" + "\u{1B}[?63;1;2;6;9;15;16;17;18;21;22;28c"
}
