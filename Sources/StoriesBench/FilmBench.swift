import ArgumentParser
import Foundation
import StoriesApp
import StoriesAssets
import StoriesCommandLine
import StoriesCore
import StoriesFeedIO
import StoriesRender

/// `stories bench film`: a minute-long flow through the demo feed (taps through every story,
/// its photos, text cards, GIF and videos; cubes, a pull-down and a reopen) rendered at
/// 100×30 to each format: wall and CPU time against the flow's own length, the file's size,
/// and resident memory as the render goes (it must stay flat: frames stream through).
struct FilmBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "film",
        abstract: "Render a 60 s flow at 100x30 to MP4, WebM, GIF and asciicast: time against its length, size, memory."
    )

    @Option(help: ArgumentHelp("The flow's length in seconds (10 to 600).", valueName: "s"))
    var seconds = 60

    @Option(help: ArgumentHelp("Formats, comma separated: mp4, webm, gif, cast.", valueName: "list"))
    var formats = "mp4,webm,gif,cast"

    @Option(help: "Runs per format (the median is reported).")
    var runs = 3

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    /// A walk through the demo feed: open, then a tap every 2 s, a `]` every fifth step, a
    /// pull-down and a reopen every twelfth, until `seconds` have passed.
    static func flow(seconds: Int) throws -> Flow {
        var lines = [#"{"stories-flow":1,"width":100,"height":30}"#, #"{"wait":1}"#, #"{"key":"Enter"}"#]
        var time = 1.0, step = 0
        while time + 2 < Double(seconds) {
            step += 1
            lines.append(#"{"wait":2}"#)
            if step % 12 == 0 {
                lines += [#"{"drag":[[50,6],[50,24]],"over":0.4}"#, #"{"wait":1}"#, #"{"key":"Right"}"#, #"{"key":"Enter"}"#]
                time += 1.4
            } else if step % 5 == 0 {
                lines.append(#"{"key":"]"}"#)
            } else {
                lines.append(#"{"tap":[85,15]}"#)
            }
            time += 2
        }
        lines.append(#"{"wait":\#(max(0, Double(seconds) - time))}"#)
        return try Flow.parse(lines.joined(separator: "\n"), file: "film.jsonl")
    }

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        guard (10...600).contains(seconds), runs >= 1 else { throw ValidationError("--seconds is 10 to 600, --runs at least 1") }
        let chosen = try formats.split(separator: ",").map { name -> RenderRun.Format in
            guard let format = RenderRun.Format(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ValidationError("--formats takes mp4, webm, gif and cast; got '\(SafeText.line(String(name)))'")
            }
            return format
        }
        let flow = try Self.flow(seconds: seconds)
        guard let demo = DemoFeed.directory else { throw fail("the embedded demo feed is missing next to the binary") }
        if !json {
            print("stories render of a \(seconds) s flow at 100×30 (the demo feed: photos, text, a GIF, videos; cubes, a pull-down)")
            print("format  wall s  cpu s  × real time  frames  size MB  rss MB at 25/50/75/100% (peak)")
        }
        for format in chosen {
            var samples: [Sample] = []
            for _ in 0..<runs { samples.append(try measure(flow, format: format, demo: demo)) }
            samples.sort { $0.wall < $1.wall }
            let median = samples[samples.count / 2]
            if json {
                print(JSONValue.object([
                    "bench": .string("film"), "format": .string(format.rawValue), "seconds": .int(seconds),
                    "wall_s": .rounded(median.wall, places: 2), "cpu_s": .rounded(median.cpu, places: 2),
                    "real_time_ratio": .rounded(median.wall / Double(seconds), places: 3), "frames": .int(median.frames),
                    "bytes": .int(median.bytes), "rss_mb": .array(median.resident.map { .rounded($0, places: 1) }),
                    "peak_mb": .rounded(median.peak, places: 1),
                ]).text())
            } else {
                let rss = median.resident.map { String(format: "%.0f", $0) }.joined(separator: "/")
                print(String(format: "%-6@  %6.2f  %5.2f  %10.3f  %6d  %7.2f  %@ (%.0f)", format.rawValue as NSString, median.wall, median.cpu,
                             median.wall / Double(seconds), median.frames, Double(median.bytes) / 1_000_000, rss as NSString, median.peak))
            }
        }
    }

    struct Sample {
        var wall: Double
        var cpu: Double
        var frames: Int
        var bytes: Int
        /// Resident MB at a quarter, half, three quarters and the end of the render.
        var resident: [Double]
        var peak: Double
    }

    /// One render, resident memory sampled every 50 ms on a queue of its own.
    func measure(_ flow: Flow, format: RenderRun.Format, demo: URL) throws -> Sample {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("film-\(UUID().uuidString).\(format.rawValue)")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw fail("\(url.path): cannot be written") }
        defer { close(fd); unlink(url.path) }
        let sampler = MemorySampler()
        sampler.start()
        let started = Date(), cpuStarted = Self.cpuSeconds()
        let outcome = try MainActor.assumeIsolated { () throws -> RenderRun.Outcome in
            try RenderRun.render(flow, client: { FeedClient(source: try FeedFolder(directory: demo), profile: .local) },
                                 headless: HeadlessRun.Options(width: flow.width, height: flow.height), to: fd,
                                 options: RenderRun.Options(format: format))
        }
        let wall = Date().timeIntervalSince(started), cpu = Self.cpuSeconds() - cpuStarted
        let series = sampler.stop()
        let quarters = (1...4).map { q in series.isEmpty ? 0 : series[min(series.count - 1, max(0, series.count * q / 4 - 1))] }
        let bytes = Int(lseek(fd, 0, SEEK_END))
        return Sample(wall: wall, cpu: cpu, frames: outcome.frames, bytes: bytes, resident: quarters,
                      peak: ProcessMemory.now().peak)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// Resident memory every 50 ms while a render runs (a benchmark's sampler, on its own queue).
/// `@unchecked Sendable`: `values` and `running` are touched only under `lock`.
final class MemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    private var running = false
    private let queue = DispatchQueue(label: "stories.bench.memory")

    func start() {
        lock.withLock { running = true; values = [] }
        tick()
    }

    private func tick() {
        queue.asyncAfter(deadline: .now() + 0.05) { [self] in
            let resident = ProcessMemory.now().resident
            let more = lock.withLock { () -> Bool in
                guard running else { return false }
                values.append(resident)
                return true
            }
            if more { tick() }
        }
    }

    func stop() -> [Double] {
        lock.withLock {
            running = false
            return values
        }
    }
}
