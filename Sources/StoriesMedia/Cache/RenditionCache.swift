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

/// Decoded pictures, their cell renditions and videos' bytes, least recently used first
/// out once the byte budget is exceeded. Decoded pixels are kept so a resize re-renders
/// without the file; a video's bytes so its player starts without fetching them again.
/// Main-actor only: screens read it while drawing; work done elsewhere is handed in.
@MainActor
public final class RenditionCache {
    public let budget: Int
    /// One table for every kind of entry, so inserting, touching and evicting are one rule.
    private var entries: [Slot: (value: Stored, used: UInt64)] = [:]
    private var failures: [String: String] = [:]
    private var clock: UInt64 = 0
    public private(set) var bytesInUse = 0

    private enum Slot: Hashable {
        case decoded(String)
        case rendition(RenditionKey)
        case video(String)

        var location: String {
            switch self {
            case .decoded(let location), .video(let location): location
            case .rendition(let key): key.location
            }
        }
    }

    private enum Stored {
        case image(RGBImage)
        case cells(CellImage)
        case video(Data)

        var bytes: Int {
            switch self {
            case .image(let image): image.byteCount
            case .cells(let cells): cells.byteCount
            case .video(let data): data.count
            }
        }
    }

    public init(budget: Int = 64 << 20) {
        self.budget = budget
    }

    /// Files eviction leaves alone (the visible item and the story's window). When only
    /// they are left, the cache stays over its budget rather than drop what is on screen.
    public var pinned: Set<String> = []

    /// The state without counting as a use (the metrics overlay looks without touching).
    public func state(peek key: RenditionKey) -> PictureState {
        if let reason = failures[key.location] { return .failed(reason) }
        guard case .cells(let cells)? = entries[.rendition(key)]?.value else { return .loading }
        return .ready(cells)
    }

    /// The state, counted as a use of the rendition and of what it was made from.
    public func state(for key: RenditionKey) -> PictureState {
        let state = state(peek: key)
        if case .ready = state {
            clock += 1
            for slot in [Slot.rendition(key), .decoded(key.location), .video(key.location)] { entries[slot]?.used = clock }
        }
        return state
    }

    public func decodedImage(for location: String) -> RGBImage? {
        guard case .image(let image)? = entries[.decoded(location)]?.value else { return nil }
        return image
    }

    public func hasFailed(_ location: String) -> Bool { failures[location] != nil }

    /// A video's bytes, kept so its player starts without fetching them again.
    public func videoData(for location: String) -> Data? {
        guard case .video(let data)? = entries[.video(location)]?.value else { return nil }
        return data
    }

    public func insert(video data: Data, for location: String) { put(.video(data), at: .video(location)) }

    public func insert(decoded image: RGBImage, for location: String) { put(.image(image), at: .decoded(location)) }

    public func insert(_ cells: CellImage, for key: RenditionKey) { put(.cells(cells), at: .rendition(key)) }

    private func put(_ value: Stored, at slot: Slot) {
        clock += 1
        if let old = entries[slot] { bytesInUse -= old.value.bytes }
        entries[slot] = (value, clock)
        bytesInUse += value.bytes
        evict()
    }

    public func recordFailure(_ reason: String, for location: String) {
        failures[location] = reason
    }

    /// Drops least recently used entries until the cache fits its budget.
    private func evict() {
        while bytesInUse > budget {
            guard let oldest = entries.filter({ !pinned.contains($0.key.location) }).min(by: { $0.value.used < $1.value.used })
            else { break }
            entries[oldest.key] = nil
            bytesInUse -= oldest.value.value.bytes
        }
    }
}
