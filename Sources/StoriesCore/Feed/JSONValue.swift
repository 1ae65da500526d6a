import Foundation

/// A parsed JSON document that keeps the difference between numbers, booleans and strings,
/// so validation can say exactly what a field held. The project's one JSON reader
/// (`parse`) and, through `data(pretty:)`, its one writer: every document read or written —
/// feeds, homes, stories, seen batches, recordings, caches, logs — goes through it.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The deepest a feed document may nest arrays and objects: real ones use four or five.
    static let maxDepth = 64

    /// Parses bytes, with a reason that names the problem and where it is (line and column)
    /// when they are not JSON. RFC 8259, read in one pass over the bytes (the path every
    /// feed, home, story and seen batch takes, on both ends): strings must be UTF-8 without
    /// control characters, with their escapes whole (a lone surrogate is refused); a number
    /// too large for a Double is refused; an object may not name a key twice (which copy a
    /// reader would take is not defined). Kept from the Foundation decoder this replaces,
    /// so no feed that loaded stops loading: a byte order mark before the document and a
    /// comma after an object's or array's last member are let through.
    public static func parse(_ data: Data, file: String) throws(FeedError) -> JSONValue {
        let result: Result<JSONValue, JSONParser.Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            return Result { () throws(JSONParser.Failure) -> JSONValue in try parser.document() }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            let bytes = [UInt8](data)
            if failure.tooDeep {
                throw FeedError(file: file, reason: "nested more than \(maxDepth) deep at \(place(of: failure.offset, in: bytes))")
            }
            throw FeedError(file: file, reason: "not valid JSON at \(place(of: failure.offset, in: bytes)): \(failure.reason)")
        }
    }

    /// Parses one line of a JSON Lines file (a recording) by the same rules; when it is not
    /// JSON, the reason says the column (counted in characters, from 1).
    static func parseLine(_ line: Substring) -> Result<JSONValue, LineFailure> {
        let bytes = Array(line.utf8)
        let result: Result<JSONValue, JSONParser.Failure> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer)
            return Result { () throws(JSONParser.Failure) -> JSONValue in try parser.document() }
        }
        return result.mapError { failure in
            if failure.tooDeep { return LineFailure(reason: "nested more than \(maxDepth) deep") }
            let column = String(decoding: bytes.prefix(max(0, min(failure.offset, bytes.count))), as: UTF8.self).count + 1
            return LineFailure(reason: "not valid JSON at column \(column): \(failure.reason)")
        }
    }

    struct LineFailure: Error { var reason: String }

    /// "line 3, column 14" for a byte offset (columns count characters, from 1).
    static func place(of offset: Int, in bytes: [UInt8]) -> String {
        let before = bytes.prefix(max(0, min(offset, bytes.count)))
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return "line \(line), column \(column)"
    }
}

/// A position inside a JSON document, for reading fields with errors that name the file and
/// the field path.
struct JSONField {
    let value: JSONValue
    let file: String
    let path: String

    func fail(_ reason: String) -> FeedError {
        FeedError(file: file, field: path.isEmpty ? nil : path, reason: reason)
    }

    func object() throws(FeedError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kindName)") }
        return members
    }

    func member(_ key: String) throws(FeedError) -> JSONField? {
        let members = try object()
        guard let child = members[key], child != .null else { return nil }
        return JSONField(value: child, file: file, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func required(_ key: String) throws(FeedError) -> JSONField {
        guard let child = try member(key) else {
            throw FeedError(file: file, field: path.isEmpty ? key : "\(path).\(key)", reason: "missing")
        }
        return child
    }

    func string() throws(FeedError) -> String {
        guard case .string(let text) = value else { throw fail("expected a string, found \(value.kindName)") }
        return text
    }

    func nonEmptyString() throws(FeedError) -> String {
        let text = try string()
        // Something besides white space: Foundation's whitespacesAndNewlines, which is
        // Unicode's White_Space and U+200B (a test compares them), without trimming a copy
        // of every id.
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace && $0 != "\u{200B}" }) else { throw fail("must not be empty") }
        return text
    }

    func number() throws(FeedError) -> Double {
        guard case .number(let number) = value else { throw fail("expected a number, found \(value.kindName)") }
        return number
    }

    /// The document's `version`, checked the one way every document is: present, a number,
    /// and the one this build reads (`FeedDecoder.supportedVersion`). `required` false: a
    /// document kind that had none at first may leave it out, but not say another.
    func checkVersion(required: Bool = true) throws(FeedError) {
        let supported = FeedDecoder.supportedVersion
        guard let field = try member("version") else {
            guard required else { return }
            throw FeedError(file: file, field: path.isEmpty ? "version" : "\(path).version", reason: "missing; this build reads version \(supported)")
        }
        let number = try field.number()
        guard number == Double(supported) else {
            let said = number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
            throw field.fail("unsupported version \(said); this build reads version \(supported)")
        }
    }

    func positiveInt() throws(FeedError) -> Int {
        let number = try number()
        guard number >= 1, number <= 1_000_000_000, number.rounded() == number else {
            throw fail("expected a positive whole number, found \(number.formatted())")
        }
        return Int(number)
    }

    func array() throws(FeedError) -> [JSONField] {
        guard case .array(let elements) = value else { throw fail("expected an array, found \(value.kindName)") }
        return elements.enumerated().map { JSONField(value: $1, file: file, path: "\(path)[\($0)]") }
    }
}

extension Double {
    fileprivate func formatted() -> String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
