import Foundation

/// What a GIF's blocks say, read without decoding a pixel: how many frames the bytes hold,
/// how long they last, and whether the file asks to be looped (the `NETSCAPE2.0`
/// application extension browsers honour). Enough to tell an animation (played as a video
/// item, looping) from a still (a photo) from the first bytes of a file.
public struct GIFInfo: Equatable, Sendable {
    /// Frames (image descriptors) found in the bytes read.
    public var frames: Int
    /// Their delays added up, seconds; a delay under 0.02 s counts as 0.1 s, as browsers
    /// show it.
    public var duration: Double
    /// The file carries a loop extension (an animation made to repeat).
    public var loops: Bool
    /// The walk reached the trailer: `frames` is every frame.
    public var complete: Bool
    /// The frame grid: the greatest common divisor of the frames' delays (as shown, in
    /// hundredths), seconds; every frame starts on it. Nil before a frame.
    public var tick: Double? { tickHundredths > 0 ? Double(tickHundredths) / 100 : nil }
    private var tickHundredths = 0

    /// The count the loop block gives: how many times the animation repeats after it first
    /// plays (0: for ever); nil without one.
    public var loopCount: Int?

    /// How many times the animation plays in all, as browsers show it: once without a loop
    /// block, for ever (nil) for a count of 0, N + 1 times for a count of N (ImageMagick's
    /// `-loop 3` writes 2: three plays).
    public var plays: Int? {
        guard loops else { return 1 }
        guard let loopCount else { return nil } // a block without its count: for ever
        return loopCount == 0 ? nil : loopCount + 1
    }

    /// Two frames or more. (A loop block alone says nothing: FFmpeg writes one into a GIF of
    /// one frame too. A file whose second frame lies past the bytes read is taken as a still
    /// here; the pipeline, reading all of it, finds it moves when it is shown.)
    public var isAnimated: Bool { frames >= 2 }

    public init(frames: Int, duration: Double, loops: Bool, complete: Bool, loopCount: Int? = nil) {
        self.frames = frames
        self.duration = duration
        self.loops = loops
        self.complete = complete
        self.loopCount = loopCount
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// The most frames counted (a walk over a hostile file stops there).
    public static let maxFrames = 100_000

    /// Reads the blocks of `data` (the whole file or its start); nil when it is not a GIF.
    public static func read(_ data: Data) -> GIFInfo? {
        let bytes = [UInt8](data)
        guard bytes.count >= 13, bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) else {
            return nil
        }
        var info = GIFInfo(frames: 0, duration: 0, loops: false, complete: false)
        var at = 13
        let screen = bytes[10]
        if screen & 0x80 != 0 { at += 3 << (Int(screen & 7) + 1) } // the global colour table
        var delay = 0.0
        var shown = 0 // the same delay in hundredths
        /// Skips data sub-blocks from `at`; false when the bytes end first.
        func skipSubBlocks() -> Bool {
            while at < bytes.count {
                let size = Int(bytes[at])
                at += 1 + size
                if size == 0 { return true }
            }
            return false
        }
        while at < bytes.count, info.frames < maxFrames {
            switch bytes[at] {
            case 0x21: // an extension: its label, then sub-blocks
                guard at + 2 < bytes.count else { return info }
                let label = bytes[at + 1]
                at += 2
                let start = at
                if label == 0xF9, start + 4 < bytes.count, bytes[start] >= 4 {
                    // Graphic control: the next frame's delay in hundredths of a second.
                    let hundredths = Int(bytes[start + 2]) | Int(bytes[start + 3]) << 8
                    delay = hundredths < 2 ? 0.1 : Double(hundredths) / 100
                    shown = hundredths < 2 ? 10 : hundredths
                } else if label == 0xFF, start + 11 < bytes.count, bytes[start] == 11 {
                    let name = String(decoding: bytes[(start + 1)...(start + 11)], as: UTF8.self)
                    if name == "NETSCAPE2.0" || name == "ANIMEXTS1.0" {
                        info.loops = true
                        // Its data: a sub-block of 3 bytes, 1 then the count, least significant first.
                        let data = start + 12
                        if data + 3 < bytes.count, bytes[data] >= 3, bytes[data + 1] == 1 {
                            info.loopCount = Int(bytes[data + 2]) | Int(bytes[data + 3]) << 8
                        }
                    }
                }
                guard skipSubBlocks() else { return info }
            case 0x2C: // an image: its descriptor, its own colour table, LZW data
                guard at + 10 < bytes.count else { return info }
                let packed = bytes[at + 9]
                at += 10
                if packed & 0x80 != 0 { at += 3 << (Int(packed & 7) + 1) }
                at += 1 // the LZW minimum code size
                guard skipSubBlocks() else {
                    info.frames += 1 // cut off inside its data: a frame begun is a frame
                    return info
                }
                info.frames += 1
                info.duration += delay == 0 ? 0.1 : delay
                info.tickHundredths = Self.gcd(info.tickHundredths, shown == 0 ? 10 : shown)
                delay = 0
                shown = 0
            case 0x3B:
                info.complete = true
                return info
            default:
                return info // not a block: the file is damaged here
            }
        }
        return info
    }
}
