import Foundation

/// Changes to a JSON document's text that keep everything else byte for byte: the
/// author's indentation, key order, spacing and number spellings. The document is walked
/// once to find where each object and its members sit; an edit replaces one member's value
/// or adds a member in the style of the object's first one. Used by
/// `stories assets blurhash`, so a hand-written feed stays as its author wrote it.
public enum JSONEdits {
    public enum PathElement: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    /// One object of the document: where its braces are and where each member's key and
    /// value are (byte offsets into the document's UTF-8).
    public struct ObjectSpan: Sendable {
        public var path: [PathElement]
        public var open: Int
        public var close: Int
        public var members: [(key: String, keyRange: Range<Int>, valueRange: Range<Int>)]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "not JSON this tool can edit at byte \(offset): \(reason)" }
    }

    /// The objects of the document that `wanted` picks by their path (every one by default),
    /// outermost first. The walk follows RFC 8259 (strings with their escapes, numbers,
    /// literals), refuses anything else and an object that names a key twice (which copy a
    /// reader takes is not defined), and stops at depth 256. Paths are kept on one stack
    /// and copied only for the objects picked, so deep nesting costs no more than its bytes.
    public static func objects(in text: [UInt8], where wanted: @escaping ([PathElement]) -> Bool = { _ in true }) throws(Failure) -> [ObjectSpan] {
        var walker = Walker(bytes: text, wanted: wanted)
        walker.skipSpace()
        try walker.value(depth: 0)
        walker.skipSpace()
        guard walker.at == text.count else { throw Failure(offset: walker.at, reason: "more after the document") }
        return walker.objects.sorted { $0.open < $1.open }
    }

    /// `text` with `key` set to the string `value` in `object`: the value replaced where the
    /// member is, else a member added after the last one, spaced like the first one.
    public static func setting(_ key: String, to value: String, in object: ObjectSpan, of text: [UInt8]) -> (range: Range<Int>, replacement: [UInt8]) {
        let encoded = Array(quoted(value).utf8)
        if let member = object.members.first(where: { $0.key == key }) { return (member.valueRange, encoded) }
        guard let first = object.members.first, let last = object.members.last else {
            return ((object.open + 1)..<(object.open + 1), Array(quoted(key).utf8) + Array(": ".utf8) + encoded)
        }
        let before = Array(text[(object.open + 1)..<first.keyRange.lowerBound]) // e.g. "\n    "
        let colon = Array(text[first.keyRange.upperBound..<first.valueRange.lowerBound]) // e.g. " : "
        let insertion = Array(",".utf8) + before + Array(quoted(key).utf8) + colon + encoded
        return (last.valueRange.upperBound..<last.valueRange.upperBound, insertion)
    }

    /// Applies edits that do not overlap (any order).
    public static func apply(_ edits: [(range: Range<Int>, replacement: [UInt8])], to text: [UInt8]) -> [UInt8] {
        var result = text
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(edit.range, with: edit.replacement)
        }
        return result
    }

    static func quoted(_ string: String) -> String { JSONValue.string(string).text() }

    struct Walker {
        let bytes: [UInt8]
        let wanted: ([PathElement]) -> Bool
        var at = 0
        var objects: [ObjectSpan] = []
        /// Where the walk is: pushed on the way into a member or element, popped on the way out.
        var path: [PathElement] = []
        static let maxDepth = 256

        init(bytes: [UInt8], wanted: @escaping ([PathElement]) -> Bool) {
            self.bytes = bytes
            self.wanted = wanted
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        func fail(_ reason: String) -> Failure { Failure(offset: at, reason: reason) }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < Self.maxDepth else { throw fail("nested more than \(Self.maxDepth) deep") }
            guard at < bytes.count else { throw fail("the document ends early") }
            switch bytes[at] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default:
                for literal in ["true", "false", "null"] where bytes[at...].starts(with: literal.utf8) {
                    at += literal.utf8.count
                    return
                }
                throw fail("expected a value")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            let open = at
            at += 1
            let picked = wanted(path)
            var members: [(key: String, keyRange: Range<Int>, valueRange: Range<Int>)] = []
            var keys = Set<String>()
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                if picked { objects.append(ObjectSpan(path: path, open: open, close: at - 1, members: [])) }
                return
            }
            while true {
                skipSpace()
                let keyStart = at
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                guard keys.insert(key).inserted else { throw Failure(offset: keyStart, reason: "the key \"\(SafeText.line(key))\" twice in one object") }
                let keyRange = keyStart..<at
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                at += 1
                skipSpace()
                let valueStart = at
                path.append(.key(key))
                try value(depth: depth + 1)
                path.removeLast()
                if picked { members.append((key, keyRange, valueStart..<at)) }
                skipSpace()
                guard at < bytes.count else { throw fail("the document ends early") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
                at += 1
                if picked { objects.append(ObjectSpan(path: path, open: open, close: at - 1, members: members)) }
                return
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            at += 1
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return }
            var index = 0
            while true {
                skipSpace()
                path.append(.index(index))
                try value(depth: depth + 1)
                path.removeLast()
                index += 1
                skipSpace()
                guard at < bytes.count else { throw fail("the document ends early") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
                at += 1
                return
            }
        }

        /// A string, decoded (the caller needs keys as text).
        mutating func string() throws(Failure) -> String {
            let start = at
            at += 1
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\""):
                    at += 1
                    let raw = Data(bytes[start..<at])
                    // The project's one JSON reader decodes the string, escapes and all.
                    guard case .array(let decoded)? = try? JSONValue.parse(Data("[".utf8) + raw + Data("]".utf8), file: ""),
                          case .string(let text)? = decoded.first else { throw Failure(offset: start, reason: "not a valid string") }
                    return text
                case UInt8(ascii: "\\"): at += 2
                case 0..<0x20: throw fail("a control character in a string")
                default: at += 1
                }
            }
            throw Failure(offset: start, reason: "a string that never ends")
        }

        mutating func number() throws(Failure) {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard Double(String(decoding: bytes[start..<at], as: UTF8.self)) != nil else {
                throw Failure(offset: start, reason: "not a number")
            }
        }
    }
}
