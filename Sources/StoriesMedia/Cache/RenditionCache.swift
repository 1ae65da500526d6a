import StoriesCells
import Foundation
import StoriesCore
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

/// Cell renditions, videos' bytes and the decoded pixels of the pinned items, least
/// recently used first out once the byte budget is exceeded. The budget is sized from the
/// screen (`budget(width:height:)`): what the preload window can hold at this size, not a
/// fixed amount, so memory stays flat however far a person travels. Decoded pixels are
/// kept only while their item is pinned (the visible item and the story's window: a resize
/// or `f` re-renders those without the file) and let go once it is not; a video's bytes are
/// kept so its player starts without fetching them again. What live video players hold
/// (`reserved`) counts against the same budget.
/// Main-actor only: screens read it while drawing; work done elsewhere is handed in.
@MainActor
public final class RenditionCache {
    public private(set) var budget: Int
    /// Bytes held outside the cache that count against its budget: the live video players'
    /// frames and decoders.
    public var reserved: @MainActor () -> Int = { 0 }
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
        self.budget = max(0, budget)
    }

    /// The smallest budget, whatever the screen.
    public static let minimumBudget = 8 << 20
    /// Preload targets at most (the one shown and `PreloadPlanner.maxAhead`), and pinned
    /// items at most (the one shown, the deepest window ahead, the one behind).
    static let targets = 1 + PreloadPlanner.maxAhead
    static let pinnedItems = 1 + NavigationPace.maxLead + PreloadPlanner.windowBehind

    /// The budget for a screen of `width × height` cells: every preload target's rendition
    /// and BlurHash stand-in at full screen size, the pinned items' decoded pixels (decoded
    /// for a screen twice the size or for a still's fine pixels, up to twice again for the
    /// DCT's scale steps, 3 bytes a pixel) and half a megabyte of video bytes for each target; never under
    /// `minimumBudget`. What is left over keeps the way back: renditions of items already
    /// passed stay until newer ones need the room.
    public static func budget(width: Int, height: Int, symbols: CellSymbols = .half) -> Int {
        let cells = max(1, width) * max(1, height)
        let (px, py) = symbols.pixelsPerCell
        // Or decoded for a still's fine pixels (eighths), where those are more.
        let (fx, fy) = symbols != .half && cells <= CellImage.fineCellLimit ? CellImage.finePixels(symbols) : (0, 0)
        let rendition = cells * MemoryLayout<ImageCell>.stride
        let decoded = cells * max(px * py * 4, fx * fy) * 4 * 3
        let needed = targets * (2 * rendition + (512 << 10)) + pinnedItems * decoded
        return max(minimumBudget, needed)
    }

    /// A new budget (the screen changed size); evicts at once when it shrank.
    public func setBudget(_ bytes: Int) {
        budget = max(0, bytes)
        evict()
    }

    /// Files eviction leaves alone (the visible item and the story's window). When only
    /// they are left, the cache stays over its budget rather than drop what is on screen.
    /// Decoded pixels of a file that stops being pinned are let go: its renditions exist.
    public var pinned: Set<String> = [] {
        didSet {
            for slot in entries.keys {
                if case .decoded(let location) = slot, !pinned.contains(location) { drop(slot) }
            }
        }
    }

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

    /// Keeps a file's decoded pixels while it is pinned; otherwise they are let go at once
    /// (its rendition is what is drawn; another size fetches the file again).
    public func insert(decoded image: RGBImage, for location: String) {
        guard pinned.contains(location) else { return }
        put(.image(image), at: .decoded(location))
    }

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

    private func drop(_ slot: Slot) {
        guard let old = entries.removeValue(forKey: slot) else { return }
        bytesInUse -= old.value.bytes
    }

    /// Drops least recently used entries until the cache and what is reserved fit the
    /// budget: one pass that sorts the candidates, not a search per entry.
    private func evict() {
        let limit = budget - max(0, reserved())
        guard bytesInUse > limit else { return }
        let candidates = entries.filter { !pinned.contains($0.key.location) }.sorted { $0.value.used < $1.value.used }
        for (slot, _) in candidates {
            guard bytesInUse > limit else { break }
            drop(slot)
        }
    }
}
