import Foundation
/// What the viewer can draw for a picture right now.
public enum PictureState: Equatable, Sendable {
    /// Not asked for yet, or being decoded, with nothing to show meanwhile.
    case loading
    /// Being decoded; its BlurHash stands in.
    case placeholder(CellImage)
    case ready(CellImage)
    /// It cannot be shown; the reason is said on the item.
    case failed(String)
}

/// Which rendition of a picture: the file, the cell size, the colour depth, the symbols,
/// fill or fit.
public struct RenditionKey: Hashable, Sendable {
    public var location: String
    public var width: Int
    public var height: Int
    public var depth: ColorDepth
    public var symbols: CellSymbols
    public var fit: FitMode

    public init(location: String, width: Int, height: Int, depth: ColorDepth, symbols: CellSymbols = .half,
                fit: FitMode = .fill) {
        self.location = location
        self.width = width
        self.height = height
        self.depth = depth
        self.symbols = symbols
        self.fit = fit
    }
}

extension RenditionKey {
    /// Where the BlurHash stand-in for this rendition is kept: the same size and depth,
    /// under the hash instead of the file.
    public func placeholder(_ blurhash: String) -> RenditionKey {
        var key = self
        key.location = "blurhash:" + blurhash
        return key
    }
}

/// Decoded pictures and their cell renditions, least recently used first out once the byte
/// budget is exceeded. Decoded pixels are kept so a resize re-renders without the file.
/// Main-actor only: screens read it while drawing; work done elsewhere is handed in.
@MainActor
public final class RenditionCache {
    public let budget: Int
    private var decoded: [String: (image: RGBImage, used: UInt64)] = [:]
    private var renditions: [RenditionKey: (cells: CellImage, used: UInt64)] = [:]
    private var videos: [String: (data: Data, used: UInt64)] = [:]
    private var failures: [String: String] = [:]
    private var clock: UInt64 = 0
    public private(set) var bytesInUse = 0

    public init(budget: Int = 64 << 20) {
        self.budget = budget
    }

    /// Files eviction leaves alone (the visible item and the story's window). When only
    /// they are left, the cache stays over its budget rather than drop what is on screen.
    public var pinned: Set<String> = []

    /// The state without counting as a use (the metrics overlay looks without touching).
    public func state(peek key: RenditionKey) -> PictureState {
        if let reason = failures[key.location] { return .failed(reason) }
        return renditions[key].map { .ready($0.cells) } ?? .loading
    }

    public func state(for key: RenditionKey) -> PictureState {
        if let reason = failures[key.location] { return .failed(reason) }
        guard let entry = renditions[key] else { return .loading }
        clock += 1
        renditions[key] = (entry.cells, clock)
        decoded[key.location]?.used = clock
        videos[key.location]?.used = clock
        return .ready(entry.cells)
    }

    public func decodedImage(for location: String) -> RGBImage? {
        decoded[location]?.image
    }

    public func hasFailed(_ location: String) -> Bool { failures[location] != nil }

    /// A video's bytes, kept so its player starts without fetching them again.
    public func videoData(for location: String) -> Data? {
        videos[location]?.data
    }

    public func insert(video data: Data, for location: String) {
        clock += 1
        if let old = videos[location] { bytesInUse -= old.data.count }
        videos[location] = (data, clock)
        bytesInUse += data.count
        evict()
    }

    public func insert(decoded image: RGBImage, for location: String) {
        clock += 1
        if let old = decoded[location] { bytesInUse -= old.image.byteCount }
        decoded[location] = (image, clock)
        bytesInUse += image.byteCount
        evict()
    }

    public func insert(_ cells: CellImage, for key: RenditionKey) {
        clock += 1
        if let old = renditions[key] { bytesInUse -= old.cells.byteCount }
        renditions[key] = (cells, clock)
        bytesInUse += cells.byteCount
        evict()
    }

    public func recordFailure(_ reason: String, for location: String) {
        failures[location] = reason
    }

    /// Drops least recently used entries until the cache fits its budget.
    private func evict() {
        while bytesInUse > budget {
            let oldestRendition = renditions.filter { !pinned.contains($0.key.location) }.min { $0.value.used < $1.value.used }
            let oldestDecoded = decoded.filter { !pinned.contains($0.key) }.min { $0.value.used < $1.value.used }
            let oldestVideo = videos.filter { !pinned.contains($0.key) }.min { $0.value.used < $1.value.used }
            if let v = oldestVideo, v.value.used <= min(oldestRendition?.value.used ?? .max, oldestDecoded?.value.used ?? .max) {
                videos[v.key] = nil
                bytesInUse -= v.value.data.count
            } else if let r = oldestRendition, r.value.used <= (oldestDecoded?.value.used ?? .max) {
                renditions[r.key] = nil
                bytesInUse -= r.value.cells.byteCount
            } else if let d = oldestDecoded {
                decoded[d.key] = nil
                bytesInUse -= d.value.image.byteCount
            } else {
                break
            }
        }
    }
}
