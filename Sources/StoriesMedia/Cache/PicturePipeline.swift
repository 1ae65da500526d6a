import Dispatch
import Foundation

/// Prepares pictures for the screen: decodes a file once at a size good for the screen,
/// renders cells for the current size and depth, and hands both to the `RenditionCache` on
/// the main queue. Work runs on a `.userInitiated` queue; a request already in flight is not
/// started twice. Whoever asked is told (on the main queue) so it can redraw.
@MainActor
public final class PicturePipeline {
    public let cache: RenditionCache
    private let queue = DispatchQueue(label: "stories.pictures", qos: .userInitiated, attributes: .concurrent)
    private var inFlight: Set<RenditionKey> = []
    /// Files being decoded, and the newest request that waits for each.
    private var decoding: Set<String> = []
    private var waiting: [String: (key: RenditionKey, url: URL, cellAspect: Double, ready: @MainActor () -> Void)] = [:]
    private let limits: MediaLimits
    /// How many files were decoded (for tests).
    public private(set) var decodeCount = 0

    public init(cache: RenditionCache, limits: MediaLimits = .standard) {
        self.cache = cache
        self.limits = limits
    }

    /// What to draw for a picture now: the rendition when it is ready; otherwise the work
    /// starts (if `url` names a file) and the picture's BlurHash stands in, decoded once per
    /// size (about a millisecond) and kept in the cache. `ready` runs when the photo arrives.
    /// `url` is only worked out when the picture is not ready (this runs every frame).
    public func picture(_ key: RenditionKey, file url: @autoclosure () -> URL?, blurhash: String?, cellAspect: Double = 0.5,
                        ready: @escaping @MainActor () -> Void) -> PictureState {
        let state = cache.state(for: key)
        guard case .loading = state else { return state }
        if let url = url() { request(key, file: url, cellAspect: cellAspect, ready: ready) }
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

    /// Makes sure the rendition for `key` of the file at `url` is (or will be) in the cache.
    /// `cellAspect` is a cell's width over its height.
    public func request(_ key: RenditionKey, file url: URL, cellAspect: Double = 0.5, ready: @escaping @MainActor () -> Void) {
        guard !inFlight.contains(key), !cache.hasFailed(key.location) else { return }
        if case .ready = cache.state(for: key) { return }
        let decoded = cache.decodedImage(for: key.location)
        if decoded == nil {
            guard !decoding.contains(key.location) else {
                waiting[key.location] = (key, url, cellAspect, ready)
                return
            }
            decoding.insert(key.location)
            decodeCount += 1
        }
        inFlight.insert(key)
        let limits = self.limits
        queue.async {
            let result: Result<(RGBImage, CellImage), MediaError>
            do throws(MediaError) {
                let (px, py) = key.symbols.pixelsPerCell
                // Decode large enough for a screen twice this size, so a resize up re-renders
                // from memory.
                let image: RGBImage
                if let decoded {
                    image = decoded
                } else {
                    image = try ImageDecoder.decodeFile(
                        at: url, minimumSize: (key.width * px * 2, key.height * py * 2), limits: limits)
                }
                let cells = CellImage(image, width: key.width, height: key.height, symbols: key.symbols,
                                      depth: key.depth, fit: key.fit, cellAspect: cellAspect)
                result = .success((image, cells))
            } catch {
                result = .failure(error)
            }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.inFlight.remove(key)
                    switch result {
                    case .success(let (image, cells)):
                        if decoded == nil { self.cache.insert(decoded: image, for: key.location) }
                        self.cache.insert(cells, for: key)
                    case .failure(let error):
                        self.cache.recordFailure(error.description, for: key.location)
                    }
                    if decoded == nil {
                        self.decoding.remove(key.location)
                        if let next = self.waiting.removeValue(forKey: key.location) {
                            self.request(next.key, file: next.url, cellAspect: next.cellAspect, ready: next.ready)
                        }
                    }
                    ready()
                }
            }
        }
    }
}
