import Dispatch
import Foundation

/// A request in flight. `cancel()` is final: after it, the completion is never called,
/// and a request still waiting out its latency never touches the source.
public final class FeedRequest: @unchecked Sendable {
    // `lock` guards `cancelled`; it is read from the network queue and the delivery queue.
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() {
        lock.withLock { cancelled = true }
    }

    public var isCancelled: Bool {
        lock.withLock { cancelled }
    }
}

/// Runs a `FeedSource`'s calls on a concurrent Dispatch queue as if over a network shaped
/// by a `NetworkProfile`: the latency passes first (a timer, no thread waits), then the
/// source is read, then the transfer time for its bytes passes; a share of requests fail,
/// and one that would outlast the timeout fails at the timeout. Results are delivered on
/// `deliverOn` (the main queue in the app). Random draws come from a seeded generator, so
/// a run with the same seed meets the same delays.
public final class FeedClient: Sendable {
    public let source: any FeedSource
    public let profile: NetworkProfile
    private let queue = DispatchQueue(label: "stories.network", qos: .utility, attributes: .concurrent)
    private let random: LockedRandom
    private let stats = LockedStats()

    public init(source: any FeedSource, profile: NetworkProfile = .local, seed: UInt64 = 0x5EED) {
        self.source = source
        self.profile = profile
        self.random = LockedRandom(seed: seed)
    }

    /// How many requests the source answered, and the bytes they carried.
    public var traffic: (requests: Int, bytes: Int) { stats.read() }

    @discardableResult
    public func page(after cursor: FeedCursor?, limit: Int = 10, qos: DispatchQoS = .utility, deliverOn: DispatchQueue = .main,
                     completion: @escaping @Sendable (Result<FeedPage, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        let what = cursor.map { "feed page at \($0)" } ?? "first feed page"
        return perform(what, qos: qos, deliverOn: deliverOn, work: { () throws(FeedError) in
            let page = try source.page(after: cursor, limit: limit)
            return (page, page.bytes)
        }, completion: completion)
    }

    @discardableResult
    public func story(id: StoryID, qos: DispatchQoS = .userInitiated, deliverOn: DispatchQueue = .main,
                      completion: @escaping @Sendable (Result<StoryLoad, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        return perform("stories/\(id).json", qos: qos, deliverOn: deliverOn, work: { () throws(FeedError) in
            let load = try source.story(id: id)
            return (load, load.bytes)
        }, completion: completion)
    }

    /// The bytes of a media file; `.success(nil)` when the source has none for it.
    @discardableResult
    public func media(at location: String, maxBytes: Int, qos: DispatchQoS = .userInitiated, deliverOn: DispatchQueue = .main,
                      completion: @escaping @Sendable (Result<Data?, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        return perform(location, qos: qos, deliverOn: deliverOn, work: { () throws(FeedError) in
            let data = try source.media(at: location, maxBytes: maxBytes)
            return (data, data?.count ?? 0)
        }, completion: completion)
    }

    private func perform<Value: Sendable>(
        _ what: String, qos: DispatchQoS, deliverOn: DispatchQueue,
        work: @escaping @Sendable () throws(FeedError) -> (Value, Int),
        completion: @escaping @Sendable (Result<Value, FeedError>) -> Void
    ) -> FeedRequest {
        let request = FeedRequest()
        let profile = self.profile
        let queue = self.queue
        let stats = self.stats
        let deliver: @Sendable (Result<Value, FeedError>, Double) -> Void = { result, delay in
            queue.asyncAfter(deadline: .now() + max(0, delay), qos: qos) {
                guard !request.isCancelled else { return }
                deliverOn.async {
                    if !request.isCancelled { completion(result) }
                }
            }
        }
        if profile.isOffline {
            deliver(.failure(FeedError(file: what, reason: "offline (--network offline)")), 0.05)
            return request
        }
        let (jitterUnit, failureRoll) = random.draw()
        let latency = max(0, profile.latency + profile.jitter * jitterUnit)
        let timedOut = FeedError(file: what, reason: "timed out after \(NetworkProfile.format(seconds: profile.timeout))")
        if latency >= profile.timeout {
            deliver(.failure(timedOut), profile.timeout)
            return request
        }
        if failureRoll < profile.failureRate {
            deliver(.failure(FeedError(file: what, reason: "the connection failed (simulated: \(profile.name))")), latency)
            return request
        }
        queue.asyncAfter(deadline: .now() + latency, qos: qos) {
            guard !request.isCancelled else { return }
            let started = DispatchTime.now().uptimeNanoseconds
            let value: Value, bytes: Int
            do throws(FeedError) {
                (value, bytes) = try work()
            } catch {
                deliver(.failure(error), 0)
                return
            }
            stats.add(bytes: bytes)
            let transfer = profile.transferSeconds(bytes: bytes)
            if latency + transfer > profile.timeout {
                deliver(.failure(timedOut), profile.timeout - latency)
                return
            }
            let spent = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            deliver(.success(value), transfer - spent)
        }
        return request
    }
}

/// The network's random draws; `lock` guards the generator, which any queue may draw from.
private final class LockedRandom: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SplitMix

    init(seed: UInt64) { generator = SplitMix(seed: seed) }

    /// A jitter factor in -1...1 and a failure roll in 0..<1.
    func draw() -> (Double, Double) {
        lock.withLock {
            let a = Double(generator.nextUInt64() >> 11) / Double(1 << 53)
            let b = Double(generator.nextUInt64() >> 11) / Double(1 << 53)
            return (a * 2 - 1, b)
        }
    }
}

/// Request and byte counts; `lock` guards both numbers.
private final class LockedStats: @unchecked Sendable {
    private let lock = NSLock()
    private var requests = 0
    private var bytes = 0

    func add(bytes count: Int) {
        lock.withLock {
            requests += 1
            bytes += count
        }
    }

    func read() -> (requests: Int, bytes: Int) { lock.withLock { (requests, bytes) } }
}
