import Foundation

/// The reader behind `JSONValue.parse`: recursive descent over the document's bytes, one
/// pass, no copies of plain strings. Each failure has the byte offset it was found at.
struct JSONParser {
    struct Failure: Error {
        var offset: Int
        var reason: String
        /// Nested deeper than `JSONValue.maxDepth` (said in its own words).
        var tooDeep = false
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() throws(Failure) -> JSONValue {
        // A byte order mark is not JSON, but Foundation's decoder let it through.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { at = 3 }
        skipSpace()
        let value = try value(depth: 0)
        skipSpace()
        guard at == bytes.count else { throw fail("more after the document") }
        return value
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> Failure { Failure(offset: offset ?? at, reason: reason) }

    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard at < bytes.count else { throw fail("the document ends early") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            guard depth < JSONValue.maxDepth else { throw Failure(offset: at, reason: "", tooDeep: true) }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < JSONValue.maxDepth else { throw Failure(offset: at, reason: "", tooDeep: true) }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case UInt8(ascii: "t") where literal("true"): return .bool(true)
        case UInt8(ascii: "f") where literal("false"): return .bool(false)
        case UInt8(ascii: "n") where literal("null"): return .null
        default: throw fail("expected a value")
        }
    }

    /// Steps over `word` when it is next.
    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - at >= count else { return false }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[at + $0] == expected[$0] }
        }
        if matches { at += count }
        return matches
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        at += 1
        var members: [String: JSONValue] = [:]
        while true {
            skipSpace()
            guard at < bytes.count else { throw fail("the document ends early") }
            if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
            let keyStart = at
            guard bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try string()
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            at += 1
            skipSpace()
            guard members.updateValue(try value(depth: depth), forKey: key) == nil else {
                throw fail("the key \"\(SafeText.line(String(key.prefix(64))))\" twice in one object", at: keyStart)
            }
            skipSpace()
            guard at < bytes.count else { throw fail("the document ends early") }
            switch bytes[at] {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"): at += 1; return .object(members)
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        at += 1
        var elements: [JSONValue] = []
        while true {
            skipSpace()
            guard at < bytes.count else { throw fail("the document ends early") }
            if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(elements) }
            elements.append(try value(depth: depth))
            skipSpace()
            guard at < bytes.count else { throw fail("the document ends early") }
            switch bytes[at] {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; return .array(elements)
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    /// A string at `at` (its opening quote), decoded.
    private mutating func string() throws(Failure) -> String {
        let start = at
        at += 1
        let first = at
        var plain = true
        while true {
            guard at < bytes.count else { throw fail("a string that never ends", at: start) }
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw fail("a control character in a string") }
            if byte == UInt8(ascii: "\\") {
                plain = false
                at += 2
            } else {
                at += 1
            }
        }
        let body = UnsafeBufferPointer(rebasing: bytes[first..<at])
        at += 1
        if plain {
            guard let text = String(validating: body, as: UTF8.self) else { throw fail("a string that is not UTF-8", at: start) }
            return text
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(body.count)
        var index = 0
        while index < body.count {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            let escapeAt = first + index
            guard index + 1 < body.count else { throw fail("not a valid string", at: escapeAt) }
            index += 2
            switch body[index - 1] {
            case UInt8(ascii: "\""): decoded.append(0x22)
            case UInt8(ascii: "\\"): decoded.append(0x5C)
            case UInt8(ascii: "/"): decoded.append(0x2F)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = Self.hex4(body, at: index) else { throw fail("a \\u escape without four hex digits", at: escapeAt) }
                index += 4
                var scalar = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit) {
                    // A high surrogate needs its low one, escaped, right after it.
                    guard index + 1 < body.count, body[index] == UInt8(ascii: "\\"), body[index + 1] == UInt8(ascii: "u"),
                          let low = Self.hex4(body, at: index + 2), (0xDC00...0xDFFF).contains(low) else {
                        throw fail("a lone surrogate in a \\u escape", at: escapeAt)
                    }
                    index += 6
                    scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(unit) {
                    throw fail("a lone surrogate in a \\u escape", at: escapeAt)
                }
                guard let value = Unicode.Scalar(scalar) else { throw fail("not a valid string", at: escapeAt) }
                decoded.append(contentsOf: UTF8.encode(value).map { Array($0) } ?? [])
            default:
                throw fail("an escape JSON does not have", at: escapeAt)
            }
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw fail("a string that is not UTF-8", at: start) }
        return text
    }

    private static func hex4(_ body: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16? {
        guard index + 4 <= body.count else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = body[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// A number by RFC 8259's grammar (no leading zeros, no '+', digits both sides of '.').
    private mutating func number() throws(Failure) -> Double {
        let start = at
        func digits() -> Int {
            let from = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            return at - from
        }
        if bytes[at] == UInt8(ascii: "-") { at += 1 }
        let whole = at
        guard digits() > 0 else { throw fail("not a number", at: start) }
        if bytes[whole] == UInt8(ascii: "0"), at - whole > 1 { throw fail("not a number (a leading zero)", at: start) }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw fail("not a number", at: start) }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw fail("not a number", at: start) }
        }
        guard at - start <= 400 else { throw fail("a number of more than 400 characters", at: start) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("a number too large", at: start) }
        return value
    }
}
