import StoriesCells
import StoriesTestSupport
import Dispatch
import Foundation
import StoriesCore
import Testing
@testable import StoriesMedia

/// A pretend network the test answers by hand: each fetch waits until `answer` is called,
/// and a cancelled one is noted. Main-actor only, like the pipeline under test.
final class FakeNetwork: @unchecked Sendable {
    // Only touched on the main actor (the pipeline calls `fetch` there, tests answer there).
    private(set) var started: [String] = []
    private(set) var cancelled: [String] = []
    private var pending: [String: @Sendable (Result<Data?, MediaError>) -> Void] = [:]
    let bytes: Data

    init(bytes: Data) { self.bytes = bytes }

    var fetch: MediaFetch {
        { location, _, done in
            MainActor.assumeIsolated {
                self.started.append(location)
                self.pending[location] = done
            }
            return { MainActor.assumeIsolated { self.cancelled.append(location) } }
        }
    }

    var inFlight: [String] { pending.keys.sorted() }

    /// Delivers a fetch's bytes (even one that was cancelled: a late answer).
    @MainActor func answer(_ location: String) {
        pending.removeValue(forKey: location)?(.success(bytes))
    }
}

@MainActor
@Suite struct PicturePipelineTests {
    static let photo = ImageEncoder.png(SamplePhoto.make(width: 32, height: 48)) ?? Data()

    func key(_ name: String) -> RenditionKey { RenditionKey(location: name, width: 8, height: 6, depth: .palette256) }

    func make(fetches: Int = 2, decodes: Int = 1, budget: Int = 64 << 20) -> (PicturePipeline, FakeNetwork, ManualExecutor) {
        let network = FakeNetwork(bytes: Self.photo)
        let executor = ManualExecutor()
        let pipeline = PicturePipeline(cache: RenditionCache(budget: budget), limits: .init(fetches: fetches, decodes: decodes),
                                       execution: .manual(executor), fetch: network.fetch)
        return (pipeline, network, executor)
    }

    @Test func theMostUrgentWorkStartsFirstWithinTheLimits() {
        let (pipeline, network, executor) = make(fetches: 2, decodes: 1)
        pipeline.prefetch([(key("feed1"), .feed), (key("adjacent"), .adjacent), (key("window"), .window), (key("feed2"), .feed)])
        #expect(network.started == ["window", "adjacent"], "two fetches at once, most urgent first")
        #expect(pipeline.status(of: key("feed1")) == .queued)
        // The visible item comes first as soon as a slot frees.
        pipeline.request(key("visible"), priority: .visible)
        network.answer("window")
        #expect(network.started.last == "visible")
        network.answer("adjacent")
        #expect(network.started.last == "feed1")
        network.answer("visible")
        // Decodes: one at a time. The window's began when its bytes came; of the two
        // waiting since, the visible item goes first though its bytes came last.
        #expect(executor.count == 1)
        #expect(pipeline.peakDecodes == 1)
        executor.runNext()
        #expect(pipeline.status(of: key("window")) == .ready)
        executor.runNext()
        #expect(pipeline.status(of: key("visible")) == .ready)
        #expect(pipeline.status(of: key("adjacent")) == .decoding, "still waiting for its turn")
        executor.runAll()
        #expect(pipeline.status(of: key("window")) == .ready && pipeline.status(of: key("adjacent")) == .ready)
        #expect(pipeline.peakFetches == 2)
    }

    @Test func twoRequestsForOneFileShareOneFetchAndEveryStageIsReported() {
        let (pipeline, network, executor) = make()
        var told: [MediaStatus] = []
        pipeline.onEachStatus { location, status in if location == "a" { told.append(status) } }
        pipeline.prefetch([(key("a"), .window)])
        pipeline.request(key("a"), priority: .visible)
        pipeline.request(key("a"), priority: .visible)
        #expect(network.started == ["a"], "one fetch")
        #expect(pipeline.jobCount == 1)
        network.answer("a")
        executor.runAll()
        #expect(told == [.queued, .fetching, .fetching, .decoding, .ready],
                "each stage as it comes (the prefetch also reports where it stands): \(told)")
        #expect(pipeline.decodeCount == 1)
    }

    @Test func workThatFallsOutOfTheWindowIsCancelledAndALateAnswerIsIgnored() {
        let (pipeline, network, executor) = make(fetches: 1)
        pipeline.prefetch([(key("1"), .window), (key("2"), .window), (key("3"), .window)])
        #expect(network.started == ["1"])
        // The window moves on: 1 and 2 are no longer wanted.
        pipeline.prefetch([(key("3"), .window), (key("4"), .window)])
        #expect(network.cancelled == ["1"], "the fetch in flight is called off")
        #expect(pipeline.status(of: key("2")) == nil, "a queued job is dropped")
        #expect(pipeline.jobCount == 2)
        #expect(network.started == ["1", "3"], "the freed slot goes to what is wanted now")
        network.answer("1")                     // too late: nobody waits
        #expect(executor.count == 0)
        #expect(pipeline.bytesFetched == Self.photo.count, "its bytes still came over the network")
        #expect(pipeline.bytesNeverShown(shown: []) == Self.photo.count)
        network.answer("3")
        executor.runAll()
        #expect(pipeline.status(of: key("3")) == .ready)
        #expect(pipeline.bytesNeverShown(shown: ["3"]) == Self.photo.count, "only 1's bytes were for nothing")
        #expect(pipeline.bytesNeverShown(shown: []) == 2 * Self.photo.count)
    }

    @Test func aPhotoTappedPastIsCancelledAndTheNewOneFetched() {
        let (pipeline, network, _) = make()
        pipeline.prefetch([(key("v"), .visible)])
        #expect(pipeline.status(of: key("v")) == .fetching)
        // The next navigation: v is no longer wanted.
        pipeline.prefetch([(key("w"), .visible)])
        #expect(network.cancelled == ["v"])
        #expect(network.started == ["v", "w"])
        #expect(pipeline.cache.pinned == ["w"])
    }

    @Test func theBudgetEvictsLeastRecentlyUsedButNeverTheWindow() {
        let one = CellImage(pixels: RGBImage(width: 8, height: 12), symbols: .half, depth: .palette256).byteCount
        let (pipeline, network, executor) = make(fetches: 4, decodes: 4, budget: one * 3 + 1)
        func prepare(_ names: [String], _ priority: PreloadPriority) {
            pipeline.prefetch(names.map { (key($0), priority) })
            for name in names { network.answer(name) }
            executor.runAll()
        }
        // Decoded pixels count too: make them as small as the cells by decoding 8×12 images.
        prepare(["w1", "w2"], .window)
        let cache = pipeline.cache
        #expect(cache.pinned == ["w1", "w2"])
        // More than the budget holds, from the feed layer: it must evict, never w1 or w2.
        pipeline.prefetch([(key("w1"), .window), (key("w2"), .window), (key("f1"), .feed), (key("f2"), .feed), (key("f3"), .feed)])
        for name in ["f1", "f2", "f3"] { network.answer(name) }
        executor.runAll()
        #expect(cache.state(peek: key("w1")) != .loading, "the window stays")
        #expect(cache.state(peek: key("w2")) != .loading, "the window stays")
        let feedKept = ["f1", "f2", "f3"].filter { cache.state(peek: key($0)) != .loading }
        #expect(feedKept.count < 3, "the feed layer made room: \(feedKept)")
    }

    @Test func moreUrgentWorkRunsAtAHigherQualityOfService() {
        let order: [DispatchQoS.QoSClass] = PreloadPriority.allCases.map(PicturePipeline.qos)
        #expect(order == [.userInitiated, .default, .utility, .background])
    }

    @Test func aFailedOrEmptyFetchEndsTheJob() {
        let network = FakeNetwork(bytes: Data("not an image".utf8))
        let executor = ManualExecutor()
        let pipeline = PicturePipeline(cache: RenditionCache(), execution: .manual(executor), fetch: network.fetch)
        var told: MediaStatus?
        pipeline.onEachStatus { _, status in told = status }
        pipeline.request(key("bad"))
        network.answer("bad")
        executor.runAll()
        #expect(told == .failed("neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read"))
        #expect(pipeline.status(of: key("bad")) == .failed("neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read"))
        #expect(pipeline.isIdle)
    }

    /// A location the reducer says waits for its retry is neither fetched nor reported,
    /// whatever set it is in; once it is out of `waiting`, it is asked for at once.
    @Test func aWaitingLocationIsAskedForOnlyWhenTheReducerSaysSo() {
        let (pipeline, network, _) = make()
        var told: [String] = []
        pipeline.onEachStatus { location, _ in told.append(location) }
        let targets: [(key: RenditionKey, priority: PreloadPriority, blurhash: String?)] =
            [(key("a"), .visible, nil), (key("b"), .window, nil)]
        pipeline.prefetch(targets, waiting: ["a"])
        #expect(network.started == ["b"], "only b is fetched")
        #expect(!told.contains("a"), "nothing is said of a")
        pipeline.prefetch(targets, waiting: ["a"])
        #expect(network.started == ["b"], "a set again with a waiting asks for nothing more")
        pipeline.prefetch(targets)
        #expect(network.started == ["b", "a"], "out of waiting: asked at once")
        #expect(told.contains("a"))
    }
}

/// The scheduler on real Dispatch queues with random network delays, under thousands of
/// random navigations: it never deadlocks, never fetches a file twice at once, holds its
/// budget, and every picture asked for ends as a photo or an error.
@MainActor
@Suite struct PicturePipelineStressTests {
    @Test func thousandsOfRandomNavigationsOnRealQueues() async throws {
        let photo = try #require(ImageEncoder.jpeg(SamplePhoto.make(width: 120, height: 200)))
        let broken = Data("broken".utf8)
        let cache = RenditionCache(budget: 2 << 20)
        // Fetches under way, by location: a second one for a file whose fetch is neither
        // answered nor called off is a duplicate.
        let inFlight = Locked<Set<String>>([])
        let duplicates = Locked(0)
        let pipeline = PicturePipeline(cache: cache, limits: .init(fetches: 4, decodes: 2)) { location, _, done in
            let cancelled = Locked(false)
            inFlight.update { if !$0.insert(location).inserted { duplicates.update { $0 += 1 } } }
            let delay = Double(location.hashValue & 0xF) / 2000 // 0–7.5 ms
            Fault.late(delay, on: .global(qos: .utility)) {
                guard !cancelled.value else { return }
                inFlight.update { $0.remove(location) }
                done(.success(location.hasSuffix("7") ? broken : photo))
            }
            return {
                cancelled.set(true)
                inFlight.update { $0.remove(location) }
            }
        }
        var random = SystemRandomNumberGenerator()
        var asked: [RenditionKey] = []
        for step in 0..<2000 {
            let story = Int.random(in: 0..<300, using: &random)
            let item = Int.random(in: 0..<5, using: &random)
            func k(_ s: Int, _ i: Int) -> RenditionKey {
                RenditionKey(location: "s\(s)/\(i)", width: 20, height: 10, depth: .palette256)
            }
            let visible = k(story, item)
            if step % 10 == 0 { asked.append(visible) }
            pipeline.prefetch([(visible, .visible), (k(story, item + 1), .window), (k(story, item + 2), .window),
                               (k(story, max(0, item - 1)), .window), (k(story + 1, 0), .adjacent), (k(story - 1, 0), .adjacent),
                               (k(story + 2, 0), .feed)])
            if step % 50 == 0 { await Pace.pause(0.002) } // a person's pace: the queues' work interleaves with the input
            #expect(duplicates.value == 0)
        }
        pipeline.prefetch([] as [(key: RenditionKey, priority: PreloadPriority, blurhash: String?)])
        // Everything in flight settles: no deadlock.
        let held = await AsyncWait.until(30, every: 0.005) { pipeline.isIdle }
        #expect(held, "\(pipeline.jobCount) jobs never finished")
        #expect(duplicates.value == 0)
        #expect(pipeline.peakFetches <= 4 && pipeline.peakDecodes <= 2)
        #expect(cache.bytesInUse <= cache.budget, "the budget holds once nothing is pinned")
        // The last visible pictures: each is a photo or an error, never stuck loading.
        for key in asked.suffix(20) {
            pipeline.request(key)
        }
        let held2 = await AsyncWait.until(30, every: 0.005) { pipeline.isIdle }
        #expect(held2, "\(pipeline.jobCount) jobs never finished")
        for key in asked.suffix(20) {
            let state = cache.state(peek: key)
            #expect(state != .loading, "\(key.location) resolved")
            if key.location.hasSuffix("7") { #expect(state == .failed("neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read")) }
        }
    }
}

/// A value shared with a Dispatch queue; `lock` guards it.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

extension PicturePipeline {
    /// Targets without BlurHashes, as most of these tests need.
    func prefetch(_ targets: [(RenditionKey, PreloadPriority)]) {
        prefetch(targets.map { (key: $0.0, priority: $0.1, blurhash: nil) })
    }
}

extension PicturePipeline {
    /// Hears each report of a batch on its own, in order.
    func onEachStatus(_ each: @escaping @MainActor (String, MediaStatus) -> Void) {
        onNews = { news in for item in news { each(item.location, item.status) } }
    }
}
