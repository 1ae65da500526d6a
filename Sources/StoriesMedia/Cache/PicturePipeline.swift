import Dispatch
import Foundation
import StoriesCore

/// Fetches the bytes at a media location, refusing more than `maxBytes`, and calls `done`
/// once, on any queue: the bytes, nil when there are none to fetch (a BlurHash-only photo),
/// or why not. Returns a way to call the fetch off (after which `done` may never come).
public typealias MediaFetch = @Sendable (_ location: String, _ maxBytes: Int,
                                         _ done: @escaping @Sendable (Result<Data?, MediaError>) -> Void) -> MediaFetchCancel
public typealias MediaFetchCancel = @Sendable () -> Void

/// Prepares pictures for the screen, and ahead of it: fetches a file's bytes (through the
/// feed's network profile in the app), decodes them once at a size good for the screen,
/// renders cells for the current size and depth, and puts both in the `RenditionCache`.
///
/// It is also the preload scheduler's executor. Work is one job per file (two requests for
/// the same file share one fetch), ranked by `PreloadPriority` — the visible item, then the
/// story's window, then adjacent stories, then the feed layer — and started in that order
/// within limits: at most `limits.fetches` fetches and `limits.decodes` decodes at once, each
/// decode on a Dispatch queue of its priority's QoS. `prefetch` replaces the wanted set:
/// work that fell out of it is cancelled (a fetch in flight is called off; its job id makes
/// any late answer a no-op). The cache never evicts the visible item or the window
/// (`RenditionCache.pinned`). Bytes fetched, and bytes of files never shown, are counted.
@MainActor
public final class PicturePipeline {
    public struct Limits: Sendable {
        public var fetches: Int
        public var decodes: Int
        public init(fetches: Int = 4, decodes: Int = 2) {
            self.fetches = max(1, fetches)
            self.decodes = max(1, decodes)
        }
    }

    /// Where a file's work stands (the metrics overlay draws it).
    public enum Stage: String, Sendable {
        case queued, fetching, decoding, ready, failed, shown
    }

    /// Where the work runs: Dispatch queues with results handed to the main queue (the
    /// app), at once on the caller's thread (a replay on the virtual clock, where every frame
    /// must come out the same; `fetch` must then answer at once too), or whenever a test
    /// says (`ManualExecutor`).
    public enum Execution: Sendable {
        case background, inline
        case manual(ManualExecutor)
    }

    private struct Job {
        var id: Int
        var key: RenditionKey
        var cellAspect: Double
        var priority: PreloadPriority
        var order: Int
        var phase: Phase
        /// A newer size asked for while this one was in flight: rendered from memory next.
        var newerKey: RenditionKey?
        var waiters: [@MainActor () -> Void] = []

        enum Phase {
            case queued
            case fetching(MediaFetchCancel)
            case fetched(Data)
            /// Pixels already in memory: only the cells for `key` are missing.
            case renderQueued(RGBImage)
            case decoding

            var isQueued: Bool { if case .queued = self { true } else { false } }
            var isDecodable: Bool {
                switch self {
                case .fetched, .renderQueued: true
                default: false
                }
            }
        }
    }

    public let cache: RenditionCache
    public let limits: Limits
    private let fetch: MediaFetch
    private let mediaLimits: MediaLimits
    private let execution: Execution
    private var jobs: [String: Job] = [:]
    private var nextID = 0
    private var wanted: [String: PreloadPriority] = [:]
    private var fetchesRunning = 0
    private var decodesRunning = 0
    /// Locations with no bytes to fetch: their BlurHash is all there is.
    private var withoutBytes: Set<String> = []
    private var fetchedBytes: [String: Int] = [:]
    private var shown: Set<String> = []
    private var fetchesInFlight: Set<String> = []
    /// Files a frame asked for (`picture`) since the last `prefetch`: on screen now, so the
    /// next preload set cannot cancel them.
    private var onScreen: Set<String> = []

    /// Called on the main actor whenever a job moves on (fetched, decoded, ended): the
    /// metrics overlay redraws its window strip, a headless run checks whether all is done.
    public var onProgress: (@MainActor () -> Void)?

    /// How many files were decoded.
    public private(set) var decodeCount = 0
    /// Bytes that came over the (pretend) network, all told.
    public private(set) var bytesFetched = 0
    /// Fetches started for a file whose fetch was still in flight (should stay 0).
    public private(set) var duplicateFetches = 0
    /// The most fetches and decodes seen running at once.
    public private(set) var peakFetches = 0
    public private(set) var peakDecodes = 0

    public init(cache: RenditionCache, limits: Limits = Limits(), mediaLimits: MediaLimits = .standard,
                execution: Execution = .background, fetch: @escaping MediaFetch) {
        self.cache = cache
        self.limits = limits
        self.mediaLimits = mediaLimits
        self.execution = execution
        self.fetch = fetch
    }

    // MARK: - Asking

    /// What to draw for a picture now: the rendition when it is ready; otherwise the work
    /// starts (at the visible priority) and the picture's BlurHash stands in, decoded once
    /// per size (about a millisecond) and kept in the cache. `ready` runs when the photo
    /// arrives.
    public func picture(_ key: RenditionKey, blurhash: String?, cellAspect: Double = 0.5,
                        ready: @escaping @MainActor () -> Void) -> PictureState {
        let state = cache.state(for: key)
        guard case .loading = state else { return state }
        onScreen.insert(key.location)
        request(key, priority: .visible, cellAspect: cellAspect, ready: ready)
        guard let blurhash else { return .loading }
        var blurKey = key
        blurKey.location = "blurhash:" + blurhash
        if case .ready(let cells) = cache.state(for: blurKey) { return .placeholder(cells) }
        let (px, py) = key.symbols.pixelsPerCell
        guard let blur = try? BlurHash.decode(blurhash, width: key.width * px, height: key.height * py) else { return .loading }
        let cells = CellImage(pixels: blur, symbols: key.symbols, depth: key.depth)
        cache.insert(cells, for: blurKey)
        return .placeholder(cells)
    }

    /// Makes sure the rendition for `key` is (or will be) in the cache. `cellAspect` is a
    /// cell's width over its height.
    public func request(_ key: RenditionKey, priority: PreloadPriority = .visible, cellAspect: Double = 0.5,
                        ready: (@MainActor () -> Void)? = nil) {
        guard !cache.hasFailed(key.location), !withoutBytes.contains(key.location) else { return }
        if case .ready = cache.state(for: key) { return }
        if var job = jobs[key.location] {
            if priority < job.priority { job.priority = priority }
            if job.key != key {
                if case .queued = job.phase { job.key = key } else { job.newerKey = key }
            }
            if let ready { job.waiters.append(ready) }
            jobs[key.location] = job
        } else {
            nextID += 1
            let phase: Job.Phase = cache.decodedImage(for: key.location).map { .renderQueued($0) } ?? .queued
            jobs[key.location] = Job(id: nextID, key: key, cellAspect: cellAspect, priority: priority, order: nextID,
                                     phase: phase, waiters: ready.map { [$0] } ?? [])
        }
        pump()
    }

    /// The preload set: these renditions, at these priorities, replace the ones asked for
    /// before. Work for a file in neither set nor drawn since the last call is cancelled
    /// (a photo tapped past stops competing with the one now shown); the visible item and
    /// the window are pinned in the cache.
    public func prefetch(_ targets: [(key: RenditionKey, priority: PreloadPriority)], cellAspect: Double = 0.5) {
        var next: [String: PreloadPriority] = [:]
        for target in targets where next[target.key.location].map({ target.priority < $0 }) ?? true {
            next[target.key.location] = target.priority
        }
        for location in onScreen where next[location] == nil { next[location] = .visible }
        onScreen = []
        wanted = next
        cache.pinned = Set(next.filter { $0.value <= .window }.keys)
        for (location, job) in jobs where next[location] == nil {
            cancel(location, job)
        }
        for target in targets.sorted(by: { $0.priority < $1.priority }) {
            request(target.key, priority: target.priority, cellAspect: cellAspect)
        }
        // A job still wanted is ranked by why it is wanted now.
        for (location, priority) in next {
            if var job = jobs[location], job.priority != priority {
                job.priority = priority
                jobs[location] = job
            }
        }
        pump()
    }

    /// The visible photo was drawn whole: its bytes were not fetched for nothing.
    public func markShown(_ location: String) { shown.insert(location) }

    // MARK: - Reading

    /// Where the work for a file stands, for a rendition of it: nil when nothing was asked.
    public func stage(of key: RenditionKey) -> Stage? {
        if shown.contains(key.location), case .ready = cache.state(peek: key) { return .shown }
        if let job = jobs[key.location] {
            switch job.phase {
            case .queued: return .queued
            case .fetching: return .fetching
            case .fetched, .renderQueued, .decoding: return .decoding
            }
        }
        switch cache.state(peek: key) {
        case .ready: return .ready
        case .failed: return .failed
        default: return cache.decodedImage(for: key.location) == nil ? nil : .ready
        }
    }

    /// Nothing is being fetched, decoded or rendered.
    public var isIdle: Bool { jobs.isEmpty }

    /// Bytes fetched for files that were never shown.
    public var bytesNeverShown: Int {
        fetchedBytes.reduce(0) { $0 + (shown.contains($1.key) ? 0 : $1.value) }
    }

    /// Jobs waiting or running.
    public var jobCount: Int { jobs.count }

    // MARK: - Running

    private func cancel(_ location: String, _ job: Job) {
        switch job.phase {
        case .fetching(let cancelFetch):
            cancelFetch()
            fetchesRunning -= 1
            fetchesInFlight.remove(location)
        case .decoding:
            return // CPU work in flight finishes; its result is kept
        case .queued, .fetched, .renderQueued:
            break
        }
        jobs[location] = nil
    }

    /// Starts the most urgent waiting work within the limits.
    private func pump() {
        while decodesRunning < limits.decodes, let location = next(where: { $0.isDecodable }) {
            startDecode(location)
        }
        while fetchesRunning < limits.fetches, let location = next(where: { $0.isQueued }) {
            startFetch(location)
        }
    }

    private func next(where ready: (Job.Phase) -> Bool) -> String? {
        jobs.filter { ready($0.value.phase) }
            .min { ($0.value.priority, $0.value.order) < ($1.value.priority, $1.value.order) }?.key
    }

    private func startFetch(_ location: String) {
        guard var job = jobs[location] else { return }
        let id = job.id
        if fetchesInFlight.contains(location) { duplicateFetches += 1 }
        fetchesInFlight.insert(location)
        fetchesRunning += 1
        peakFetches = max(peakFetches, fetchesRunning)
        job.phase = .fetching({})
        jobs[location] = job
        let execution = self.execution
        let cancel = fetch(location, mediaLimits.maxBytes) { result in
            Self.onMain(execution) { self.fetched(location, id: id, result) }
        }
        if var current = jobs[location], current.id == id, case .fetching = current.phase {
            current.phase = .fetching(cancel)
            jobs[location] = current
        }
    }

    private func fetched(_ location: String, id: Int, _ result: Result<Data?, MediaError>) {
        if case .success(let data?) = result {
            bytesFetched += data.count
            fetchedBytes[location, default: 0] += data.count
        }
        guard var job = jobs[location], job.id == id, case .fetching = job.phase else { return } // cancelled
        defer { onProgress?() }
        fetchesRunning -= 1
        fetchesInFlight.remove(location)
        switch result {
        case .success(let data?):
            job.phase = .fetched(data)
            jobs[location] = job
        case .success(nil):
            withoutBytes.insert(location)
            finish(location)
        case .failure(let error):
            cache.recordFailure(error.description, for: location)
            finish(location)
        }
        pump()
    }

    private func startDecode(_ location: String) {
        guard var job = jobs[location] else { return }
        let (id, key, cellAspect, limits) = (job.id, job.key, job.cellAspect, mediaLimits)
        let phase = job.phase
        job.phase = .decoding
        jobs[location] = job
        decodesRunning += 1
        peakDecodes = max(peakDecodes, decodesRunning)
        let execution = self.execution
        let work: @Sendable () -> Void = {
            let result: Result<(RGBImage, CellImage, decoded: Bool), MediaError>
            do throws(MediaError) {
                switch phase {
                case .fetched(let data):
                    let (px, py) = key.symbols.pixelsPerCell
                    // Decode large enough for a screen twice this size, so a resize up
                    // re-renders from memory.
                    let image = try ImageDecoder.decode(data, minimumSize: (key.width * px * 2, key.height * py * 2), limits: limits)
                    result = .success((image, Self.cells(image, key: key, cellAspect: cellAspect), true))
                case .renderQueued(let image):
                    result = .success((image, Self.cells(image, key: key, cellAspect: cellAspect), false))
                default:
                    return
                }
            } catch {
                result = .failure(error)
            }
            Self.onMain(execution) { self.decoded(location, id: id, key: key, result) }
        }
        run(work, qos: Self.qos(job.priority))
    }

    private func decoded(_ location: String, id: Int, key: RenditionKey,
                         _ result: Result<(RGBImage, CellImage, decoded: Bool), MediaError>) {
        defer { onProgress?() }
        decodesRunning -= 1
        switch result {
        case .success(let (image, cells, wasDecoded)):
            if wasDecoded {
                decodeCount += 1
                cache.insert(decoded: image, for: location)
            }
            cache.insert(cells, for: key)
        case .failure(let error):
            cache.recordFailure(error.description, for: location)
        }
        if let job = jobs[location], job.id == id, let newer = job.newerKey, case .success(let (image, _, _)) = result {
            // A newer size was asked for meanwhile: render it from the pixels just made.
            var again = job
            again.key = newer
            again.newerKey = nil
            again.phase = .renderQueued(image)
            jobs[location] = again
        } else if jobs[location]?.id == id {
            finish(location)
        }
        pump()
    }

    private func finish(_ location: String) {
        let waiters = jobs.removeValue(forKey: location)?.waiters ?? []
        for waiter in waiters { waiter() }
    }

    private func run(_ work: @escaping @Sendable () -> Void, qos: DispatchQoS.QoSClass) {
        switch execution {
        case .background: DispatchQueue.global(qos: qos).async(execute: work)
        case .inline: work()
        case .manual(let executor): executor.enqueue(work)
        }
    }

    nonisolated private static func onMain(_ execution: Execution, _ body: @escaping @MainActor @Sendable () -> Void) {
        switch execution {
        case .background: DispatchQueue.main.async { MainActor.assumeIsolated(body) }
        case .inline, .manual: MainActor.assumeIsolated(body)
        }
    }

    /// The Dispatch QoS for work of a priority: what the user waits for first.
    nonisolated public static func qos(_ priority: PreloadPriority) -> DispatchQoS.QoSClass {
        switch priority {
        case .visible: .userInitiated
        case .window: .default
        case .adjacent: .utility
        case .feed: .background
        }
    }

    nonisolated private static func cells(_ image: RGBImage, key: RenditionKey, cellAspect: Double) -> CellImage {
        CellImage(image, width: key.width, height: key.height, symbols: key.symbols, depth: key.depth, fit: key.fit, cellAspect: cellAspect)
    }
}

/// Decode work held until a test runs it: the scheduler's tests decide what finishes when.
/// Main-actor only, like the tests that drive it.
public final class ManualExecutor: @unchecked Sendable {
    // Only touched on the main actor (the pipeline and the tests that drive it).
    private var pending: [@Sendable () -> Void] = []

    public init() {}

    public var count: Int { pending.count }

    func enqueue(_ work: @escaping @Sendable () -> Void) { pending.append(work) }

    /// Runs the oldest piece of work; false when there is none.
    @discardableResult
    public func runNext() -> Bool {
        guard !pending.isEmpty else { return false }
        pending.removeFirst()()
        return true
    }

    public func runAll() { while runNext() {} }
}
