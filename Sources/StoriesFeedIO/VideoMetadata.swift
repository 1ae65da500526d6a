import StoriesCore
import Foundation

/// When a video was recorded, from an MP4 or QuickTime file's movie header (`moov/mvhd`,
/// whose `creation_time` phones and cameras set): the boxes are walked by their sizes, a
/// few bytes read at each, so a `moov` at the end of a large file costs the same as one at
/// the start. Every size is checked against the file before it is used; nothing is
/// followed past the walk's limits. Other containers (WebM, Matroska) give nil: the file's
/// modification time stands in.
public enum VideoMetadata {
    /// The most boxes looked at on one level (a real file has a handful).
    static let maxBoxes = 256
    /// Seconds from 1904-01-01 (QuickTime's epoch) to 1970-01-01.
    static let quickTimeEpoch: UInt64 = 2_082_844_800

    public static func creationTime(path: String) -> Date? {
        guard let file = try? SafeFile.open(path) else { return nil }
        return creationTime(file: file)
    }

    /// The same from a file already open (from its folder's descriptor).
    public static func creationTime(file: SafeFile.Opened) -> Date? {
        creationTime { offset, count in try? file.read(at: offset, count: count) }
    }

    /// The walk, over any way of reading `count` bytes at `offset` (tests give it bytes).
    static func creationTime(read: (Int, Int) -> Data?) -> Date? {
        guard let moov = box("moov", in: 0..<Int.max, read: read),
              let mvhd = box("mvhd", in: moov, read: read),
              let header = read(mvhd.lowerBound, 12), header.count >= 8 else { return nil }
        let bytes = [UInt8](header)
        var seconds: UInt64 = 0
        if bytes[0] == 1 { // version 1: 64-bit times
            guard bytes.count >= 12 else { return nil }
            for byte in bytes[4..<12] { seconds = seconds << 8 | UInt64(byte) }
        } else {
            for byte in bytes[4..<8] { seconds = seconds << 8 | UInt64(byte) }
        }
        // 0 is "not set"; anything before 1971 or after 2200 is a wrong clock, not a date.
        guard seconds > quickTimeEpoch + 365 * 86_400, seconds < quickTimeEpoch + 7_258_118_400 else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - quickTimeEpoch))
    }

    /// The contents (after the header) of the first box of `type` among the boxes that
    /// fill `range`; the range ends where the reads stop giving bytes.
    static func box(_ type: String, in range: Range<Int>, read: (Int, Int) -> Data?) -> Range<Int>? {
        var at = range.lowerBound
        for _ in 0..<maxBoxes {
            guard at < range.upperBound, let head = read(at, 16), head.count >= 8 else { return nil }
            let bytes = [UInt8](head)
            var size = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            var headerSize = 8
            if size == 1 { // a 64-bit size follows the type
                guard bytes.count >= 16 else { return nil }
                let large = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard large <= UInt64(Int.max / 2) else { return nil }
                size = Int(large)
                headerSize = 16
            } else if size == 0 { // to the end of the enclosing box or file
                size = range.upperBound == Int.max ? Int.max / 2 : range.upperBound - at
            }
            guard size >= headerSize, size <= range.upperBound - at else { return nil }
            let name = String(decoding: bytes[4..<8], as: UTF8.self)
            if name == type { return (at + headerSize)..<(at + size) }
            at += size
        }
        return nil
    }
}
