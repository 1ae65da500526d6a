import Foundation

/// The JSON lines of a recording as they are written and read.
extension InputRecording {
    // MARK: - JSON shapes

    /// The header line: written with the setup's values (`SessionSetup.json`), read with the
    /// setup as JSON (`JSONValue`), so `SessionSetup(json:)` checks each field by its own rule.
    struct HeaderShape<Setup> {
        var recording: Int
        var width: Int
        var height: Int
        var started: Double
        var seen: [String: [String]]?
        /// Home tooltips shown before the session (so a replay shows the same ones).
        var tooltips: [String]?
        var setup: Setup?

        enum CodingKeys: String, CodingKey {
            case recording = "stories-recording", width, height, started, seen, tooltips, setup
        }
    }

    typealias Header = HeaderShape<JSONValue>

    struct Line {
        var t: Double
        var key: String?
        var mouse: String?
        var button: String?
        var direction: String?
        var x: Int?
        var y: Int?
        var mods: [String]?
        var resize: [Int]?
        var cell: Double?
        var end: Bool?

        init(t: Double, key: String? = nil, mouse: String? = nil, button: String? = nil, direction: String? = nil,
             x: Int? = nil, y: Int? = nil, mods: [String]? = nil, resize: [Int]? = nil, cell: Double? = nil, end: Bool? = nil) {
            (self.t, self.key, self.mouse, self.button, self.direction) = (t, key, mouse, button, direction)
            (self.x, self.y, self.mods, self.resize, self.cell, self.end) = (x, y, mods, resize, cell, end)
        }

        /// A line's fields, each of the kind it must be (the values are checked after).
        init(_ fields: Fields) throws(Fields.Problem) {
            self.init(t: try fields.required("t", Fields.number, "a number"),
                      key: try fields.optional("key", Fields.string, "text"),
                      mouse: try fields.optional("mouse", Fields.string, "text"),
                      button: try fields.optional("button", Fields.string, "text"),
                      direction: try fields.optional("direction", Fields.string, "text"),
                      x: try fields.optional("x", Fields.number, "a number").map(Fields.clampedInt),
                      y: try fields.optional("y", Fields.number, "a number").map(Fields.clampedInt),
                      mods: try fields.optional("mods", Fields.strings, "a list of modifier names"),
                      resize: try fields.optional("resize", Fields.numbers, "[width, height]").map { $0.map(Fields.clampedInt) },
                      cell: try fields.optional("cell", Fields.number, "a number"),
                      end: try fields.optional("end", Fields.bool, "true or false"))
        }
    }
}

extension InputRecording.Line {
    /// The line as written: only the members it has.
    var json: JSONValue {
        var members: [String: JSONValue] = ["t": .number(t)]
        members.put("key", key.map(JSONValue.string))
        members.put("mouse", mouse.map(JSONValue.string))
        members.put("button", button.map(JSONValue.string))
        members.put("direction", direction.map(JSONValue.string))
        members.put("x", x.map(JSONValue.int))
        members.put("y", y.map(JSONValue.int))
        members.put("mods", mods.map(JSONValue.strings))
        members.put("resize", resize.map { .array($0.map(JSONValue.int)) })
        members.put("cell", cell.map(JSONValue.number))
        members.put("end", end.map(JSONValue.bool))
        return .object(members)
    }
}

extension InputRecording {
    /// The members of one line's object, read by kind; a member of the wrong kind is a
    /// `Problem` naming it. `null` reads as absent.
    struct Fields {
        struct Problem: Error { var reason: String }
        let members: [String: JSONValue]
        init(_ members: [String: JSONValue]) { self.members = members }

        func optional<T>(_ key: String, _ read: (JSONValue) -> T?, _ kind: String) throws(Problem) -> T? {
            guard let value = members[key], value != .null else { return nil }
            guard let read = read(value) else { throw Problem(reason: "\"\(key)\" must be \(kind), found \(Self.found(value, read))") }
            return read
        }

        /// What a reader balked at in `value`: inside a list or an object, the first member
        /// it would not take and where ("a number at [1]", "a number at \"s\"[0]").
        static func found<T>(_ value: JSONValue, _ read: (JSONValue) -> T?) -> String {
            func name(_ key: String) -> String { "\"" + SafeText.line(String(key.prefix(40))) + "\"" }
            switch value {
            case .array(let elements):
                guard let index = elements.indices.first(where: { read(.array([elements[$0]])) == nil }) else { break }
                return "\(elements[index].kindName) at [\(index)]"
            case .object(let members):
                let sorted = members.sorted { $0.key < $1.key }
                guard let (key, member) = sorted.first(where: { read(.object([$0.key: $0.value])) == nil }) else { break }
                if case .array(let elements) = member,
                   let index = elements.indices.first(where: { read(.object([key: .array([elements[$0]])])) == nil }) {
                    return "\(elements[index].kindName) at \(name(key))[\(index)]"
                }
                return "\(member.kindName) at \(name(key))"
            default:
                break
            }
            return value.kindName
        }

        func required<T>(_ key: String, _ read: (JSONValue) -> T?, _ kind: String) throws(Problem) -> T {
            guard let value = try optional(key, read, kind) else { throw Problem(reason: "\"\(key)\" is missing") }
            return value
        }

        static func number(_ value: JSONValue) -> Double? { if case .number(let number) = value { number } else { nil } }
        static func string(_ value: JSONValue) -> String? { if case .string(let text) = value { text } else { nil } }
        static func bool(_ value: JSONValue) -> Bool? { if case .bool(let flag) = value { flag } else { nil } }
        static func strings(_ value: JSONValue) -> [String]? {
            guard case .array(let elements) = value else { return nil }
            let texts = elements.compactMap(string)
            return texts.count == elements.count ? texts : nil
        }
        static func numbers(_ value: JSONValue) -> [Double]? {
            guard case .array(let elements) = value else { return nil }
            let numbers = elements.compactMap(number)
            return numbers.count == elements.count ? numbers : nil
        }
        /// A whole number that fits an Int, else nil.
        static func wholeNumber(_ value: JSONValue?) -> Int? {
            guard case .number(let number)? = value, number.rounded() == number else { return nil }
            return Int(exactly: number)
        }
        /// A number as an Int for a range check after: a fraction or a number no Int holds
        /// becomes -1, outside every range the lines allow.
        static func clampedInt(_ number: Double) -> Int { wholeNumber(.number(number)) ?? -1 }
    }
}

extension InputRecording.HeaderShape where Setup == JSONValue {
    /// The line as written.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            CodingKeys.recording.rawValue: .int(recording), "width": .int(width), "height": .int(height), "started": .number(started),
        ]
        members.put("seen", seen.map { .object($0.mapValues(JSONValue.strings)) })
        members.put("tooltips", tooltips.map(JSONValue.strings))
        members.put("setup", setup)
        return .object(members)
    }

    /// The header's fields, each of the kind it must be (the values are checked after).
    init(_ fields: InputRecording.Fields) throws(InputRecording.Fields.Problem) {
        typealias Fields = InputRecording.Fields
        let seen = try fields.optional("seen", { value -> [String: [String]]? in
            guard case .object(let stories) = value else { return nil }
            var seen: [String: [String]] = [:]
            for (story, items) in stories {
                guard let items = Fields.strings(items) else { return nil }
                seen[story] = items
            }
            return seen
        }, "an object of story ids, each with a list of item ids")
        self.init(recording: try fields.required("stories-recording", Fields.wholeNumber, "a whole number"),
                  width: Fields.clampedInt(try fields.required("width", Fields.number, "a number")),
                  height: Fields.clampedInt(try fields.required("height", Fields.number, "a number")),
                  started: try fields.required("started", Fields.number, "a number"),
                  seen: seen,
                  tooltips: try fields.optional("tooltips", Fields.strings, "a list of tooltip ids"),
                  setup: fields.members["setup"])
    }
}
