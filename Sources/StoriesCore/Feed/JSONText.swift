/// JSON written straight to bytes: the one writer's output (`JSONValue.data`), and, for the
/// small documents a server answers many times a second (a seen receipt, a batch, changes),
/// written by hand with keys in order — the same bytes `JSONValue.data` gives (a test
/// compares them) without building a value and sorting its keys, which cost more than the
/// request's database work.
struct JSONText {
    var bytes: [UInt8] = []

    init(capacity: Int = 128) { bytes.reserveCapacity(capacity) }

    /// Punctuation and keys known when the code is written (`{"next":`).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func number(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A string, quoted: `"` and `\` escaped, control characters as `\n` or `\u001f`,
    /// everything else as its UTF-8.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `[` each element written by `write`, `,` between, `]`.
    mutating func array<Element>(_ elements: some Sequence<Element>, _ write: (inout JSONText, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
