import StoriesFeedIO
import ArgumentParser
import Dispatch
import Foundation
import StoriesAssets
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesTerminal
import StoriesCommandLine

/// `stories bench navigation`: LinkedIn's smoothness measure. The app runs headless on the
/// system clock with its real queues and real decoding, behind a pretend network (300 ms,
/// 2 MB/s unless the network flags say otherwise), and a script walks through the stories —
/// taps, swipes, a dismiss and a reopen — at a human pace and a fast one, once with
/// preloading off and once on. Every navigation's time to visible is measured as in the
/// app (`--metrics`).
struct NavigationBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navigation",
        abstract: "Time to visible for scripted walks, preloading off and on (about 7 minutes with the defaults)."
    )

    @OptionGroup var network: NetworkOptions

    @Option(help: "Navigations per walk (at least 4).")
    var navigations = 60

    @Option(help: ArgumentHelp("Milliseconds between navigations, comma-separated.", valueName: "ms,ms"))
    var paces = "1500,150"

    @Option(help: ArgumentHelp("Feeds to walk: demo, synthetic (1012 stories with the demo's photos).", valueName: "names"))
    var feeds = "demo,synthetic"

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Preloading in the walks: off, on, or both.", valueName: "policy"))
    var preload = "both"

    @Option(help: ArgumentHelp("Also append every navigation's record to FILE (JSON lines, as view --metrics, with the walk named).", valueName: "file"))
    var metrics: String?

    func validate() throws {
        guard navigations >= 4 else { throw ValidationError("--navigations must be at least 4") }
        guard ["off", "on", "both"].contains(preload) else { throw ValidationError("--preload takes off, on or both; got '\(preload)'") }
        _ = try paceList()
        _ = try feedList()
        _ = try network.profile()
    }

    func paceList() throws -> [Int] {
        let values = paces.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 10 }) else {
            throw ValidationError("--paces takes milliseconds of 10 or more, like 1500,150; got '\(paces)'")
        }
        return values.compactMap { $0 }
    }

    func feedList() throws -> [String] {
        let names = feeds.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !names.isEmpty, names.allSatisfy({ ["demo", "synthetic"].contains($0) }) else {
            throw ValidationError("--feeds takes demo and/or synthetic; got '\(feeds)'")
        }
        return names
    }

    /// The network: the flags', or 300 ms and 2 MB/s with no jitter and no failures.
    func profile() throws -> NetworkProfile {
        guard !network.isGiven else { return try network.profile() }
        var profile = NetworkProfile.local
        profile.name = "bench"
        profile.latency = 0.3
        profile.bandwidth = 2_000_000
        return profile
    }

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        let profile = try profile()
        var cases: [NavigationWalk.Case] = []
        for feed in try feedList() {
            for pace in try paceList() {
                for policy in [PreloadPolicy.off, .on] where preload == "both" || preload == policy.rawValue {
                    cases.append(.init(feed: feed, paceMilliseconds: pace, policy: policy))
                }
            }
        }
        let sources = try sources()
        let json = self.json, navigations = self.navigations
        var metricsFile: FileHandle?
        if let metrics {
            guard FileManager.default.fileExists(atPath: metrics) || FileManager.default.createFile(atPath: metrics, contents: nil),
                  let handle = FileHandle(forWritingAtPath: metrics) else {
                throw fail("--metrics \(metrics): cannot be written")
            }
            handle.seekToEndOfFile()
            metricsFile = handle
        }
        if !json {
            let rate = profile.bandwidth.map { String(format: "%.1f MB/s", $0 / 1_000_000) } ?? "unlimited"
            Self.say("navigation: \(Int(profile.latency * 1000)) ms latency, \(rate), \(NavigationWalk.width)×\(NavigationWalk.height), \(navigations) navigations a walk")
            Self.say("time to visible = input read → first frame with the item's full media (one overtaken by the next input: the time it waited)")
            Self.say("feed       pace     preload  navs  visible  p50 ms  p95 ms  max ms  hit %  placeholder p95/max  wasted %  peak MB")
        }
        MainActor.assumeIsolated {
            NavigationWalk.runAll(cases, sources: sources, profile: profile, navigations: navigations) { result in
                for record in result.records {
                    var line = record.json.objectValue ?? [:]
                    line["feed"] = .string(result.case.feed)
                    line["policy"] = .string(result.case.policy.rawValue)
                    line["pace_ms"] = .int(result.case.paceMilliseconds)
                    metricsFile?.write(JSONValue.object(line).data() + Data("\n".utf8))
                }
                Self.say(json ? result.jsonLine : result.tableLine)
            } done: {
                Foundation.exit(0)
            }
        }
        dispatchMain()
    }

    /// A line on stdout at once (the walks take minutes; each result shows as it comes).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func sources() throws -> [String: any FeedSource] {
        var sources: [String: any FeedSource] = [:]
        let pool = demoMediaPool()
        guard let directory = DemoFeed.directory, let demo = try? FeedFolder(directory: directory), !pool.isEmpty else {
            throw fail("the embedded demo feed is missing next to the binary")
        }
        sources["demo"] = demo
        sources["synthetic"] = SyntheticFeed(count: 1012, photos: pool)
        return sources
    }
}

/// One scripted walk per case, one after another on the main queue.
@MainActor
enum NavigationWalk {
    nonisolated static let width = 100, height = 30

    struct Case {
        var feed: String
        var paceMilliseconds: Int
        var policy: PreloadPolicy
    }

    struct Result {
        var `case`: Case
        var records: [NavigationRecord]
        var bytesFetched: Int
        var bytesNeverShown: Int
        var peakBytes: Int
        var residentBytes: Int

        var visible: [NavigationRecord] { records.filter(\.complete) }
        /// Every navigation's time to visible; one overtaken before it was visible counts
        /// with the time it had waited (a lower bound), so misses are never left out.
        var times: [Double] { records.map(\.timeToVisible).sorted() }

        func percentile(_ sorted: [Double], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }

        var hitRate: Double { records.isEmpty ? 0 : Double(records.filter(\.hit).count) / Double(records.count) }
        var wastedRatio: Double { bytesFetched == 0 ? 0 : Double(bytesNeverShown) / Double(bytesFetched) }
        var placeholderP95: Double { percentile(records.map(\.firstFrame).sorted(), 0.95) }
        var placeholderMax: Double { records.map(\.firstFrame).max() ?? .nan }

        var jsonLine: String {
            // A time not measured (NaN) is written as null by the one writer.
            func ms(_ value: Double) -> JSONValue { .rounded(value, places: 2) }
            return JSONValue.object([
                "bench": "navigation", "feed": .string(self.case.feed), "policy": .string(self.case.policy.rawValue),
                "pace_ms": .int(self.case.paceMilliseconds), "navigations": .int(records.count), "visible": .int(visible.count),
                "p50_ms": ms(percentile(times, 0.5)), "p95_ms": ms(percentile(times, 0.95)), "max_ms": ms(times.last ?? .nan),
                "hit_rate": .rounded(hitRate, places: 3), "placeholder_p95_ms": ms(placeholderP95), "placeholder_max_ms": ms(placeholderMax),
                "wasted_ratio": .rounded(wastedRatio, places: 3), "bytes_fetched": .int(bytesFetched),
                "peak_mb": .rounded(Double(peakBytes) / 1_048_576, places: 1), "rss_mb": .rounded(Double(residentBytes) / 1_048_576, places: 1),
            ]).text()
        }

        var tableLine: String {
            func cell(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
            func ms(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-" }
            return cell(self.case.feed, 11) + cell("\(self.case.paceMilliseconds) ms", 9) + cell(self.case.policy.rawValue, 9)
                + cell("\(records.count)", 6) + cell("\(visible.count)", 9) + cell(ms(percentile(times, 0.5)), 8)
                + cell(ms(percentile(times, 0.95)), 8) + cell(ms(times.last ?? .nan), 8)
                + cell(String(format: "%.0f", hitRate * 100), 7) + cell(ms(placeholderP95) + " / " + ms(placeholderMax), 20)
                + cell(String(format: "%.0f", wastedRatio * 100), 10) + String(format: "%.1f", Double(peakBytes) / 1_048_576)
        }
    }

    static func runAll(_ cases: [Case], sources: [String: any FeedSource], profile: NetworkProfile, navigations: Int,
                       each: @escaping @MainActor (Result) -> Void, done: @escaping @MainActor () -> Void) {
        guard let first = cases.first, let source = sources[first.feed] else {
            done()
            return
        }
        run(first, source: source, profile: profile, navigations: navigations) { result in
            each(result)
            runAll(Array(cases.dropFirst()), sources: sources, profile: profile, navigations: navigations, each: each, done: done)
        }
    }

    /// The script, one input at a time from where the viewer is: open the first story, tap
    /// on (every 7th a swipe on the demo feed, every 3rd on the big one, to travel); at the
    /// end of the feed turn round and walk back (the demo feed has 28 items), at the start
    /// turn again; half way, dismiss and reopen.
    struct Script {
        let navigations: Int
        let swipeEvery: Int
        var forward = true

        init(navigations: Int, feed: String) {
            self.navigations = navigations
            swipeEvery = feed == "synthetic" ? 3 : 7
        }

        mutating func input(_ step: Int, state: AppState) -> InputEvent {
            if step == navigations / 2 { return .key(.escape) }
            guard let viewer = state.viewer else { return .key(.enter) }
            let store = state.feed.store
            let itemCount = store.story(at: viewer.storyIndex)?.items.count ?? 1
            if forward, viewer.storyIndex >= store.count - 1, !store.hasMore, viewer.itemIndex >= itemCount - 1 { forward = false }
            if !forward, viewer.storyIndex == 0, viewer.itemIndex == 0 { forward = true }
            let swipe = step % swipeEvery == 0
            switch (forward, swipe) {
            case (true, true): return .key(.character("]"))
            case (true, false): return .key(.right)
            case (false, true): return .key(.character("["))
            case (false, false): return .key(.left)
            }
        }
    }

    static func run(_ walk: Case, source: any FeedSource, profile: NetworkProfile, navigations: Int,
                    finished: @escaping @MainActor (Result) -> Void) {
        let client = FeedClient(source: source, profile: profile)
        let services = LiveServices(client: client)
        let scheduler = MainQueueScheduler()
        let engine = AppEngine(services: services, scheduler: scheduler, width: width, height: height, preload: walk.policy)
        var records: [NavigationRecord] = []
        engine.onNavigation = { records.append($0) }
        engine.start()
        // Like a person, look at the row for two seconds before the first tap.
        let pace = Double(walk.paceMilliseconds) / 1000
        var script = Script(navigations: navigations, feed: walk.feed)
        // One more step than navigations: the dismiss is not one, the reopen is.
        let steps = navigations + 1
        for step in 0..<steps {
            // The reopen follows the dismiss closely: a person closes, then opens again.
            let time = step > navigations / 2 ? Double(step - 1) * pace + 0.3 : Double(step) * pace
            scheduler.after(2 + time) { engine.input(script.input(step, state: engine.state)) }
        }
        let end = 2 + Double(steps) * pace + 1
        scheduler.after(end) {
            engine.stop()
            let pictures = services.pictures
            finished(Result(case: walk, records: records, bytesFetched: pictures.bytesFetched,
                            bytesNeverShown: pictures.bytesNeverShown(shown: engine.state.media.shown), peakBytes: engine.peakCacheBytes,
                            residentBytes: residentBytes()))
        }
    }

    /// The process's resident memory now (VmRSS), in bytes.
    static func residentBytes() -> Int { Int(ProcessMemory.now().resident * 1_048_576) }
}
