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
        guard let header, header.utf8.count <= 8192 else { return false }
        let wanted = opaque(tag)
        for part in header.split(separator: ",") {
            // Trimmed by hand: Foundation's trimming is a tenth of a 304's cost.
            let candidate = part.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            let text = Substring(String(candidate))
            if text == "*" || opaque(text) == wanted { return true }
        }
        return false
    }

    static func opaque(_ tag: some StringProtocol) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
