import StoriesCells
import Dispatch
import Foundation
import StoriesCore

/// The decoder side of a player, used on the decode queue only (one piece of work at a
/// time), but `lateBefore`, which the main actor moves on.
final class VideoWorker: @unchecked Sendable {
    // `decoder` and `shown` are touched only by work on the pool's serial queue (or inline
    // on the main actor, never both); `late` is guarded by `lock`.
    private var decoder: VideoDecoder?
    /// The last frame handed out, as it is to be shown: the next one settles toward it.
    private var shown: CellImage?
    /// A cell within this many levels of the frame before keeps that frame's colours, so
    /// the terminal rewrites only what visibly changed (as `stories play` does).
    static let tolerance = 3
    private var data: Data?
    private let limits: VideoLimits
    private let count: DecoderCount
    private let lock = NSLock()
    private var late = -1.0
    private var closed = false
    /// Where the frames fall on the video's clock, pass after pass.
    private var clock = PassClock(plays: 1, length: nil)

    struct Step: Sendable {
        var frame: VideoFrame?
        var dropped: Int
        /// With no frame (the stream is over): when its last frame gives way.
        var end: Double = 0
    }

    init(data: Data, limits: VideoLimits, count: DecoderCount) {
        self.data = data
        self.limits = limits
        self.count = count
    }

    /// The time shown now: a frame whose successor is already due is late.
    var lateBefore: Double {
        get { lock.lock(); defer { lock.unlock() }; return late }
        set { lock.lock(); late = newValue; lock.unlock() }
    }

    func open() -> Result<VideoInfo, MediaError> {
        guard !closed, let data else { return .failure(.video("the player was released")) }
        do {
            let decoder = try VideoDecoder(data: data, limits: limits)
            self.decoder = decoder
            clock = PassClock(plays: decoder.info.plays, length: decoder.info.duration)
            self.data = nil // the decoder keeps its own copy
            count.opened()
            return .success(decoder.info)
        } catch {
            return .failure(error)
        }
    }

    /// Decodes on to the next frame worth showing and renders it for `key`. Frames whose
    /// successor is already due (`lateBefore`, read afresh for each) are dropped unscaled.
    /// `loops`: at the end the stream starts again (as many times as the animation plays
    /// through, `VideoInfo.plays`), its times running on (`PassClock`); a call starts at
    /// most three passes.
    func next(key: RenditionKey, cellAspect: Double, lateBefore initial: Double, loops: Bool = false) -> Result<Step, MediaError> {
        guard let decoder else { return .success(Step(frame: nil, dropped: 0, end: clock.lastEnd)) }
        var dropped = 0
        var rewinds = 0
        do {
            while true {
                guard let pts = try decoder.decodeNext() else {
                    guard clock.playsAgain(looping: loops), rewinds < 3, decoder.hasFrame, decoder.rewind() else { break }
                    rewinds += 1
                    clock.nextPass(now: max(initial, lateBefore))
                    continue
                }
                let (time, end) = clock.place(pts: pts, frameEnd: decoder.frameEnd)
                if end <= max(initial, lateBefore), dropped < 600, !clock.isLast(end: end, looping: loops) {
                    dropped += 1
                    continue
                }
                guard let cells = decoder.cells(width: key.width, height: key.height, symbols: key.symbols, depth: key.depth,
                                                fit: key.fit, cellAspect: cellAspect, palette: key.palette) else {
                    return .failure(.video("a frame could not be scaled"))
                }
                var settled = shown?.settled(toward: cells, tolerance: Self.tolerance) ?? cells
                settled.picture = Self.picture(decoder, key: key)
                shown = settled
                return .success(Step(frame: VideoFrame(time: time, cells: settled), dropped: dropped))
            }
            return .success(Step(frame: nil, dropped: dropped, end: clock.lastEnd))
        } catch {
            return .failure(error)
        }
    }

    func rewind() -> Result<VideoInfo, MediaError> {
        guard let decoder else { return .failure(.video("the player was released")) }
        clock.reset()
        guard decoder.rewind() else { return .failure(.video("the video cannot be played again from the start")) }
        return .success(decoder.info)
    }

    func redraw(key: RenditionKey, cellAspect: Double) -> CellImage? {
        shown = decoder?.cells(width: key.width, height: key.height, symbols: key.symbols, depth: key.depth, fit: key.fit,
                               cellAspect: cellAspect, palette: key.palette)
        if let decoder { shown?.picture = Self.picture(decoder, key: key) }
        return shown
    }

    /// The frame last decoded in real pixels, when the key asks for them: its cells at the
    /// cell's pixel size, on the same black as its cells.
    static func picture(_ decoder: VideoDecoder, key: RenditionKey) -> PixelPicture? {
        guard let cell = key.pixels,
              let image = decoder.picture(width: key.width * cell.width, height: key.height * cell.height, fit: key.fit,
                                          pixelAspect: 1) else { return nil }
        return PixelPicture(image: image, cellWidth: cell.width, cellHeight: cell.height)
    }

    func close() {
        if decoder != nil { count.closed() }
        decoder = nil
        data = nil
        closed = true
    }

    deinit {
        if decoder != nil { count.closed() }
    }
}

/// Live decoders of one pool's players, counted where they are opened and closed: the
/// pool's limit is checked against this.
public final class DecoderCount: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var live = 0
    private var highest = 0

    public init() {}

    func opened() {
        lock.lock(); defer { lock.unlock() }
        live += 1
        highest = max(highest, live)
    }

    func closed() {
        lock.lock(); defer { lock.unlock() }
        live -= 1
    }

    public var current: Int { lock.lock(); defer { lock.unlock() }; return live }
    /// The most live at once.
    public var peak: Int { lock.lock(); defer { lock.unlock() }; return highest }
}
