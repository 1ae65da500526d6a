import Foundation
import StoriesTestSupport
import StoriesMedia
import Testing

/// A real PulseAudio server of the test's own (issue 32, point 8): a null sink named `out`
/// as its default, a native socket in a folder of its own, started by the test and
/// stopped with it. `listen()` records what the sink plays (its monitor) on a thread,
/// every piece with the monotonic time it was played.
final class SoundServer {
    let folder: URL
    let address: String
    private let daemon: Child
    private var listener: Thread?
    let heard = Heard()

    /// What was recorded so far: 48 kHz mono samples and the time of the first.
    final class Heard: @unchecked Sendable {
        // `lock` guards both.
        private let lock = NSLock()
        private var samples: [Int16] = []
        /// Each piece's time less the time of the samples before it: estimates of when the
        /// first sample was played, the median of which is taken (one piece's latency is
        /// off by a few milliseconds either way).
        private var starts: [Double] = []
        private var stopped = false
        /// Frames of the keeper stream's silence the sink has played: those written less
        /// those the server still holds (its latency; a write blocks while its buffer is full).
        private var keeperPlayed = 0
        static let rate = 48_000

        func played(_ frames: Int) { lock.withLock { keeperPlayed = max(keeperPlayed, frames) } }
        var playedFrames: Int { lock.withLock { keeperPlayed } }

        func append(_ piece: [Int16], at time: Double) {
            lock.lock()
            starts.append(time - Double(samples.count) / Double(Self.rate))
            samples += piece
            lock.unlock()
        }
        var snapshot: (samples: [Int16], start: Double) {
            lock.lock(); defer { lock.unlock() }
            let sorted = starts.sorted()
            return (samples, sorted.isEmpty ? 0 : sorted[sorted.count / 2])
        }
        var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
        func stop() { lock.lock(); stopped = true; lock.unlock() }
    }

    /// `niceness`: the server's, as `Tmux`'s (a test that times the app's sound gives both -10).
    init(niceness: Int? = nil) throws {
        let pulseaudio = try #require(XTerminal.which("pulseaudio"), "pulseaudio (.ci/run installs it)")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = folder.appendingPathComponent("native").path
        address = "unix:" + socket
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder.path
        environment["XDG_RUNTIME_DIR"] = folder.path
        environment["XDG_CONFIG_HOME"] = folder.path
        environment["PULSE_SERVER"] = nil
        let nice = niceness.map { ["/usr/bin/env", "nice", "-n", "\($0)"] } ?? []
        daemon = try Child(nice + [pulseaudio, "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disallow-module-loading=no",
                            "--load=module-null-sink sink_name=out", "--load=module-native-protocol-unix socket=\(socket) auth-anonymous=1",
                            "--load=module-always-sink"],
                           environment: environment, stdout: .null, stderr: .null)
        let address = address
        try XTerminal.wait("the sound server", timeout: 20) {
            (try? SoundRecorder(server: address, device: "out.monitor")) != nil
        }
        // A null sink left idle sleeps in blocks of up to 2 s, and a stream that comes then
        // is not rendered until the block ends — up to a second late, though the server's
        // latency says it plays (measured here: 1.1 s) — which a desktop's sink, rewound
        // for a new stream, does not do. A silent stream of the test's own keeps the sink
        // running in short blocks, so what is measured is the app's timing, not the null
        // sink's sleep.
        let heard = heard
        Thread {
            guard let output = try? PulseOutput(server: address, rate: 48_000, channels: 2, name: "keeper") else { return }
            let zeros = [Int16](repeating: 0, count: 480 * 2)
            var written = 0
            while !heard.isStopped {
                do throws(AudioProblem) {
                    try zeros.withUnsafeBufferPointer { buffer throws(AudioProblem) in try output.write(buffer, frames: 480) }
                } catch { return }
                written += 480
                let held = Int(((output.latency ?? 0) * Double(Heard.rate)).rounded())
                heard.played(written - max(0, held))
            }
        }.start()
        try XTerminal.wait("the null sink running", timeout: 10) {
            (try? XTerminal.output(["/usr/bin/env", "pactl", "-s", address, "list", "sinks", "short"], environment: ProcessInfo.processInfo.environment))?
                .1.contains("RUNNING") == true
        }
        // Past the block the sink was asleep in: it has played two seconds of the keeper's
        // silence since it woke.
        let woke = heard.playedFrames
        try XTerminal.wait("the sink to play two seconds", timeout: 10) { heard.playedFrames - woke >= 2 * 48_000 }
    }

    /// Records the sink's monitor from now on, on a thread of its own (which opens the
    /// recorder: it is used there only). `niceness`: the thread's own (Linux gives each
    /// thread one, and `setpriority` with 0 sets the calling thread's), so a test run's load does not
    /// keep it from the monitor.
    func listen(niceness: Int32? = nil) throws {
        let heard = heard, address = address
        let opened = DispatchSemaphore(value: 0)
        let failure = Heard() // empty unless it could not open
        let thread = Thread {
            if let niceness { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
            guard let recorder = try? SoundRecorder(server: address, device: "out.monitor", rate: Heard.rate, channels: 1,
                                                    pieceMilliseconds: 5) else {
                failure.stop()
                opened.signal()
                return
            }
            opened.signal()
            while !heard.isStopped {
                guard let piece = try? recorder.read(frames: Heard.rate / 200) else { break }
                heard.append(piece.samples, at: piece.startedAt)
            }
        }
        thread.start()
        opened.wait()
        try #require(!failure.isStopped, "the sink's monitor could not be recorded")
        listener = thread
    }

    /// The environment a client of this server runs with.
    func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["PULSE_SERVER"] = address
        return environment
    }

    deinit {
        heard.stop()
        _ = daemon.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Root mean square of `samples` (int16 levels).
func rms(_ samples: ArraySlice<Int16>) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// Where `clip` best lines up inside `recording` (in samples) and how alike they are
/// there (the normalised cross-correlation, −1…1), over `lags` (a coarse search on a
/// decimated copy, then fine around the best).
func alignment(of clip: [Int16], in recording: [Int16], lags: Range<Int>) -> (lag: Int, correlation: Double) {
    func correlation(at lag: Int, step: Int) -> Double {
        var sum = 0.0, clipEnergy = 0.0, recordedEnergy = 0.0
        var index = 0
        while index < clip.count {
            let r = lag + index
            if r >= 0, r < recording.count {
                let a = Double(clip[index]), b = Double(recording[r])
                sum += a * b
                clipEnergy += a * a
                recordedEnergy += b * b
            }
            index += step
        }
        return clipEnergy > 0 && recordedEnergy > 0 ? sum / (clipEnergy * recordedEnergy).squareRoot() : 0
    }
    var best = (lag: lags.lowerBound, correlation: -2.0)
    for lag in stride(from: lags.lowerBound, to: lags.upperBound, by: 16) {
        let value = correlation(at: lag, step: 8)
        if value > best.correlation { best = (lag, value) }
    }
    let coarse = best.lag
    best.correlation = -2
    for lag in max(lags.lowerBound, coarse - 32)..<min(lags.upperBound, coarse + 33) {
        let value = correlation(at: lag, step: 1)
        if value > best.correlation { best = (lag, value) }
    }
    return best
}

/// `clip` heard in `recording` from `lag` on, a quarter second at a time, each piece looked
/// for from where the one before was heard (up to half a second later): the pieces not
/// found (above 0.9 nowhere), the gaps (a piece later than the one before by more than a
/// millisecond: silence the sink filled in when a write came late) and the delay they add
/// up to, in samples. Quiet pieces of the clip are skipped.
func heardInOrder(_ clip: [Int16], in recording: [Int16], from lag: Int, rate: Int) -> (unmatched: [Int], gaps: Int, delay: Int) {
    let piece = rate / 4
    var delay = 0, gaps = 0, unmatched: [Int] = []
    for index in stride(from: 0, to: clip.count - piece + 1, by: piece) where rms(clip[index..<(index + piece)]) > 300 {
        let expected = lag + index + delay
        let lower = max(0, expected - 48), upper = min(recording.count - piece / 2, expected + rate / 2)
        guard lower < upper else { unmatched.append(index / piece); continue } // past the recording's end
        let found = alignment(of: Array(clip[index..<(index + piece)]), in: recording, lags: lower..<upper)
        guard found.correlation > 0.9 else { unmatched.append(index / piece); continue }
        if found.lag > expected + 48 { gaps += 1 }
        delay = max(delay, found.lag - lag - index)
    }
    return (unmatched, gaps, delay)
}
