import CStoriesVideo
import Foundation
import StoriesCells

/// A video file written frame by frame with FFmpeg's libraries (`stories render`): H.264 in
/// MP4, VP9 in WebM, or GIF with a palette for each frame. It writes to a descriptor the
/// caller opened; libavformat never sees a file name. Used from one thread.
public final class VideoEncoder {
    public enum Kind: Sendable {
        case mp4, webm, gif
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private var handle: OpaquePointer?
    public let kind: Kind
    public let width: Int
    public let height: Int

    /// Whether it has a sound track (48 kHz stereo: AAC in MP4, Opus in WebM).
    public let hasSound: Bool
    public static let soundRate = 48_000

    /// `fps`: the grid frames' times are counted on (a GIF's times are in hundredths);
    /// `sound`: a sound track too (not for a GIF).
    public init(fd: Int32, kind: Kind, width: Int, height: Int, fps: Int, sound: Bool = false) throws(Failure) {
        hasSound = sound && kind != .gif
        self.kind = kind
        self.width = width
        self.height = height
        var message = [CChar](repeating: 0, count: 256)
        let code: Int32 = switch kind {
        case .mp4: Int32(STORIES_ENCODE_MP4)
        case .webm: Int32(STORIES_ENCODE_WEBM)
        case .gif: Int32(STORIES_ENCODE_GIF)
        }
        guard let opened = stories_encoder_open(fd, code, Int32(width), Int32(height), Int32(kind == .gif ? 100 : fps), hasSound ? 1 : 0,
                                                &message, message.count) else {
            throw Failure(description: Self.string(message))
        }
        handle = opened
    }

    deinit { stories_encoder_free(handle) }

    /// One frame (`image` is `width × height`) at frame `number` of the grid.
    public func write(_ image: RGBImage, frame number: Int64) throws(Failure) {
        guard image.width == width, image.height == height else { throw Failure(description: "a frame of another size") }
        var message = [CChar](repeating: 0, count: 256)
        let code = image.pixels.withUnsafeBufferPointer { stories_encoder_write_rgb(handle, $0.baseAddress, number, &message, message.count) }
        if code != 0 { throw Failure(description: Self.string(message)) }
    }

    /// One GIF frame: indices into `palette` (256 colours, 0xAARRGGBB), shown from `start`
    /// for `duration` hundredths of a second.
    public func write(indices: [UInt8], palette: [UInt32], start: Int64, duration: Int64) throws(Failure) {
        guard indices.count == width * height, palette.count == 256 else { throw Failure(description: "a frame of another size") }
        var message = [CChar](repeating: 0, count: 256)
        let code = indices.withUnsafeBufferPointer { i in
            palette.withUnsafeBufferPointer { p in
                stories_encoder_write_indexed(handle, i.baseAddress, p.baseAddress, start, duration, &message, message.count)
            }
        }
        if code != 0 { throw Failure(description: Self.string(message)) }
    }

    /// The sound track's next frames: interleaved 16-bit stereo at 48 kHz.
    public func writeSound(_ pcm: [Int16]) throws(Failure) {
        guard hasSound else { throw Failure(description: "no sound track") }
        var message = [CChar](repeating: 0, count: 256)
        let code = pcm.withUnsafeBufferPointer { stories_encoder_write_sound(handle, $0.baseAddress, Int32(pcm.count / 2), &message, message.count) }
        if code != 0 { throw Failure(description: Self.string(message)) }
    }

    /// Writes what the encoder holds and the file's end.
    public func finish() throws(Failure) {
        var message = [CChar](repeating: 0, count: 256)
        if stories_encoder_finish(handle, &message, message.count) != 0 { throw Failure(description: Self.string(message)) }
    }

    static func string(_ message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "FFmpeg gave no reason" : text
    }
}
