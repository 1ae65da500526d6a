import Dispatch
import Foundation

/// Fetches the bytes at a media location, refusing more than `maxBytes`, and calls `done`
/// once, on any queue: the bytes, nil when there are none to fetch (a BlurHash-only photo),
/// or why not.
public typealias MediaFetch = @Sendable (_ location: String, _ maxBytes: Int,
                                         _ done: @escaping @Sendable (Result<Data?, MediaError>) -> Void) -> Void

/// Prepares pictures for the screen: fetches a file's bytes (through the feed's network
/// profile in the app), decodes them once at a size good for the screen, renders cells for
/// the current size and depth, and hands both to the `RenditionCache` on the main queue.
/// Decoding runs on a `.userInitiated` queue; a request already in flight is not started
/// twice. Whoever asked is told (on the main queue) so it can redraw.
@MainActor
public final class PicturePipeline {
    public let cache: RenditionCache
    private let queue = DispatchQueue(label: "stories.pictures", qos: .userInitiated, attributes: .concurrent)
    private let fetch: MediaFetch
    private var inFlight: Set<RenditionKey> = []
    /// Files being fetched and decoded, and the newest request that waits for each.
    private var decoding: Set<String> = []
    private var waiting: [String: (key: RenditionKey, cellAspect: Double, ready: @MainActor () -> Void)] = [:]
    /// Locations with no bytes to fetch: their BlurHash is all there is.
    private var withoutBytes: Set<String> = []
    /// Who to tell when a fetch and decode ends.
    private var readyCallbacks: [RenditionKey: @MainActor () -> Void] = [:]
    private let limits: MediaLimits
    /// Nothing is being fetched, decoded or rendered.
    public var isIdle: Bool { inFlight.isEmpty && decoding.isEmpty }
    /// How many files were decoded (for tests).
    public private(set) var decodeCount = 0

    /// Where the work runs: on the pipeline's queue with results handed to the main queue
    /// (the app), or at once on the caller's thread (a replay on the virtual clock, where
    /// every frame must come out the same; `fetch` must then answer at once too).
    public enum Execution: Sendable { case background, inline }
    private let execution: Execution

    public init(cache: RenditionCache, limits: MediaLimits = .standard, execution: Execution = .background,
                fetch: @escaping MediaFetch) {
        self.cache = cache
        self.limits = limits
        self.execution = execution
        self.fetch = fetch
    }

    private func work(_ body: @escaping @Sendable () -> Void) {
        if execution == .inline { body() } else { queue.async(execute: body) }
    }

    nonisolated private static func onMain(_ execution: Execution, _ body: @escaping @MainActor @Sendable () -> Void) {
        if execution == .inline {
            MainActor.assumeIsolated(body)
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated(body) }
        }
    }

    /// What to draw for a picture now: the rendition when it is ready; otherwise the work
    /// starts and the picture's BlurHash stands in, decoded once per size (about a
    /// millisecond) and kept in the cache. `ready` runs when the photo arrives.
    public func picture(_ key: RenditionKey, blurhash: String?, cellAspect: Double = 0.5,
                        ready: @escaping @MainActor () -> Void) -> PictureState {
        let state = cache.state(for: key)
        guard case .loading = state else { return state }
        request(key, cellAspect: cellAspect, ready: ready)
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
    public func request(_ key: RenditionKey, cellAspect: Double = 0.5, ready: @escaping @MainActor () -> Void) {
        guard !inFlight.contains(key), !cache.hasFailed(key.location), !withoutBytes.contains(key.location) else { return }
        if case .ready = cache.state(for: key) { return }
        if let decoded = cache.decodedImage(for: key.location) {
            // Pixels in memory: only the cells for this size are missing.
            inFlight.insert(key)
            let execution = self.execution
            work {
                let cells = Self.cells(decoded, key: key, cellAspect: cellAspect)
                Self.onMain(execution) {
                    self.inFlight.remove(key)
                    self.cache.insert(cells, for: key)
                    ready()
                }
            }
            return
        }
        guard !decoding.contains(key.location) else {
            waiting[key.location] = (key, cellAspect, ready)
            return
        }
        decoding.insert(key.location)
        inFlight.insert(key)
        readyCallbacks[key] = ready
        let limits = self.limits, queue = self.queue, execution = self.execution
        fetch(key.location, limits.maxBytes) { fetched in
            let decode: @Sendable () -> Void = {
                let result: Result<(RGBImage, CellImage)?, MediaError>
                do throws(MediaError) {
                    if let data = try fetched.get() {
                        let (px, py) = key.symbols.pixelsPerCell
                        // Decode large enough for a screen twice this size, so a resize up
                        // re-renders from memory.
                        let image = try ImageDecoder.decode(data, minimumSize: (key.width * px * 2, key.height * py * 2), limits: limits)
                        result = .success((image, Self.cells(image, key: key, cellAspect: cellAspect)))
                    } else {
                        result = .success(nil)
                    }
                } catch {
                    result = .failure(error)
                }
                Self.onMain(execution) { self.finish(key, result) }
            }
            if execution == .inline { decode() } else { queue.async(execute: decode) }
        }
    }

    private func finish(_ key: RenditionKey, _ result: Result<(RGBImage, CellImage)?, MediaError>) {
        inFlight.remove(key)
        decoding.remove(key.location)
        let waiter = waiting.removeValue(forKey: key.location)
        switch result {
        case .success(let (image, cells)?):
            decodeCount += 1
            cache.insert(decoded: image, for: key.location)
            cache.insert(cells, for: key)
        case .success(nil):
            withoutBytes.insert(key.location)
        case .failure(let error):
            cache.recordFailure(error.description, for: key.location)
        }
        if let waiter { request(waiter.key, cellAspect: waiter.cellAspect, ready: waiter.ready) }
        readyCallbacks.removeValue(forKey: key)?()
    }

    nonisolated private static func cells(_ image: RGBImage, key: RenditionKey, cellAspect: Double) -> CellImage {
        CellImage(image, width: key.width, height: key.height, symbols: key.symbols, depth: key.depth, fit: key.fit, cellAspect: cellAspect)
    }
}
