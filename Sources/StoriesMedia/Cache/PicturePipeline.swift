import StoriesCells
import Dispatch
import Foundation
import StoriesCore
import StoriesFeedIO

/// Fetches the bytes at a media location, refusing more than `maxBytes`, and calls `done`
/// once, on any queue: the bytes, nil when there are none to fetch (a BlurHash-only photo),
/// or why not. Returns a way to call the fetch off (after which `done` may never come).
public typealias MediaFetch = @Sendable (_ location: String, _ maxBytes: Int,
                                         _ done: @escaping @Sendable (Result<Data?, MediaError>) -> Void) -> MediaFetchCancel
public typealias MediaFetchCancel = @Sendable () -> Void

/// Prepares pictures for the screen, and ahead of it: fetches a file's bytes (through the
/// feed's network profile in the app), decodes them once at a size good for the screen (a
/// video: its first frame, the poster, and its bytes are kept for its player),
/// renders cells for the current size and depth, and puts both in the `RenditionCache`.
///
/// It is the preload executor: `PreloadPlanner` decides what to prepare, this prepares it.
/// Work is one job per file (two requests for the same file share one fetch), ranked by `PreloadPriority` — the visible item, then the
/// story's window, then adjacent stories, then the feed layer — and started in that order
/// within limits: at most `limits.fetches` fetches and `limits.decodes` decodes at once, each
/// decode on a Dispatch queue of its priority's QoS. `prefetch` replaces the wanted set:
/// work that fell out of it is cancelled (a fetch in flight is called off; its job id makes
/// any late answer a no-op). The cache never evicts the visible item or the window
/// (`RenditionCache.pinned`). Every change of a file's stage is reported through
/// `onNews` (the app turns it into one `.mediaNews` action; a preload set's reports go as one batch); nothing here is ever started by
/// drawing. Bytes fetched are counted.
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

    /// Where the work runs: Dispatch queues with results handed to the main queue (the
    /// app), at once on the caller's thread (a replay on the virtual clock, where every frame
    /// must come out the same; `fetch` must then answer at once too), or whenever a test
    /// says (`ManualExecutor`).
    public enum Execution: Sendable {
        case background, inline
        case manual(any ManualWork)
    }

    struct Job {
        var id: Int
        var key: RenditionKey
        var priority: PreloadPriority
        var order: Int
        var phase: Phase
        /// A newer size asked for while this one was in flight: rendered from memory next.
        var newerKey: RenditionKey?
        /// When its fetch began (`clock`).
        var fetchStarted = 0.0

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
    let execution: Execution
    var jobs: [String: Job] = [:]
    private var nextID = 0
    private var fetchesRunning = 0
    private var decodesRunning = 0
    /// Locations with no bytes to fetch: their BlurHash is all there is.
    var withoutBytes: Set<String> = []
    var fetchedBytes: [String: Int] = [:]

    /// Called on the main actor with a file's stage whenever it changes, and for every
    /// target of `prefetch` as it stands then.
    public var onNews: (@MainActor (_ news: [PictureNews]) -> Void)?
    /// While a preload set is being taken in, its reports wait here and go out as one batch
    /// (one action for the app, not one per target).
    private var batch: [PictureNews]?
    /// Why a picture decoded only in part, by location (said with each `.ready` of it).
    private var damaged: [String: String] = [:]
    /// Photos whose bytes turned out to be an animated GIF (said with each `.ready`: the
    /// app plays them as videos).
    private var animations: Set<String> = []
    /// Voice notes' lengths (seconds), by location: said with their news.
    private var soundLengths: [String: Double] = [:]
    /// Told how long each fetch that brought bytes took, by `clock` (the app's: virtual in
    /// a replay).
    public var onFetchTimed: (@MainActor (_ seconds: Double) -> Void)?
    public var clock: @MainActor () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// How many files were decoded.
    public private(set) var decodeCount = 0
    /// Bytes that came over the (pretend) network, all told.
    public private(set) var bytesFetched = 0
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

    /// Makes sure the rendition for `key` is (or will be) in the cache.
    public func request(_ key: RenditionKey, priority: PreloadPriority = .visible) {
        guard !cache.hasFailed(key.location), !withoutBytes.contains(key.location) else { return }
        if case .ready = cache.state(for: key) { return }
        if var job = jobs[key.location] {
            if priority < job.priority { job.priority = priority }
            if job.key != key {
                if case .queued = job.phase { job.key = key } else { job.newerKey = key }
            }
            jobs[key.location] = job
        } else {
            nextID += 1
            let phase: Job.Phase = cache.decodedImage(for: key.location).map { .renderQueued($0) } ?? .queued
            jobs[key.location] = Job(id: nextID, key: key, priority: priority, order: nextID, phase: phase)
            report(key.location, phase.isQueued ? .queued : .decoding)
        }
        pump()
    }

    /// The preload set: these renditions, at these priorities, replace the ones asked for
    /// before. Work for a file not in the set is cancelled (a photo tapped past stops
    /// competing with the one now shown); the visible item and the window are pinned in
    /// the cache. A target with a BlurHash and a priority up to `.adjacent` gets its
    /// stand-in made now (about a millisecond), so the first frame that shows it has it.
    /// Each target's stage is reported as it stands. A target in `waiting` (its last fetch
    /// failed for a reason that may pass, and the reducer's retry is not due) has its
    /// stand-in made, and nothing asked or reported: the reducer says when it is asked again.
    public func prefetch(_ targets: [(key: RenditionKey, priority: PreloadPriority, blurhash: String?)], waiting: Set<String> = []) {
        batch = batch ?? []
        var next: [String: PreloadPriority] = [:]
        for target in targets where !waiting.contains(target.key.location) && (next[target.key.location].map({ target.priority < $0 }) ?? true) {
            next[target.key.location] = target.priority
        }
        // Pinned: the window's, waiting or not (a waiting photo's stand-in stays).
        cache.pinned = Set(targets.filter { $0.priority <= .window }.map(\.key.location))
        for (location, job) in jobs where next[location] == nil {
            cancel(location, job)
        }
        let ordered = targets.sorted { $0.priority < $1.priority }
        for target in ordered where target.priority <= .adjacent {
            if let blurhash = target.blurhash { preparePlaceholder(for: target.key, blurhash: blurhash) }
        }
        let asked = ordered.filter { !waiting.contains($0.key.location) }
        for target in asked {
            request(target.key, priority: target.priority)
        }
        // A job still wanted is ranked by why it is wanted now.
        for (location, priority) in next {
            if var job = jobs[location], job.priority != priority {
                job.priority = priority
                jobs[location] = job
            }
        }
        pump()
        for target in asked { report(target.key.location, status(of: target.key) ?? .queued) }
        let news = batch ?? []
        batch = nil
        if !news.isEmpty { onNews?(news) }
    }

    /// The pixel size a feed gives for a photo or video (`Media.width`, `.height`), by
    /// location: its placeholder takes that shape. Bounded: a feed of many photos keeps the
    /// latest 4096.
    var shapes: [String: (width: Int, height: Int)] = [:]

    // MARK: - Running

    private func cancel(_ location: String, _ job: Job) {
        switch job.phase {
        case .fetching(let cancelFetch):
            cancelFetch()
            fetchesRunning -= 1
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
        fetchesRunning += 1
        peakFetches = max(peakFetches, fetchesRunning)
        job.phase = .fetching({})
        job.fetchStarted = clock()
        jobs[location] = job
        report(location, .fetching)
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
        fetchesRunning -= 1
        if case .success(_?) = result { onFetchTimed?(clock() - job.fetchStarted) }
        switch result {
        case .success(let data?):
            job.phase = .fetched(data)
            jobs[location] = job
            report(location, .decoding)
        case .success(nil):
            withoutBytes.insert(location)
            jobs[location] = nil
            report(location, .ready)
        case .failure(let error) where error.isTransient:
            jobs[location] = nil // kept out of the next sets (`waiting`) until the reducer's retry
            report(location, .unreachable(error.description))
        case .failure(let error):
            cache.recordFailure(error.description, for: location)
            jobs[location] = nil
            report(location, .failed(error.description))
        }
        pump()
    }

    private func startDecode(_ location: String) {
        guard var job = jobs[location] else { return }
        let (id, key, limits) = (job.id, job.key, mediaLimits)
        let phase = job.phase
        job.phase = .decoding
        jobs[location] = job
        decodesRunning += 1
        peakDecodes = max(peakDecodes, decodesRunning)
        let execution = self.execution
        let work: @Sendable () -> Void = {
            let result: Result<(RGBImage, CellImage, decoded: Bool, video: MovingBytes?), MediaError>
            do throws(MediaError) {
                switch phase {
                case .fetched(let data):
                    let (px, py) = key.symbols.pixelsPerCell
                    let (fx, fy) = CellImage.pixelsPerCell(symbols: key.symbols, depth: key.depth, cells: key.width * key.height)
                    // Decode large enough for a screen twice this size, so a resize up
                    // re-renders from memory, and for the fine pixels a still's eighths are
                    // found in (8×8 a cell for octants: not blown up from the grid's 2×4).
                    // A video's poster is its first frame; its bytes are kept for its player.
                    // Real pixels: at least the cells' own pixel size.
                    let (cw, ch) = key.pixels.map { ($0.width, $0.height) } ?? (0, 0)
                    let minimum = (max(key.width * px * 2, key.width * fx, key.width * cw),
                                   max(key.height * py * 2, key.height * fy, key.height * ch))
                    let still = try StillDecoder.still(data, minimumSize: minimum, limits: limits)
                    let image = still.image
                    var video: MovingBytes?
                    if ImageFormat.sniff(data) == nil {
                        // Kept for a player, a still GIF's too (a feed's video item may be
                        // one), and a voice note's for its sound.
                        let animated = VideoContainer.sniff(data) == .gif && GIFInfo.read(data)?.isAnimated == true
                        video = MovingBytes(data: data, isAnimation: animated, soundSeconds: still.soundSeconds)
                    }
                    result = .success((image, Self.cells(image, key: key), true, video))
                case .renderQueued(let image):
                    result = .success((image, Self.cells(image, key: key), false, nil))
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
                         _ result: Result<(RGBImage, CellImage, decoded: Bool, video: MovingBytes?), MediaError>) {
        decodesRunning -= 1
        switch result {
        case .success(let (image, cells, wasDecoded, video)):
            if wasDecoded {
                if image.damage != nil, damaged[location] == nil, damaged.count >= 1_000 { damaged.removeAll() } // bounded
                damaged[location] = image.damage
                decodeCount += 1
                cache.insert(decoded: image, for: location)
            }
            if let video {
                cache.insert(video: video.data, for: location)
                if video.isAnimation, !animations.contains(location) {
                    if animations.count >= 1_000 { animations.removeAll() } // bounded
                    animations.insert(location)
                }
                if let seconds = video.soundSeconds {
                    if soundLengths.count >= 1_000 { soundLengths.removeAll() } // bounded
                    soundLengths[location] = seconds
                }
            }
            cache.insert(cells, for: key)
        case .failure(let error):
            cache.recordFailure(error.description, for: location)
        }
        if let job = jobs[location], job.id == id, let newer = job.newerKey, case .success(let (image, _, _, _)) = result {
            // A newer size was asked for meanwhile: render it from the pixels just made.
            var again = job
            again.key = newer
            again.newerKey = nil
            again.phase = .renderQueued(image)
            jobs[location] = again
        } else if jobs[location]?.id == id { // a job being decoded is never cancelled: it is still here
            jobs[location] = nil
            switch result {
            case .success: report(location, .ready)
            case .failure(let error): report(location, .failed(error.description))
            }
        }
        pump()
    }

    private func report(_ location: String, _ status: MediaStatus) {
        var news = PictureNews(location, status)
        // A picture that decoded only in part is ready, with why (shown with a notice).
        if status == .ready {
            news.damage = damaged[location]
            news.isAnimation = animations.contains(location)
            news.soundSeconds = soundLengths[location]
        }
        if batch != nil {
            batch?.append(news)
        } else {
            onNews?([news])
        }
    }

    /// A video's bytes, or an animated GIF's, kept for its player.
    struct MovingBytes: Sendable {
        var data: Data
        var isAnimation: Bool
        /// Sound alone (a voice note): its length.
        var soundSeconds: Double?
    }

    nonisolated private static func cells(_ image: RGBImage, key: RenditionKey) -> CellImage {
        var cells = CellImage(image, width: key.width, height: key.height, symbols: key.symbols, depth: key.depth, fit: key.fit,
                              cellAspect: key.cellAspect, palette: key.palette)
        if let cell = key.pixels {
            cells.picture = PixelPicture(image, columns: key.width, rows: key.height, cell: cell, fit: key.fit)
        }
        return cells
    }
}
