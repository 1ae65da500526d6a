import StoriesCells
import CStoriesVideo
import Foundation
import StoriesCore
import StoriesFeedIO

/// What a video's headers say, bounded: sizes are the upright picture (after rotation).
public struct VideoInfo: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Degrees clockwise the coded picture is turned to stand upright (0, 90, 180, 270).
    public var rotation: Int
    /// Frames a second the container declares; nil when it does not say.
    public var fps: Double?
    /// Seconds; nil when the container does not say (the feed's duration stands in).
    public var duration: Double?
    /// The file carries sound (played silently for now: the viewer shows a muted mark).
    public var hasAudio: Bool
    public var codec: String
    public var container: String
    /// How many times the picture plays through: once for a video; for a GIF what its
    /// loop block says, as browsers read it (none: once; 0: for ever, nil here; N: N + 1).
    public var plays: Int?

    public init(width: Int, height: Int, rotation: Int = 0, fps: Double? = nil, duration: Double? = nil,
                hasAudio: Bool = false, codec: String = "", container: String = "", plays: Int? = 1) {
        self.width = width
        self.height = height
        self.rotation = rotation
        self.fps = fps
        self.duration = duration
        self.hasAudio = hasAudio
        self.codec = codec
        self.container = container
        self.plays = plays
    }

    /// Seconds between frames for the frame timer: the declared rate, bounded to 1…60 a
    /// second (30 when unknown).
    public var frameInterval: Double { 1 / min(60, max(1, fps ?? 30)) }

    /// An animation (a GIF): its item lasts its own time, the animation played through as
    /// many times as `plays` says within it (its last frame held after the last pass), not
    /// ended with the stream as a video's is.
    public var loops: Bool { container == "gif" }
}

/// Limits checked from a video's headers before a decoder or a frame exists.
public struct VideoLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxPixels: Int
    public var maxStreams: Int
    public var maxFPS: Double
    public var maxDuration: Double

    public init(maxBytes: Int = 64 << 20, maxPixels: Int = 4096 * 4096, maxStreams: Int = 16, maxFPS: Double = 240,
                maxDuration: Double = 600) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.maxStreams = maxStreams
        self.maxFPS = maxFPS
        self.maxDuration = maxDuration
    }

    public static let standard = VideoLimits()
}

/// One video decoder (FFmpeg through `CStoriesVideo`), opened from bytes in memory. Not
/// thread-safe: a `VideoPlayer` uses it from one serial queue at a time, a caller that
/// owns it alone (`stories play`, a preload job) from its own thread.
public final class VideoDecoder: @unchecked Sendable {
    // Used by one thread at a time, by contract above; the C context is never shared.
    private let handle: OpaquePointer
    public private(set) var info: VideoInfo
    /// Presentation time of the frame last decoded (seconds from the start).
    public private(set) var time: Double = 0
    /// How long the frame last decoded is shown, when its stream says (a GIF's delay).
    public private(set) var frameDuration: Double?
    public private(set) var hasFrame = false

    /// Opens a video. Throws a `MediaError` that says why it cannot play: empty, too big,
    /// not a video, no picture, an unknown codec, limits exceeded, corrupt.
    public init(data: Data, limits: VideoLimits = .standard) throws(MediaError) {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= limits.maxBytes else { throw .fileTooLarge(bytes: data.count, limit: limits.maxBytes) }
        guard VideoContainer.sniff(data) != nil else { throw .unknownMedia }
        VideoLog.install()
        var cLimits = stories_video_limits(max_pixels: Int64(limits.maxPixels), max_streams: Int32(limits.maxStreams),
                                           max_fps: limits.maxFPS, max_duration: limits.maxDuration)
        var raw = stories_video_info()
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            stories_video_open(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &cLimits, &handle, &raw,
                               &message, message.count)
        }
        let reason = Self.string(message)
        guard status == Int32(STORIES_VIDEO_OK), let handle else {
            switch Int(status) {
            case STORIES_VIDEO_NO_MEMORY: throw .outOfMemory(reason)
            case STORIES_VIDEO_NO_STREAM: throw .noPicture(reason.isEmpty ? "the file has no video stream" : reason)
            default: throw .video(reason.isEmpty ? "cannot be played" : reason)
            }
        }
        self.handle = handle
        let turned = raw.rotation == 90 || raw.rotation == 270
        info = VideoInfo(width: Int(turned ? raw.height : raw.width), height: Int(turned ? raw.width : raw.height),
                         rotation: Int(raw.rotation), fps: raw.fps > 0 ? raw.fps : nil,
                         duration: raw.duration > 0 ? raw.duration : nil, hasAudio: raw.has_audio != 0,
                         codec: Self.string(withUnsafeBytes(of: raw.codec) { Array($0.bindMemory(to: CChar.self)) }),
                         container: Self.string(withUnsafeBytes(of: raw.container) { Array($0.bindMemory(to: CChar.self)) }))
        // A GIF: how many times it plays, and its frame grid as its rate (FFmpeg gives the
        // average, a 50 ms frame among 500 ms ones then falls between the timer's ticks).
        if info.container == "gif", let gif = GIFInfo.read(data) {
            info.plays = gif.plays
            if let tick = gif.tick { info.fps = 1 / max(0.02, tick) }
        }
    }

    deinit { stories_video_close(handle) }

    /// Decodes the next frame without scaling it; returns its time, or nil at the end.
    /// Throws only when the stream can go no further (frames already shown stay shown).
    public func decodeNext() throws(MediaError) -> Double? {
        var pts = 0.0
        var message = [CChar](repeating: 0, count: 256)
        let status = stories_video_next(handle, &pts, &message, message.count)
        if status < 0 { throw .video(Self.string(message)) }
        guard status == 1 else { return nil }
        hasFrame = true
        time = pts
        // A GIF's delay is its frame's time on screen (at most 655 s by its format); another
        // container's packet duration is trusted for a second at most (or one frame at its
        // rate), so a lying packet cannot hold an item on screen.
        let duration = stories_video_frame_duration(handle)
        let bound = info.container == "gif" ? 656 : max(1, info.frameInterval)
        frameDuration = duration > 0 ? min(duration, bound) : nil
        return pts
    }

    /// When the frame last decoded gives way to the next: its time and its own duration,
    /// or one frame at the declared rate where the stream does not say.
    public var frameEnd: Double { time + (frameDuration ?? info.frameInterval) }

    /// Frames that failed to decode and were skipped.
    public var corruptFrames: Int { Int(stories_video_corrupt_frames(handle)) }

    /// Back to the first frame (looping).
    public func rewind() -> Bool {
        hasFrame = false
        return stories_video_rewind(handle) >= 0
    }

    /// The frame last decoded as `width`×`height` upright pixels, scaled by swscale straight
    /// from the decoder's planes: filled (centre crop) or fitted (letterboxed on black).
    /// `pixelAspect` is an output pixel's width over its height. Nil with no frame.
    public func picture(width: Int, height: Int, fit: FitMode, pixelAspect: Double) -> RGBImage? {
        guard hasFrame, width > 0, height > 0, width * height <= 16_000_000 else { return nil }
        let turned = info.rotation == 90 || info.rotation == 270
        let sourceW = Double(info.width), sourceH = Double(info.height) // upright
        let frameAspect = Double(width) * pixelAspect / Double(height)
        let imageAspect = sourceW / sourceH
        // The crop (fill) in upright coordinates, and the inner size (fit).
        var crop = (x: 0.0, y: 0.0, w: sourceW, h: sourceH)
        var inner = (w: width, h: height)
        switch fit {
        case .fill:
            if imageAspect > frameAspect { crop.w = sourceH * frameAspect } else { crop.h = sourceW / frameAspect }
            crop.x = (sourceW - crop.w) / 2
            crop.y = (sourceH - crop.h) / 2
        case .fit:
            var w = Double(width), h = Double(height)
            if imageAspect > frameAspect { h = Double(width) * pixelAspect / imageAspect } else { w = Double(height) * imageAspect / pixelAspect }
            inner = (max(1, min(width, Int(w.rounded()))), max(1, min(height, Int(h.rounded()))))
        }
        // The same rectangle in the coded (stored) picture.
        let coded: (x: Double, y: Double, w: Double, h: Double)
        switch info.rotation {
        case 90: coded = (crop.y, sourceW - crop.x - crop.w, crop.h, crop.w)
        case 180: coded = (sourceW - crop.x - crop.w, sourceH - crop.y - crop.h, crop.w, crop.h)
        case 270: coded = (sourceH - crop.y - crop.h, crop.x, crop.h, crop.w)
        default: coded = crop
        }
        let outW = turned ? inner.h : inner.w, outH = turned ? inner.w : inner.h
        var pixels = [UInt8](repeating: 0, count: outW * outH * 3)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            stories_video_scale(handle, buffer.baseAddress, Int32(outW), Int32(outH), Int32(coded.x.rounded(.down)),
                                Int32(coded.y.rounded(.down)), Int32(coded.w.rounded()), Int32(coded.h.rounded()))
        }
        guard status == 0 else { return nil }
        var image = RGBImage(width: outW, height: outH, pixels: pixels)
        switch info.rotation {
        case 90: image = image.oriented(6)
        case 180: image = image.oriented(3)
        case 270: image = image.oriented(8)
        default: break
        }
        guard fit == .fit, inner.w != width || inner.h != height else { return image }
        var out = RGBImage(width: width, height: height)
        let ox = (width - inner.w) / 2, oy = (height - inner.h) / 2
        for y in 0..<inner.h {
            let src = y * inner.w * 3, dst = ((y + oy) * width + ox) * 3
            out.pixels.replaceSubrange(dst..<(dst + inner.w * 3), with: image.pixels[src..<(src + inner.w * 3)])
        }
        return out
    }

    /// The frame last decoded as cells of `width`×`height`.
    public func cells(width: Int, height: Int, symbols: CellSymbols = .half, depth: ColorDepth, fit: FitMode,
                      cellAspect: Double = 0.5, palette: TerminalPalette = .xterm) -> CellImage? {
        let (px, py) = symbols.pixelsPerCell
        guard let pixels = picture(width: width * px, height: height * py, fit: fit,
                                   pixelAspect: cellAspect * Double(py) / Double(px)) else { return nil }
        return CellImage(pixels: pixels, symbols: symbols, depth: depth, everySplit: false, palette: palette)
    }

    static func string(_ chars: [CChar]) -> String {
        let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Where libav's own log lines go: never the terminal. They are kept (the latest few, made
/// printable) for the app to show or write where it keeps its log.
public enum VideoLog {
    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var lines: [String] = []
    nonisolated(unsafe) private static var installed = false
    public static let limit = 50

    static func install() {
        lock.lock()
        defer { lock.unlock() }
        guard !installed else { return }
        installed = true
        stories_video_set_log_sink { _, line in
            guard let line else { return }
            // Cleaned by the one rule for text from outside, and cut (a line is short).
            VideoLog.append(SafeText.line(String(String(cString: line).prefix(300))))
        }
    }

    static func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
        if lines.count > limit { lines.removeFirst(lines.count - limit) }
    }

    /// Forgets the lines kept so far (a test that looks for lines of its own).
    static func reset() {
        lock.lock()
        defer { lock.unlock() }
        lines = []
    }

    /// The latest libav messages, oldest first.
    public static var recent: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

extension VideoDecoder {
    /// The first frame of a video as upright pixels, at its own size or, when that is
    /// larger, just large enough to cover `minimumSize`: the poster the viewer shows before
    /// motion, and what preloading prepares.
    public static func poster(_ data: Data, minimumSize: (width: Int, height: Int)? = nil,
                              limits: VideoLimits = .standard) throws(MediaError) -> (image: RGBImage, info: VideoInfo) {
        let decoder = try VideoDecoder(data: data, limits: limits)
        guard try decoder.decodeNext() != nil else { throw .video("the video has no frames") }
        let info = decoder.info
        var width = info.width, height = info.height
        if let minimumSize, minimumSize.width > 0, minimumSize.height > 0 {
            let scale = max(Double(minimumSize.width) / Double(width), Double(minimumSize.height) / Double(height))
            if scale < 1 {
                width = max(1, Int((Double(width) * scale).rounded(.up)))
                height = max(1, Int((Double(height) * scale).rounded(.up)))
            }
        }
        // Large enough for the screen, never a huge buffer: 4 megapixels at most.
        while width * height > 4_000_000 { width /= 2; height /= 2 }
        guard let image = decoder.picture(width: max(1, width), height: max(1, height), fit: .fill, pixelAspect: 1) else {
            throw .video("the first frame cannot be scaled")
        }
        return (image, info)
    }
}
