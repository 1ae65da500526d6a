import StoriesCells
import Foundation
import StoriesCore

/// Containers of sound alone, recognised by content before FFmpeg sees a byte (as
/// `VideoContainer`): MP3, WAV and FLAC. M4A, Ogg (Opus, Vorbis) and WebM audio are
/// `VideoContainer`s: the same containers carry pictures or not.
public enum SoundContainer: String, Sendable {
    case mp3, wav, flac

    public static func sniff(_ data: Data) -> SoundContainer? {
        let head = [UInt8](data.prefix(12))
        guard head.count >= 4 else { return nil }
        if head.starts(with: Array("ID3".utf8)) { return .mp3 }
        if head[0] == 0xFF, head[1] & 0xE0 == 0xE0, head[1] & 0x06 != 0 { return .mp3 } // an MPEG audio frame's sync and layer
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WAVE".utf8) { return .wav }
        if head.starts(with: Array("fLaC".utf8)) { return .flac }
        return nil
    }
}

/// A voice note's picture (issue 47, point 3): its sound drawn as a waveform — one bar a
/// slice of time, as tall as the loudest sample in it — on a dark card, so the item is
/// shown like a video's first frame is (cells, or real pixels), and its length.
public enum Waveform {
    /// The bars across the picture, and the most sound read to draw them (a longer note is
    /// drawn from its first ten minutes; it still plays whole).
    public static let bars = 32
    public static let maxSeconds = 600.0
    static let rate = 8_000

    /// The waveform of `data`'s sound, and how long the sound is (seconds); throws when it
    /// has no sound FFmpeg can read.
    public static func picture(_ data: Data, minimumSize: (width: Int, height: Int)? = nil) throws(MediaError) -> (image: RGBImage, seconds: Double) {
        let decoder: AudioDecoder
        do { decoder = try AudioDecoder(data: data, rate: rate, channels: 1) } catch {
            throw error == .none ? .unknownMedia : .video(error.description)
        }
        var peaks: [Int] = [] // the loudest sample of each 50 ms
        let slice = rate / 20
        var buffer: [Int16] = []
        var loudest = 0, inSlice = 0, frames = 0
        var cut = false // stopped at `maxSeconds`, before the end
        do {
            while true {
                guard frames < Int(maxSeconds) * rate else { cut = true; break }
                guard let read = try decoder.read(into: &buffer, maxFrames: 4096) else { break }
                for sample in buffer.prefix(read.frames) {
                    loudest = max(loudest, abs(Int(sample)))
                    inSlice += 1
                    if inSlice == slice { peaks.append(loudest); loudest = 0; inSlice = 0 }
                }
                frames += read.frames
            }
        } catch {
            if frames == 0 { throw .video(error.description) } // what decoded is drawn and played
        }
        if inSlice > 0 { peaks.append(loudest) }
        guard frames > 0 else { throw .video("the voice note has no sound") }
        // As long as what decoded (a header may say anything); past the part read, as long
        // as the header says, which the reducer bounds.
        let decoded = Double(frames) / Double(rate)
        let seconds = cut ? max(decoded, decoder.duration ?? decoded) : decoded
        return (draw(peaks, size: size(for: minimumSize)), seconds)
    }

    /// 16:9 at least 480 wide, larger when the screen asks (4 megapixels at most).
    static func size(for minimum: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        var width = max(480, minimum?.width ?? 0), height = max(270, minimum?.height ?? 0)
        while width * height > 4_000_000 { width /= 2; height /= 2 }
        return (max(1, width), max(1, height))
    }

    /// The bars on a dark card: each bar the loudest of its stretch against the loudest of
    /// all, at least a sliver (silence shows as a line), lighter towards the middle.
    static func draw(_ peaks: [Int], size: (width: Int, height: Int)) -> RGBImage {
        var image = RGBImage(width: size.width, height: size.height, fill: RGBPixel(0x1b, 0x1f, 0x3a))
        guard !peaks.isEmpty else { return image }
        let loudest = max(1, peaks.max() ?? 1)
        let margin = size.width / 12, span = size.width - 2 * margin
        let pitch = max(1.0, Double(span) / Double(bars))
        let barWidth = max(1, Int(pitch * 0.6))
        let middle = size.height / 2, reach = Double(size.height) * 0.35
        for bar in 0..<bars {
            let from = peaks.count * bar / bars, to = max(from + 1, peaks.count * (bar + 1) / bars)
            let level = Double(peaks[min(from, peaks.count - 1)..<min(to, peaks.count)].max() ?? 0) / Double(loudest)
            let half = max(1, Int(reach * level.squareRoot()))
            let x0 = margin + Int(Double(bar) * pitch)
            for y in max(0, middle - half)..<min(size.height, middle + half) {
                let near = 1 - Double(abs(y - middle)) / Double(half + 1) // lighter at the middle
                let colour = RGBPixel(UInt8(0x7b + Int(0x6a * near)), UInt8(0x8c + Int(0x50 * near)), 0xff)
                for x in x0..<min(size.width, x0 + barWidth) { image[x, y] = colour }
            }
        }
        return image
    }
}
