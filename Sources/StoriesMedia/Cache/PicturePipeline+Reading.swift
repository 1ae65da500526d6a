import Foundation
import StoriesCells
import StoriesCore

/// What the pipeline says of its work, the shapes a feed gives ahead of the pixels, and the
/// BlurHash drawn in that shape meanwhile.
extension PicturePipeline {
    /// Tells the pipeline a picture's size before its pixels come (its BlurHash is drawn in
    /// that shape). Sizes outside 1…100 000 pixels a side are not taken.
    public func noteShape(of location: String, width: Int?, height: Int?) {
        guard let width, let height, (1...100_000).contains(width), (1...100_000).contains(height) else { return }
        if shapes[location] == nil, shapes.count >= 4096 { shapes.removeAll() }
        shapes[location] = (width, height)
    }

    // MARK: - Reading

    /// Where the work for a rendition stands; nil when nothing was asked of it.
    public func status(of key: RenditionKey) -> MediaStatus? {
        if case .failed(let reason) = cache.state(peek: key) { return .failed(reason) }
        if withoutBytes.contains(key.location) { return .ready } // its BlurHash is all there is
        if let job = jobs[key.location] {
            switch job.phase {
            case .queued: return .queued
            case .fetching: return .fetching
            case .fetched, .renderQueued, .decoding: return .decoding
            }
        }
        if case .ready = cache.state(peek: key) { return .ready }
        return nil
    }

    /// Nothing is being fetched, decoded or rendered.
    public var isIdle: Bool { jobs.isEmpty }

    /// Bytes fetched for files that are not among those `shown`.
    public func bytesNeverShown(shown: Set<String>) -> Int {
        fetchedBytes.reduce(0) { $0 + (shown.contains($1.key) ? 0 : $1.value) }
    }

    /// Jobs waiting or running.
    public var jobCount: Int { jobs.count }

    /// The BlurHash decoded at the rendition's size, kept in the cache under
    /// `RenditionKey.placeholder`.
    func preparePlaceholder(for key: RenditionKey, blurhash: String) {
        let blurKey = key.placeholder(blurhash)
        if case .ready = cache.state(peek: key) { return }
        if case .ready = cache.state(peek: blurKey) { return }
        let (px, py) = key.symbols.pixelsPerCell
        if key.fit == .fit, let shape = shapes[key.location] {
            // The photo's own shape, laid out as the photo will be (whole, over a backdrop
            // made from it): nothing moves when the photo takes its place.
            let long = 48.0
            let scale = long / Double(max(shape.width, shape.height))
            let width = max(1, Int((Double(shape.width) * scale).rounded()))
            let height = max(1, Int((Double(shape.height) * scale).rounded()))
            guard let blur = try? BlurHash.decode(blurhash, width: width, height: height) else { return }
            cache.insert(CellImage(blur, width: key.width, height: key.height, symbols: key.symbols, depth: key.depth,
                                   fit: .fit, cellAspect: key.cellAspect, eighths: false, palette: key.palette), for: blurKey)
            return
        }
        guard let blur = try? BlurHash.decode(blurhash, width: key.width * px, height: key.height * py) else { return }
        cache.insert(CellImage(pixels: blur, symbols: key.symbols, depth: key.depth, palette: key.palette), for: blurKey)
    }
}
