import Foundation

/// An `expect` line's members, by kind.
extension Flow {
    static let expectationKinds = ["text", "gesture", "shown", "progress", "seen", "navigation", "screen"]
    /// The most lines a screen expectation may list.
    public static let maxScreenLines = InputLimits.maxScreenSide

    static func readExpectation(_ fields: F, fail: (String) -> ConfigError) throws -> (FlowExpectation, now: Bool, members: Set<String>) {
        let kind = try fields.required("expect", F.string, "one of \(expectationKinds.joined(separator: ", "))")
        let now = try fields.optional("now", F.bool, "true or false") ?? false
        func text(_ key: String, required: Bool = false) throws -> String? {
            let value: String?
            if required { value = try fields.required(key, F.string, "text") } else { value = try fields.optional(key, F.string, "text") }
            if let value, !(1...maxText).contains(value.utf8.count) { throw fail("\"\(key)\" must be 1 to \(maxText) bytes of text") }
            return value
        }
        func share(_ key: String) throws -> Double? {
            guard let value = try fields.optional(key, F.number, "a share from 0 to 1") else { return nil }
            guard value.isFinite, (0...1).contains(value) else { throw fail("\"\(key)\" must be a share from 0 to 1") }
            return value
        }
        func count(_ key: String) throws -> Int? {
            guard let value = try fields.optional(key, F.number, "a whole number") else { return nil }
            let whole = F.clampedInt(value)
            guard (1...1_000_000).contains(whole) else { throw fail("\"\(key)\" must be a whole number from 1 to 1000000") }
            return whole
        }
        func item() throws -> FlowItem? {
            switch fields.members["item"] {
            case nil, .null?: return nil
            case .number?: return .number(try count("item") ?? 1)
            case .string?: return .id(try text("item") ?? "")
            case let other?: throw fail("\"item\" must be a number (1 is the first) or an item's id, found \(other.kindName)")
            }
        }
        switch kind {
        case "text":
            let wanted = try text("text", required: true) ?? ""
            guard wanted.unicodeScalars.allSatisfy({ $0 == " " || SafeText.isShowable($0) }) else {
                throw fail("\"text\" is what one row shows: no line breaks, tabs or control characters")
            }
            let side = InputLimits.maxScreenSide
            var place = TextPlace.anywhere
            if let region = try fields.optional("region", F.numbers, "[x, y, width, height]") {
                let v = region.map(F.clampedInt)
                guard v.count == 4, (0..<side).contains(v[0]), (0..<side).contains(v[1]), (1...side).contains(v[2]), (1...side).contains(v[3]) else {
                    throw fail("\"region\" must be [x, y, width, height]: x and y from 0 to \(side - 1), width and height from 1 to \(side)")
                }
                place = .region(x: v[0], y: v[1], width: v[2], height: v[3])
            }
            if let cell = try fields.optional("at", F.numbers, "[x, y]") {
                guard place == .anywhere else { throw fail("\"region\" and \"at\" together: one place a line") }
                let p = try point(cell, "at", fail: fail)
                place = .cell(x: p.x, y: p.y)
            }
            let visible = try fields.optional("visible", F.bool, "true or false") ?? true
            return (.text(wanted, place: place, present: visible), now, ["text", "region", "at", "visible"])
        case "gesture":
            let gesture = FlowGesture(gesture: try text("gesture"), handler: try text("handler"),
                                      declined: try fields.optional("declined", F.strings, "a list of recognizer names") ?? [],
                                      result: try fields.optional("result", F.strings, "a list of results") ?? [])
            return (.gesture(gesture), now, ["gesture", "handler", "declined", "result"])
        case "shown":
            if try fields.optional("home", F.bool, "true") == true {
                guard fields.members["story"] == nil, fields.members["item"] == nil else { throw fail("\"home\" and a story together") }
                return (.shown(.home), now, ["home"])
            }
            guard let story = try text("story") else { throw fail("\"shown\" needs \"story\" (an id or an author's name) or \"home\": true") }
            return (.shown(.story(story, item: try item())), now, ["home", "story", "item"])
        case "progress":
            let atLeast = try share("atLeast"), atMost = try share("atMost")
            if let atLeast, let atMost, atLeast > atMost { throw fail("\"atLeast\" is more than \"atMost\"") }
            return (.progress(item: try count("item"), of: try count("of"), atLeast: atLeast, atMost: atMost), now,
                    ["item", "of", "atLeast", "atMost"])
        case "seen":
            guard let story = try text("story") else { throw fail("\"seen\" needs \"story\"") }
            let seen = try fields.optional("seen", F.bool, "true or false") ?? true
            return (.seen(story: story, item: try text("item"), seen: seen), now, ["story", "item", "seen"])
        case "navigation":
            var within: Double?
            if let ms = try fields.optional("visibleWithin", F.number, "milliseconds") {
                guard ms.isFinite, (0...3_600_000).contains(ms) else { throw fail("\"visibleWithin\" must be milliseconds from 0 to 3600000") }
                within = ms
            }
            let hit = try fields.optional("hit", F.bool, "true or false")
            return (.navigation(story: try text("story"), item: try item(), hit: hit, visibleWithin: within), now,
                    ["story", "item", "hit", "visibleWithin"])
        case "screen":
            let file = try text("file")
            let lines = try fields.optional("lines", F.strings, "a list of the screen's lines")
            guard (file == nil) != (lines == nil) else { throw fail("\"screen\" needs \"file\" (a snapshot beside the flow) or \"lines\", one of them") }
            if let lines, lines.count > maxScreenLines { throw fail("\"lines\" may list at most \(maxScreenLines) lines") }
            if let file { try checkSnapshotName(file, fail: fail) }
            return (.screen(lines: lines ?? [], file: file), now, ["file", "lines"])
        default:
            throw fail("\"expect\": unknown kind '\(SafeText.line(String(kind.prefix(40))))' (\(expectationKinds.joined(separator: ", ")))")
        }
    }

    /// A snapshot is a file in the flow's folder or below it: a shared flow cannot make a
    /// check read (and print a diff of) a file anywhere else.
    static func checkSnapshotName(_ name: String, fail: (String) -> ConfigError) throws {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0.isEmpty }), SafeText.line(name) == name else {
            throw fail("\"file\" must be a path inside the flow's folder (no leading /, no ..)")
        }
    }

    /// The snapshots the flow names, in order.
    public var snapshotFiles: [(line: Int, file: String)] {
        steps.compactMap { step in
            if case .expect(.screen(_, let file?), _) = step.kind { return (step.line, file) }
            return nil
        }
    }

    /// The flow with each named snapshot's lines in place (`read` gives a file's lines).
    public func resolvingSnapshots(_ read: (String) throws -> [String]) rethrows -> Flow {
        var flow = self
        for index in flow.steps.indices {
            if case .expect(.screen(_, let file?), let now) = flow.steps[index].kind {
                flow.steps[index].kind = .expect(.screen(lines: try read(file), file: file), now: now)
            }
        }
        return flow
    }
}
