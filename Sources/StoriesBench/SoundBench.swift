import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories bench sound` (issue 32, point 9): a video with sound, played by `stories play`
/// and by `mpv --vo=tct` on the same clip in one run, while the sound server's output is
/// recorded (its default sink's monitor) with the time each piece was played. Found by
/// lining the recording up with the clip's own sound: when the sound began after the
/// program started, and how far it ran from the clip's own time 24 s later; from
/// `--stats`, how far stories' pictures were from its sound and when its first picture
/// came; and the CPU each program used a second of playing.
struct SoundBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sound",
        abstract: "Play a video with sound beside mpv: start to first sound, A/V drift, CPU a second."
    )

    @Option(help: ArgumentHelp("The clip (default: the demo's liftoff, five times over — 30 s — joined by ffmpeg, its sound encoded again as one).", valueName: "file"))
    var file: String?

    @Option(help: "Runs of each, for the medians.")
    var runs = 3

    @Option(help: ArgumentHelp("The size in cells, WxH.", valueName: "size"))
    var size = "80x24"

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func validate() throws {
        guard (1...20).contains(runs) else { throw ValidationError("--runs takes 1 to 20") }
        _ = try parseSize(size)
    }

    static let rate = 48_000

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        // Something to listen to first: without a server there is nothing to measure.
        do { _ = try SoundRecorder(device: "@DEFAULT_MONITOR@") } catch {
            throw fail("no sound server to listen to (\(error)); start one, e.g. `pulseaudio -n --daemonize=yes --exit-idle-time=-1 "
                + "--load=\"module-null-sink sink_name=out\" --load=module-native-protocol-unix` (docs/performance.md, \"Sound\")")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stories-bench-sound-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try file ?? Self.thirtySeconds(in: folder)
        let reference = try Self.sound(of: clip)
        let seconds = Double(reference.count) / Double(Self.rate)
        guard seconds >= 4 else { throw fail("\(SafeText.line(clip)): its sound is \(String(format: "%.1f", seconds)) s; the bench needs 4 s or more") }

        // A null sink left idle sleeps in blocks of up to 2 s and starts a new stream late
        // (a desktop's sink does not): a silent stream of the bench's own keeps it running.
        let keeper = Keeper()
        keeper.start()
        defer { keeper.stop() }
        usleep(2_500_000)

        let me = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).path } ?? "stories"
        let (columns, rows) = try parseSize(size)
        var commands: [(String, [String])] = [("stories", [me, "play", clip, "--size", "\(columns)x\(rows)", "--stats"])]
        if FidelityBench.which("mpv") != nil {
            commands.append(("mpv", ["mpv", "--no-config", "--really-quiet", "--vo=tct", "--vo-tct-width=\(columns)", "--vo-tct-height=\(rows)",
                                     "--ao=pulse", clip]))
        } else {
            // Said either way, so a run without the peer is seen to be one.
            print(json ? JSONValue.object(["bench": "sound", "program": "mpv", "missing": true]).text() : "mpv: not installed (apt-get install mpv)")
        }
        if !json {
            print("\(SafeText.line(URL(fileURLWithPath: clip).lastPathComponent, maxColumns: 60)): \(String(format: "%.1f", seconds)) s with sound, at \(size) cells; median of \(runs)")
            print("program  first sound  sound at 24 s  pictures from sound (mean, most)  first picture to sound  CPU a second")
        }
        let late = min(24, seconds - 3)
        for (program, command) in commands {
            var results: [Run] = []
            for _ in 0..<runs { results.append(try measure(command, reference: reference, late: late, folder: folder)) }
            func median(_ values: [Double?]) -> Double? {
                let known = values.compactMap { $0 }.sorted()
                return known.isEmpty ? nil : known[known.count / 2]
            }
            let first = median(results.map(\.firstSound)), drift = median(results.map(\.soundDrift))
            let mean = median(results.map(\.pictureMean)), most = median(results.map(\.pictureMost))
            let offset = median(results.map(\.pictureToSound)), cpu = median(results.map(\.cpu))
            func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0 * 1000) } ?? "null" }
            if json {
                func milliseconds(_ value: Double?) -> JSONValue { value.map { .rounded($0 * 1000, places: 1) } ?? .null }
                print(JSONValue.object([
                    "bench": "sound", "program": .string(program), "first_sound_ms": milliseconds(first), "sound_drift_ms": milliseconds(drift),
                    "pictures_mean_ms": milliseconds(mean), "pictures_most_ms": milliseconds(most),
                    "first_picture_to_sound_ms": milliseconds(offset), "cpu_per_second": cpu.map { .rounded($0, places: 4) } ?? .null,
                    "runs": .int(runs),
                ]).text())
            } else {
                print([program.padding(toLength: 9, withPad: " ", startingAt: 0),
                       "\(ms(first)) ms".padding(toLength: 13, withPad: " ", startingAt: 0),
                       "\(ms(drift)) ms".padding(toLength: 15, withPad: " ", startingAt: 0),
                       (mean == nil ? "—" : "\(ms(mean)), \(ms(most)) ms").padding(toLength: 34, withPad: " ", startingAt: 0),
                       (offset == nil ? "—" : "\(ms(offset)) ms").padding(toLength: 24, withPad: " ", startingAt: 0),
                       cpu.map { String(format: "%.1f%%", $0 * 100) } ?? "?"].joined())
            }
        }
    }

    struct Run {
        /// From the program's start to its first sound heard.
        var firstSound: Double?
        /// Where the clip's sound at `late` s was heard, less where it should have been.
        var soundDrift: Double?
        var pictureMean: Double?, pictureMost: Double?
        /// From stories' first picture to its first sound.
        var pictureToSound: Double?
        var cpu: Double?
    }

    /// One run of `command` while the monitor is recorded.
    func measure(_ command: [String], reference: [Int16], late: Double, folder: URL) throws -> Run {
        let listener = Listener()
        try listener.start()
        let err = folder.appendingPathComponent("err-\(UUID().uuidString.prefix(6)).txt").path
        let started = AudioPlayer.now()
        let (status, usage) = try Self.spawn(command, stderr: err)
        let ended = AudioPlayer.now()
        usleep(300_000)
        listener.stop()
        guard status == 0 else { throw fail("\(command[0]) ended with \(status): \(SafeText.line((try? String(contentsOfFile: err, encoding: .utf8)) ?? ""))") }
        let (recorded, recordingStart) = listener.heard
        var result = Run()
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        result.cpu = cpu / max(0.001, ended - started)
        // The clip's first 3 s, then 3 s from `late`, found in the recording.
        let window = 3 * Self.rate
        let head = Array(reference.prefix(window))
        // Within 4 s of the start (the default clip repeats every 6 s).
        let startLag = Self.align(head, in: recorded, lags: 0..<max(1, min(recorded.count - head.count, 4 * Self.rate)))
        guard startLag.correlation > 0.5 else { return result }
        let soundStart = recordingStart + Double(startLag.lag) / Double(Self.rate)
        result.firstSound = soundStart - started
        let from = Int(late * Double(Self.rate))
        let tail = Array(reference[from..<min(reference.count, from + window)])
        let expected = startLag.lag + from
        let tailLag = Self.align(tail, in: recorded, lags: max(0, expected - Self.rate / 2)..<min(recorded.count, expected + Self.rate / 2))
        if tailLag.correlation > 0.5 { result.soundDrift = Double(tailLag.lag - expected) / Double(Self.rate) }
        // "…; pictures by the sound's clock, X ms from it on average, Y ms at most; first picture at Z s (monotonic)"
        let text = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        if let match = text.firstMatch(of: /clock, ([0-9.]+) ms from it on average, ([0-9.]+) ms at most; first picture at ([0-9.]+) s/) {
            result.pictureMean = Double(match.1).map { $0 / 1000 }
            result.pictureMost = Double(match.2).map { $0 / 1000 }
            if let picture = Double(match.3) { result.pictureToSound = soundStart - picture }
        }
        return result
    }

    /// The demo's liftoff five times over (30 s, sound and pictures copied), by ffmpeg.
    static func thirtySeconds(in folder: URL) throws -> String {
        guard let demo = DemoFeed.directory?.appendingPathComponent("media/liftoff.mp4").path else {
            throw fail("the embedded demo feed is missing next to the binary; pass --file")
        }
        guard FidelityBench.which("ffmpeg") != nil else { throw fail("ffmpeg makes the 30 s clip (apt-get install ffmpeg), or pass --file") }
        let out = folder.appendingPathComponent("liftoff-30s.mp4").path
        // The pictures copied; the sound encoded again as one stream with its timestamps
        // counted from its samples (copied, or only encoded again, each join leaves a
        // 43 ms gap in the sound's timestamps, which a player that keeps to them — stories
        // — fills with silence and one that does not — mpv — closes up: 171 ms apart by
        // 24 s, neither a drift).
        let (status, _) = try spawn(["ffmpeg", "-v", "error", "-y", "-stream_loop", "4", "-i", demo, "-filter_complex", "[0:a]asetpts=N/SR/TB[a]",
                                     "-map", "0:v", "-map", "[a]", "-c:v", "copy", "-c:a", "aac", "-b:a", "64k", out], stderr: "/dev/null")
        guard status == 0 else { throw fail("ffmpeg could not join the demo clip (status \(status))") }
        return out
    }

    /// The clip's sound at 48 kHz mono.
    static func sound(of path: String) throws -> [Int16] {
        let data = try ImageDecoder.readFile(at: URL(fileURLWithPath: path), limits: MediaLimits(maxBytes: VideoLimits.standard.maxBytes))
        let decoder: AudioDecoder
        do { decoder = try AudioDecoder(data: data, rate: rate, channels: 1) } catch { throw fail("\(SafeText.line(path)): \(error)") }
        var all: [Int16] = [], buffer: [Int16] = []
        while let piece = try decoder.read(into: &buffer, maxFrames: 4096) { all += buffer[0..<piece.frames] }
        return all
    }

    /// Where `clip` lines up best in `recording` (a search by 16 samples, then by one).
    static func align(_ clip: [Int16], in recording: [Int16], lags: Range<Int>) -> (lag: Int, correlation: Double) {
        func correlation(_ lag: Int, step: Int) -> Double {
            var sum = 0.0, a2 = 0.0, b2 = 0.0
            var index = 0
            while index < clip.count, lag + index < recording.count {
                let a = Double(clip[index]), b = Double(recording[lag + index])
                sum += a * b; a2 += a * a; b2 += b * b
                index += step
            }
            return a2 > 0 && b2 > 0 ? sum / (a2 * b2).squareRoot() : 0
        }
        guard !lags.isEmpty else { return (0, 0) }
        var best = (lag: lags.lowerBound, correlation: -2.0)
        for lag in stride(from: lags.lowerBound, to: lags.upperBound, by: 16) {
            let value = correlation(lag, step: 8)
            if value > best.correlation { best = (lag, value) }
        }
        let coarse = best.lag
        best.correlation = -2
        for lag in max(lags.lowerBound, coarse - 24)..<min(lags.upperBound, coarse + 25) {
            let value = correlation(lag, step: 1)
            if value > best.correlation { best = (lag, value) }
        }
        return best
    }

    /// Runs a program to its end with nothing on its standard input and output, its
    /// standard error to `stderr`: its status and what it used (wait4).
    static func spawn(_ arguments: [String], stderr: String) throws -> (Int32, rusage) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw fail("could not start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var raw: Int32 = 0
        var usage = rusage()
        while wait4(pid, &raw, 0, &usage) == -1 && errno == EINTR {}
        return ((raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F), usage)
    }
}

/// Records the default sink's monitor on a thread of its own, each piece with the time it
/// was played; the start of the whole is the median of the pieces' estimates.
private final class Listener: @unchecked Sendable {
    // `lock` guards the three below.
    private let lock = NSLock()
    private var samples: [Int16] = []
    private var starts: [Double] = []
    private var stopped = false

    func start() throws {
        let opened = DispatchSemaphore(value: 0)
        let failed = OnceFlag()
        Thread { [self] in
            guard let recorder = try? SoundRecorder(device: "@DEFAULT_MONITOR@", rate: SoundBench.rate, channels: 1, pieceMilliseconds: 5) else {
                failed.set()
                opened.signal()
                return
            }
            opened.signal()
            while !isStopped {
                guard let piece = try? recorder.read(frames: SoundBench.rate / 200) else { break }
                lock.lock()
                starts.append(piece.startedAt - Double(samples.count) / Double(SoundBench.rate))
                samples += piece.samples
                lock.unlock()
            }
        }.start()
        opened.wait()
        if failed.isSet { throw fail("the sound server's monitor could not be recorded") }
    }
    var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
    func stop() { lock.lock(); stopped = true; lock.unlock() }
    var heard: ([Int16], Double) {
        lock.lock(); defer { lock.unlock() }
        let sorted = starts.sorted()
        return (samples, sorted.isEmpty ? 0 : sorted[sorted.count / 2])
    }
}

/// Silence written to the default sink until stopped (see `SoundBench.run`).
private final class Keeper: @unchecked Sendable {
    private let stopped = OnceFlag()
    func start() {
        let stopped = stopped
        Thread {
            guard let output = try? PulseOutput(name: "keeper") else { return }
            let zeros = [Int16](repeating: 0, count: 480 * 2)
            while !stopped.isSet {
                do throws(AudioProblem) {
                    try zeros.withUnsafeBufferPointer { buffer throws(AudioProblem) in try output.write(buffer, frames: 480) }
                } catch { return }
            }
        }.start()
    }
    func stop() { stopped.set() }
}

/// A flag set once, read from any thread.
private final class OnceFlag: @unchecked Sendable {
    // `lock` guards `value`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
