import StoriesCore
import Dispatch
import Foundation


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
    /// The home request's draws come from a generator of their own, so the sequence the
    /// feed's pages and stories meet for a seed does not depend on when the home arrives.
    private let homeRandom: LockedRandom
    private let stats = LockedStats()

    public init(source: any FeedSource, profile: NetworkProfile = .local, seed: UInt64 = 0x5EED) {
        self.source = source
        self.profile = profile
        self.random = LockedRandom(seed: seed)
        self.homeRandom = LockedRandom(seed: seed ^ 0x484F4D45)
    }

    /// How many requests the source answered, and the bytes they carried.
    public var traffic: (requests: Int, bytes: Int) { stats.read() }

    @discardableResult
    public func page(after cursor: FeedCursor?, limit: Int = 10, qos: DispatchQoS = .utility, deliverOn: DispatchQueue = .main,
                     completion: @escaping @Sendable (Result<FeedPage, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        let what = cursor.map { "feed page at \($0)" } ?? "first feed page"
        return perform(what, qos: qos, deliverOn: deliverOn, work: { _ throws(FeedError) in
            let page = try source.page(after: cursor, limit: limit)
            return (page, page.bytes)
        }, completion: completion)
    }

    @discardableResult
    public func story(id: StoryID, qos: DispatchQoS = .userInitiated, deliverOn: DispatchQueue = .main,
                      completion: @escaping @Sendable (Result<StoryLoad, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        return perform("stories/\(id).json", qos: qos, deliverOn: deliverOn, work: { (request) throws(FeedError) in
            let load = try source.story(id: id, request: request)
            return (load, load.bytes)
        }, completion: completion)
    }

    /// The home sections.
    @discardableResult
    public func home(qos: DispatchQoS = .utility, deliverOn: DispatchQueue = .main,
                     completion: @escaping @Sendable (Result<HomeLoad, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        return perform("home sections", random: homeRandom, qos: qos, deliverOn: deliverOn, work: { _ throws(FeedError) in
            let load = try source.home()
            return (load, load.bytes)
        }, completion: completion)
    }

    /// The first page from the source's own cache (`FeedSource.cachedFirstPage`): read on
    /// the network queue but not through the profile — nothing crosses the network — and
    /// delivered nil when there is none.
    public func cachedFirstPage(limit: Int = 10, deliverOn: DispatchQueue = .main,
                                completion: @escaping @Sendable (FeedPage?) -> Void) {
        let source = self.source
        queue.async(qos: .userInitiated) {
            let page = source.cachedFirstPage(limit: limit)
            deliverOn.async { completion(page) }
        }
    }

    /// The bytes of a media file; `.success(nil)` when the source has none for it.
    @discardableResult
    public func media(at location: String, maxBytes: Int, qos: DispatchQoS = .userInitiated, deliverOn: DispatchQueue = .main,
                      completion: @escaping @Sendable (Result<Data?, FeedError>) -> Void) -> FeedRequest {
        let source = self.source
        return perform(location, qos: qos, deliverOn: deliverOn, work: { (request) throws(FeedError) in
            let data = try source.media(at: location, maxBytes: maxBytes, request: request)
            return (data, data?.count ?? 0)
        }, completion: completion)
    }

    /// What the network does with the next request, drawn before the source is read.
    private enum Plan {
        /// It fails after this many seconds without touching the source.
        case fail(FeedError, after: Double)
        /// The source is read after the latency; the transfer follows.
        case read(latency: Double)
    }

    private func plan(_ what: String, random: LockedRandom? = nil) -> Plan {
        if profile.isOffline { return .fail(FeedError(file: what, reason: "offline (--network offline)", isTransient: true), after: 0.05) }
        let (jitterUnit, failureRoll) = (random ?? self.random).draw()
        let latency = max(0, profile.latency + profile.jitter * jitterUnit)
        if latency >= profile.timeout { return .fail(timedOut(what), after: profile.timeout) }
        if failureRoll < profile.failureRate {
            return .fail(FeedError(file: what, reason: "the connection failed (simulated: \(profile.name))", isTransient: true),
                         after: latency)
        }
        return .read(latency: latency)
    }

    private func timedOut(_ what: String) -> FeedError {
        FeedError(file: what, reason: "timed out after \(NetworkProfile.format(seconds: profile.timeout))", isTransient: true)
    }

    private func perform<Value: Sendable>(
        _ what: String, random: LockedRandom? = nil, qos: DispatchQoS, deliverOn: DispatchQueue,
        work: @escaping @Sendable (FeedRequest) throws(FeedError) -> (Value, Int),
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
        let latency: Double
        switch plan(what, random: random) {
        case .fail(let error, let delay):
            deliver(.failure(error), delay)
            return request
        case .read(let wait):
            latency = wait
        }
        let timedOut = self.timedOut(what)
        let ownQueue = source.waitsOnNetwork
        let read: @Sendable () -> Void = {
            guard !request.isCancelled else { return }
            let started = DispatchTime.now().uptimeNanoseconds
            let value: Value, bytes: Int
            do throws(FeedError) {
                (value, bytes) = try work(request)
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
        queue.asyncAfter(deadline: .now() + latency, qos: qos) {
            // A serial queue of its own is given a thread of its own (overcommit).
            if ownQueue { DispatchQueue(label: "stories.network.request", qos: qos).async(execute: read) } else { read() }
        }
        return request
    }

    // MARK: - Answered at once (virtual clock)

    /// The first page after `cursor`, read now on this thread, with the seconds after which
    /// the network would have delivered it: for replays on a virtual clock, where the
    /// caller waits that long in virtual time. The same draws as the timed calls.
    public func pageNow(after cursor: FeedCursor?, limit: Int = 10) -> (Result<FeedPage, FeedError>, delay: Double) {
        let source = self.source
        return answerNow(cursor.map { "feed page at \($0)" } ?? "first feed page") { () throws(FeedError) in
            let page = try source.page(after: cursor, limit: limit)
            return (page, page.bytes)
        }
    }

    public func storyNow(id: StoryID) -> (Result<StoryLoad, FeedError>, delay: Double) {
        let source = self.source
        return answerNow("stories/\(id).json") { () throws(FeedError) in
            let load = try source.story(id: id)
            return (load, load.bytes)
        }
    }

    public func homeNow() -> (Result<HomeLoad, FeedError>, delay: Double) {
        let source = self.source
        return answerNow("home sections", random: homeRandom) { () throws(FeedError) in
            let load = try source.home()
            return (load, load.bytes)
        }
    }

    public func cachedFirstPageNow(limit: Int = 10) -> FeedPage? {
        source.cachedFirstPage(limit: limit)
    }

    public func mediaNow(at location: String, maxBytes: Int) -> (Result<Data?, FeedError>, delay: Double) {
        let source = self.source
        return answerNow(location) { () throws(FeedError) in
            let data = try source.media(at: location, maxBytes: maxBytes)
            return (data, data?.count ?? 0)
        }
    }

    private func answerNow<Value>(_ what: String, random: LockedRandom? = nil,
                                  work: () throws(FeedError) -> (Value, Int)) -> (Result<Value, FeedError>, delay: Double) {
        let latency: Double
        switch plan(what, random: random) {
        case .fail(let error, let delay): return (.failure(error), delay)
        case .read(let wait): latency = wait
        }
        do throws(FeedError) {
            let (value, bytes) = try work()
            stats.add(bytes: bytes)
            let transfer = profile.transferSeconds(bytes: bytes)
            if latency + transfer > profile.timeout { return (.failure(timedOut(what)), profile.timeout) }
            return (.success(value), latency + transfer)
        } catch {
            return (.failure(error), latency)
        }
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
