@testable import StoriesFeedIO
import Foundation
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing
@testable import StoriesApp

/// The preloader and the metrics in the whole engine, on the virtual clock: the network's
/// delays pass in virtual time, so the numbers are exact.
@MainActor
@Suite struct PreloadEngineTests {
    func engine(_ policy: PreloadPolicy, latency: Double = 0.3) throws -> (AppEngine, VirtualScheduler, () -> [NavigationRecord]) {
        let directory = try #require(DemoFeed.directory)
        var profile = NetworkProfile.local
        profile.name = "test"
        profile.latency = latency
        let client = FeedClient(source: try FeedFolder(directory: directory), profile: profile)
        let scheduler = VirtualScheduler(start: Moment(uptime: 0, date: Date(timeIntervalSince1970: 1_795_240_800)))
        let engine = AppEngine(services: VirtualServices(client: client, scheduler: scheduler), scheduler: scheduler,
                               width: 100, height: 30, reduceMotion: true, preload: policy)
        var records: [NavigationRecord] = []
        engine.onNavigation = { records.append($0) }
        engine.start()
        return (engine, scheduler, { records })
    }

    /// Open the first story, then tap on every 1.5 s.
    func walk(_ engine: AppEngine, _ scheduler: VirtualScheduler, taps: Int) {
        scheduler.run(until: 2)
        engine.input(.key(.enter))
        for n in 1...taps {
            scheduler.run(until: 2 + Double(n) * 1.5)
            engine.input(.key(.right))
        }
        scheduler.run(until: 2 + Double(taps + 1) * 1.5)
    }

    @Test func withPreloadingEveryNavigationIsAHitAndVisibleInTheFirstFrame() throws {
        let (engine, scheduler, records) = try engine(.on)
        walk(engine, scheduler, taps: 8)
        let all = records()
        #expect(all.count == 9)
        #expect(all.allSatisfy { $0.hit }, "\(all.map { "\($0.item) \($0.hit)" })")
        #expect(all.allSatisfy { $0.t2 == 0 && $0.t1 == 0 && $0.t3 == 0 && $0.timeToVisible == 0 },
                "on the virtual clock a hit is visible in the very frame the input asks for")
        #expect(all.first?.trigger == "open")
        #expect(all.dropFirst().allSatisfy { $0.trigger == "tap right" })
    }

    @Test func withoutPreloadingANewStoryWaitsForItsItemsAndItsPhotos() throws {
        let (engine, scheduler, records) = try engine(.off)
        walk(engine, scheduler, taps: 8)
        let all = records()
        #expect(all.count == 9)
        let first = try #require(all.first)
        #expect(!first.hit)
        #expect(abs(first.t2 - 300) < 1, "the story's items: one network round trip (\(first.t2) ms)")
        #expect(abs(first.t3 - 300) < 1, "then its photo: another (\(first.t3) ms)")
        #expect(abs(first.timeToVisible - 600) < 1)
        #expect(all.filter { !$0.hit }.count >= 3, "every new story and every photo misses")
    }

    /// Video items are measured like photos: t3 waits for the first frame (the poster).
    @Test func aVideoItemWaitsForItsFirstFrameUnlessItWasPreloaded() throws {
        let videos: Set<ItemID> = ["olu-life", "club-liftoff", "club-deep-field"]
        for policy in [PreloadPolicy.off, .on] {
            let (engine, scheduler, records) = try engine(policy)
            walk(engine, scheduler, taps: 30)
            let shown = records().filter { videos.contains($0.item) }
            #expect(!shown.isEmpty, "the walk reaches a video of the demo (\(records().map(\.item)))")
            for record in shown {
                if policy == .on {
                    #expect(record.hit && record.t3 == 0 && record.timeToVisible == 0, "\(record)")
                } else {
                    #expect(!record.hit && record.t3 > 299, "its bytes are one round trip away: \(record)")
                }
            }
        }
    }

    @Test func theMetricsOverlayShowsTheWindowAndTheLatestNavigations() throws {
        let (engine, scheduler, _) = try engine(.on)
        walk(engine, scheduler, taps: 2)
        engine.input(.key(.character("i")))
        scheduler.run(until: 7.1)
        let screen = Snapshot.lines(of: engine.redraw()).joined(separator: "\n")
        #expect(screen.contains("Metrics · preload on · hits 3/3 (100%)"), "\(screen)")
        #expect(screen.contains("hit  tap right"))
        #expect(screen.contains("window [3/3 shown] [next 1/3 ready]"), "the item shown, and the next story's first: \(screen)")
        let snapshot = engine.metricsSnapshot()
        #expect(snapshot.window.contains { $0.label.hasPrefix("next") }, "the next story's first unseen item is prepared")
        #expect(snapshot.bytesFetched > 0)
        #expect(snapshot.memoryBytes <= snapshot.memoryBudget)
    }

    @Test func theMetricsFileHasOneLinePerNavigation() throws {
        let path = NSTemporaryDirectory() + "stories-metrics-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try LineFile.open(path, append: false)
        let (engine, scheduler, _) = try engine(.off)
        engine.writeMetrics(to: handle)
        walk(engine, scheduler, taps: 3)
        _ = handle // each line is written as it comes: nothing to close
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        let first = try #require(lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(Set(first.keys) == ["trigger", "story", "item", "t1_ms", "t2_ms", "t3_ms", "ttv_ms", "first_frame_ms", "hit", "complete"])
        #expect(first["trigger"] as? String == "open")
        #expect(first["hit"] as? Bool == false)
    }
}
