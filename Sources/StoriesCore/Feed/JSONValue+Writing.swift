import Foundation

/// The one JSON writer: a `JSONValue` to bytes through `JSONText`. Keys are written sorted,
/// so the same value is always the same bytes (an ETag, a cache file, a recording's lines
/// compared by a test); slashes are not escaped; a whole number is written without a
/// fraction; control characters as `\n` or `\u001f`; a number JSON cannot hold (NaN, ±∞)
/// as `null`. `pretty` indents by two spaces, one member a line (files a person reads: a
/// story written by `init`, the seen state).
extension JSONValue {
    public func data(pretty: Bool = false) -> Data {
        var out = JSONText()
        out.value(self, indent: pretty ? 0 : nil)
        return Data(out.bytes)
    }

    /// The same bytes as text (one line unless `pretty`).
    public func text(pretty: Bool = false) -> String {
        var out = JSONText()
        out.value(self, indent: pretty ? 0 : nil)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    // Values made from Swift ones, for writers.
    public static func int(_ value: Int) -> JSONValue { .number(Double(value)) }
    /// A number to so many decimal places (a time in milliseconds to two).
    public static func rounded(_ value: Double, places: Int) -> JSONValue {
        let scale = pow(10, Double(max(0, min(places, 9))))
        return .number((value * scale).rounded() / scale)
    }
    public static func strings(_ values: some Sequence<String>) -> JSONValue { .array(values.map(JSONValue.string)) }

    // What a reader takes out, nil when the value is of another kind.
    public var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    public var numberValue: Double? { if case .number(let number) = self { number } else { nil } }
    public var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let elements) = self { elements } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let members) = self { members } else { nil } }

    /// A member of an object (nil for anything else, or a key it does not have).
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Sets the member only when there is a value: an optional field is left out, not `null`.
    public mutating func put(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}

extension JSONText {
    /// `indent` nil: all on one line; else the depth of the value, in levels of two spaces.
    mutating func value(_ value: JSONValue, indent: Int?) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            guard !elements.isEmpty else { return raw("[]") }
            bytes.append(UInt8(ascii: "["))
            for (n, element) in elements.enumerated() {
                if n > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent.map { $0 + 1 })
                self.value(element, indent: indent.map { $0 + 1 })
            }
            newline(indent)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return raw("{}") }
            bytes.append(UInt8(ascii: "{"))
            for (n, key) in members.keys.sorted().enumerated() {
                if n > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent.map { $0 + 1 })
                string(key)
                bytes.append(UInt8(ascii: ":"))
                if indent != nil { bytes.append(UInt8(ascii: " ")) }
                self.value(members[key] ?? .null, indent: indent.map { $0 + 1 })
            }
            newline(indent)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A number as JSON has it: whole numbers up to 2^53 without a fraction (`3`, not
    /// `3.0`), others in Swift's shortest form that reads back the same (`0.1`, `1e-07`).
    mutating func number(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 {
            return number(Int64(value))
        }
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func newline(_ indent: Int?) {
        guard let indent else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }
}
