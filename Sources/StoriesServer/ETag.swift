import Foundation

/// Strong entity tags from the bytes themselves, and `If-None-Match` matching.
public enum ETag {
    /// `"<32 hex digits>"`: two 64-bit FNV-1a hashes of the bytes (different offsets) and
    /// the length folded in. Not a cryptographic hash: it only has to change when the
    /// bytes do.
    public static func strong(for bytes: Data) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4 ^ UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            for byte in raw {
                a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37_79B9
            }
        }
        return "\"" + hex(a) + hex(b) + "\""
    }

    /// The representation with a content coding gets its own tag (`"…-gzip"`).
    public static func coded(_ tag: String, _ coding: String) -> String {
        guard tag.hasSuffix("\"") else { return tag }
        return String(tag.dropLast()) + "-" + coding + "\""
    }

    /// Whether an `If-None-Match` value names `tag` (weak comparison, as RFC 9110 asks
    /// for this header: `W/"x"` matches `"x"`), or is `*`.
    public static func matches(_ header: String?, _ tag: String) -> Bool {
        guard var header, header.utf8.count <= 8192 else { return false }
        var tag = tag
        // On the bytes: generic trimming of substrings cost a fifth of a 304 (type metadata
        // looked up at run time for every request).
        return tag.withUTF8 { wantedBytes in
            let wanted = opaque(wantedBytes[...])
            return header.withUTF8 { bytes in
                var start = 0
                while start <= bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                    var low = start, high = end
                    while low < high, bytes[low] == UInt8(ascii: " ") || bytes[low] == UInt8(ascii: "\t") { low += 1 }
                    while high > low, bytes[high - 1] == UInt8(ascii: " ") || bytes[high - 1] == UInt8(ascii: "\t") { high -= 1 }
                    let candidate = bytes[low..<high]
                    if candidate.count == 1, candidate.first == UInt8(ascii: "*") { return true }
                    if opaque(candidate).elementsEqual(wanted) { return true }
                    start = end + 1
                }
                return false
            }
        }
    }

    /// A tag without its weak marker `W/`.
    static func opaque(_ tag: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        tag.count >= 2 && tag[tag.startIndex] == UInt8(ascii: "W") && tag[tag.startIndex + 1] == UInt8(ascii: "/") ? tag.dropFirst(2) : tag
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
