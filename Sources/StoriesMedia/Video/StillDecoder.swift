import StoriesCells
import CStoriesVideo
import Foundation
import StoriesCore

/// Stills for the pipeline: a photo decoded, a video's first frame (its poster), or a
/// voice note's waveform (with the sound's length).
public enum StillDecoder {
    public struct Still: Sendable {
        public var image: RGBImage
        /// The bytes are sound alone (a voice note): how long it is, in seconds.
        public var soundSeconds: Double?
    }

    public static func decode(_ data: Data, minimumSize: (width: Int, height: Int)? = nil,
                              limits: MediaLimits = .standard) throws(MediaError) -> RGBImage {
        try still(data, minimumSize: minimumSize, limits: limits).image
    }

    public static func still(_ data: Data, minimumSize: (width: Int, height: Int)? = nil,
                             limits: MediaLimits = .standard) throws(MediaError) -> Still {
        guard !data.isEmpty else { throw .empty }
        if ImageFormat.sniff(data) != nil { return Still(image: try ImageDecoder.decode(data, minimumSize: minimumSize, limits: limits)) }
        guard data.count <= limits.maxBytes else { throw .fileTooLarge(bytes: data.count, limit: limits.maxBytes) }
        if SoundContainer.sniff(data) != nil {
            let (image, seconds) = try Waveform.picture(data, minimumSize: minimumSize)
            return Still(image: image, soundSeconds: seconds)
        }
        do {
            return Still(image: try VideoDecoder.poster(data, minimumSize: minimumSize, limits: VideoLimits(maxBytes: limits.maxBytes)).image)
        } catch .noPicture(let reason) {
            // A container that holds sound alone (M4A, Ogg Opus, WebM audio): its waveform.
            // (A video whose pictures cannot be read stays a failure: it is no voice note.)
            guard let (image, seconds) = try? Waveform.picture(data, minimumSize: minimumSize) else { throw .noPicture(reason) }
            return Still(image: image, soundSeconds: seconds)
        }
    }
}

/// Video containers recognised by content before FFmpeg sees a byte, so that a text file
/// named `.mp4` or random bytes are "not a video" rather than whatever a demuxer's probe
/// makes of them.
public enum VideoContainer: String, Sendable {
    case mp4, matroska, avi, ogg, flv, mpegts
    /// A GIF: FFmpeg plays one by its own frame delays (a single frame is a still).
    case gif

    public static func sniff(_ data: Data) -> VideoContainer? {
        let head = [UInt8](data.prefix(16))
        func ascii(_ range: Range<Int>) -> String? {
            guard head.count >= range.upperBound else { return nil }
            return String(decoding: head[range], as: UTF8.self)
        }
        if let box = ascii(4..<8), ["ftyp", "moov", "mdat", "free", "wide", "skip"].contains(box) { return .mp4 }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        if ascii(0..<4) == "RIFF", ascii(8..<11) == "AVI" { return .avi }
        if ascii(0..<4) == "OggS" { return .ogg }
        if ascii(0..<3) == "FLV" { return .flv }
        if ascii(0..<6) == "GIF87a" || ascii(0..<6) == "GIF89a" { return .gif }
        if data.count >= 188 * 3, [0, 188, 376].allSatisfy({ data[data.startIndex + $0] == 0x47 }) { return .mpegts }
        return nil
    }
}
