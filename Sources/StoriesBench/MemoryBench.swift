import StoriesFeedIO
import ArgumentParser
import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories bench memory`: resident and peak memory after walking 20, 100, 400 and 1000
/// stories of `--synthetic 1012` (the demo's photos and videos) with `]`, at a fast pace and a
/// person's. Each pace runs in a process of its own (this binary again, `--pace`), so one
/// walk's peak is not another's.
struct MemoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Resident and peak memory while walking 1000 stories of the synthetic feed (about 12 minutes with the defaults)."
    )

    @Option(help: ArgumentHelp("Milliseconds between swipes, comma-separated; each pace runs in its own process.", valueName: "ms,ms"))
    var paces = "100,600"

    @Option(help: ArgumentHelp("Stories walked at which memory is read, comma-separated, increasing, at most 1011.", valueName: "n,n"))
    var at = "20,100,400,1000"

    @Option(help: ArgumentHelp("The screen, COLUMNSxROWS.", valueName: "size"))
    var size = "100x30"

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Option(help: .hidden)
    var pace: Int?

    func checkpoints() throws -> [Int] {
        let values = at.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.count == at.split(separator: ",").count, values.allSatisfy({ (1...1011).contains($0) }),
              values == values.sorted() else {
            throw ValidationError("--at takes increasing story counts from 1 to 1011, like 20,100,400,1000; got '\(at)'")
        }
        return values
    }

    func paceList() throws -> [Int] {
        let values = paces.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.count == paces.split(separator: ",").count, values.allSatisfy({ (10...60_000).contains($0) }) else {
            throw ValidationError("--paces takes milliseconds from 10 to 60000, like 100,600; got '\(paces)'")
        }
        return values
    }

    func screen() throws -> (width: Int, height: Int) {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (20...500).contains(parts[0]), (8...300).contains(parts[1]) else {
            throw ValidationError("--size takes COLUMNSxROWS from 20x8 to 500x300, like 100x30; got '\(size)'")
        }
        return (parts[0], parts[1])
    }

    func validate() throws {
        _ = try checkpoints()
        _ = try paceList()
        _ = try screen()
        if let pace, !(10...60_000).contains(pace) { throw ValidationError("--pace takes 10 to 60000 ms") }
    }

    mutating func run() throws {
        if let pace {
            try walk(pace: pace)
            return
        }
        BenchCommand.warnIfDebugBuild()
        let (width, height) = try screen()
        if !json {
            say("memory: --synthetic 1012 (the demo's photos and videos), \(width)×\(height), 256 colours, `]` at each pace; each pace in its own process")
            say("pace     walked  rss MB  peak MB  cache MB  budget MB")
        }
        for pace in try paceList() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["bench", "memory", "--pace", "\(pace)", "--at", at, "--size", size]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            var buffer = Data()
            while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    say(json ? line : Self.tableLine(line))
                }
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw fail("the walk at \(pace) ms ended with status \(process.terminationStatus)") }
        }
    }

    /// One row of the table from a walk's JSON line.
    static func tableLine(_ json: String) -> String {
        guard let object = try? JSONValue.parse(Data(json.utf8), file: "") else { return json }
        if case .object(let parts)? = object["parts_mb"] {
            // The breakdown: largest first.
            let sorted = parts.compactMap { name, value in value.numberValue.map { (name, $0) } }.sorted { $0.1 > $1.1 }
            return "  where it is at the last checkpoint (MB): "
                + sorted.map { "\($0.0) \(JSONValue.number($0.1).text())" }.joined(separator: ", ")
        }
        func value(_ key: String) -> String {
            guard let number = object[key]?.numberValue else { return "-" }
            return JSONValue.number(number).text()
        }
        func cell(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
        return cell(value("pace_ms") + " ms", 9) + cell(value("walked"), 8) + cell(value("rss_mb"), 8) + cell(value("peak_mb"), 9)
            + cell(value("cache_mb"), 10) + value("budget_mb")
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The walk itself, in this process: open the first story, then `]` every `pace` ms;
    /// memory is read as the viewer reaches each checkpoint.
    private func walk(pace: Int) throws {
        let checkpoints = try checkpoints()
        let (width, height) = try screen()
        let pool = demoMediaPool()
        guard !pool.isEmpty else { throw fail("the embedded demo feed is missing next to the binary") }
        let source = SyntheticFeed(count: 1012, photos: pool)
        MainActor.assumeIsolated {
            let walk = MemoryWalk(source: source, pace: pace, checkpoints: checkpoints, width: width, height: height)
            // Like a person, look at the row for a moment first.
            walk.scheduler.after(1) { walk.step() }
        }
        dispatchMain()
    }
}

/// One walk: open the first story, then `]` every `pace` ms; a JSON line as the viewer
/// reaches each checkpoint, then exit.
@MainActor
final class MemoryWalk {
    let scheduler = MainQueueScheduler()
    private let services: LiveServices
    private let engine: AppEngine
    private let pace: Int
    private var remaining: [Int]
    private var lastIndex = -1, stuck = 0

    init(source: any FeedSource, pace: Int, checkpoints: [Int], width: Int, height: Int) {
        services = LiveServices(client: FeedClient(source: source, profile: .local))
        engine = AppEngine(services: services, scheduler: scheduler, width: width, height: height)
        self.pace = pace
        remaining = checkpoints
        engine.start()
    }

    func step() {
        let again = Double(pace) / 1000
        guard let viewer = engine.state.viewer else {
            engine.input(.key(.enter))
            scheduler.after(again) { self.step() }
            return
        }
        let walked = viewer.storyIndex
        while let next = remaining.first, walked >= next {
            remaining.removeFirst()
            let memory = ProcessMemory.now()
            let cache = services.pictures.cache
            let line = JSONValue.object([
                "bench": "memory", "pace_ms": .int(pace), "walked": .int(walked),
                "rss_mb": .rounded(memory.resident, places: 1), "peak_mb": .rounded(memory.peak, places: 1),
                "cache_mb": .rounded(Double(cache.bytesInUse) / 1_048_576, places: 1),
                "budget_mb": .rounded(Double(cache.budget) / 1_048_576, places: 1),
                "width": .int(engine.width), "height": .int(engine.height),
            ])
            FileHandle.standardOutput.write(line.data() + Data("\n".utf8))
        }
        if remaining.isEmpty {
            // At the last checkpoint: where the memory is, measured.
            var parts: [String: JSONValue] = [:]
            for part in MemoryBreakdown.now() { parts[part.name] = .rounded(part.megabytes, places: 1) }
            parts["of malloc in use: picture cache"] = .rounded(Double(services.pictures.cache.bytesInUse) / 1_048_576, places: 1)
            parts["of malloc in use: video players (estimated)"] = .rounded(Double(services.players.estimatedBytes) / 1_048_576, places: 1)
            let line = JSONValue.object(["bench": "memory-breakdown", "pace_ms": .int(pace), "walked": .int(walked),
                                         "parts_mb": .object(parts)])
            FileHandle.standardOutput.write(line.data() + Data("\n".utf8))
            engine.stop()
            Foundation.exit(0)
        }
        stuck = walked == lastIndex ? stuck + 1 : 0
        lastIndex = walked
        if stuck > 600 {
            FileHandle.standardError.write(Data("stories: the walk stopped at story \(walked)\n".utf8))
            Foundation.exit(1)
        }
        engine.input(.key(.character("]")))
        scheduler.after(again) { self.step() }
    }
}

/// This process's memory from `/proc/self/status`, in MB: resident now, and the peak.
enum ProcessMemory {
    static func now() -> (resident: Double, peak: Double) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
                  let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
            return kilobytes / 1024
        }
        return (field("VmRSS:"), field("VmHWM:"))
    }
}
