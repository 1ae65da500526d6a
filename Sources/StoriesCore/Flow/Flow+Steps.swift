import Foundation

/// One step line of a flow, read member by member: a flow is written by hand, so a member
/// no step knows (a typo such as "vissible") is an error, never a check quietly skipped.
extension Flow {
    typealias F = InputRecording.Fields

    static let inputMembers: Set<String> = ["key", "mouse", "button", "direction", "x", "y", "mods", "resize", "cell", "end"]
    static let commonMembers: Set<String> = ["t", "name"]

    static func readStep(_ members: [String: JSONValue], line: Int, fail: (String) -> ConfigError) throws -> Step {
        let fields = F(members)
        var at: Double?
        if let t = try fields.optional("t", F.number, "a number") {
            guard t.isFinite, (0...maxDuration).contains(t) else { throw fail("\"t\" must be seconds from 0 to \(Int(maxDuration))") }
            at = t
        }
        let name = try fields.optional("name", F.string, "text").map { SafeText.line(String($0.prefix(200))) }
        func only(_ allowed: Set<String>) throws {
            let unknown = Set(members.keys).subtracting(allowed).subtracting(commonMembers).sorted()
            guard let first = unknown.first else { return }
            throw fail("unknown member \"\(SafeText.line(String(first.prefix(40))))\" here (this line takes \(allowed.union(commonMembers).sorted().joined(separator: ", ")))")
        }
        let kinds = ["expect", "wait", "tap", "hold", "drag"].filter { members[$0] != nil }
        guard kinds.count <= 1, kinds.isEmpty || Set(members.keys).isDisjoint(with: ["key", "mouse", "resize", "cell", "end"]) else {
            throw fail("one step a line: \(kinds.joined(separator: ", ")) together")
        }
        switch kinds.first {
        case "expect"?:
            let (expectation, now, allowed) = try readExpectation(fields, fail: fail)
            try only(allowed.union(["expect", "now"]))
            return Step(line: line, at: at, kind: .expect(expectation, now: now), name: name)
        case "wait"?:
            try only(["wait"])
            if case .string(let word)? = members["wait"] {
                if word == "idle" { return Step(line: line, at: at, kind: .settle, name: name) }
                // A bare number is seconds here, as a number is ("2" is not 2 ms).
                let trimmed = word.trimmingCharacters(in: .whitespaces)
                let parsed = Double(trimmed).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? NetworkProfile.parseDuration(trimmed)
                guard let seconds = parsed, seconds <= maxDuration else {
                    throw fail("\"wait\" must be seconds (0.5, \"300ms\", \"2s\") up to \(Int(maxDuration)), or \"idle\"")
                }
                return Step(line: line, at: at, kind: .wait(seconds), name: name)
            }
            let seconds = try fields.required("wait", F.number, "seconds or \"idle\"")
            guard seconds.isFinite, (0...maxDuration).contains(seconds) else {
                throw fail("\"wait\" must be seconds (0.5, \"300ms\", \"2s\") up to \(Int(maxDuration)), or \"idle\"")
            }
            return Step(line: line, at: at, kind: .wait(seconds), name: name)
        case "tap"?:
            try only(["tap", "button", "mods"])
            let point = try readPoint(fields, "tap", fail: fail)
            let (button, mods) = try readButton(fields, fail: fail)
            return Step(line: line, at: at, kind: .inputs([(0, mouse(.press(button), point, mods)), (0.05, mouse(.release(button), point, mods))]), name: name)
        case "hold"?:
            try only(["hold", "for", "button", "mods"])
            let point = try readPoint(fields, "hold", fail: fail)
            let (button, mods) = try readButton(fields, fail: fail)
            let duration = try fields.optional("for", F.number, "seconds") ?? 1
            guard duration.isFinite, duration > 0, duration <= 60 else { throw fail("\"for\" must be seconds over 0, at most 60") }
            return Step(line: line, at: at, kind: .inputs([(0, mouse(.press(button), point, mods)), (duration, mouse(.release(button), point, mods))]), name: name)
        case "drag"?:
            try only(["drag", "over", "release", "button", "mods"])
            return Step(line: line, at: at, kind: .inputs(try readDrag(fields, fail: fail)), name: name)
        default:
            try only(inputMembers)
            var withTime = members
            withTime["t"] = .number(0)
            let recorded = try InputRecording.Line(F(withTime))
            return Step(line: line, at: at, kind: .inputs([(0, try InputRecording.entry(of: recorded, fail: fail))]), name: name)
        }
    }

    static func mouse(_ kind: MouseEvent.Kind, _ point: (x: Int, y: Int), _ mods: Modifiers) -> InputRecording.Entry {
        .input(.mouse(MouseEvent(kind: kind, column: point.x, row: point.y, modifiers: mods)))
    }

    static func readPoint(_ fields: F, _ key: String, fail: (String) -> ConfigError) throws -> (x: Int, y: Int) {
        let numbers = try fields.required(key, F.numbers, "[x, y]")
        return try point(numbers, key, fail: fail)
    }

    static func point(_ numbers: [Double], _ key: String, fail: (String) -> ConfigError) throws -> (x: Int, y: Int) {
        let limit = InputLimits.maxCoordinate
        let values = numbers.map(F.clampedInt)
        guard values.count == 2, values.allSatisfy({ (0...limit).contains($0) }) else {
            throw fail("\"\(key)\" must be [x, y], each a cell from 0 to \(limit)")
        }
        return (values[0], values[1])
    }

    static func readButton(_ fields: F, fail: (String) -> ConfigError) throws -> (MouseButton, Modifiers) {
        let button: MouseButton
        switch try fields.optional("button", F.string, "text") ?? "left" {
        case "left": button = .left
        case "middle": button = .middle
        case "right": button = .right
        default: throw fail("\"button\" must be left, middle or right")
        }
        var modifiers: Modifiers = []
        for name in try fields.optional("mods", F.strings, "a list of modifier names") ?? [] {
            switch name.lowercased() {
            case "shift": modifiers.insert(.shift)
            case "alt": modifiers.insert(.alt)
            case "ctrl": modifiers.insert(.control)
            default: throw fail("\"mods\": unknown modifier '\(SafeText.line(String(name.prefix(40))))'")
            }
        }
        return (button, modifiers)
    }

    /// A drag written whole: pressed at the first point, moved through the others at a
    /// steady speed, a report every `dragStep`, released at the last (unless `release` is
    /// false: the drag is left held, for a step after it to interrupt).
    static func readDrag(_ fields: F, fail: (String) -> ConfigError) throws -> [(after: Double, entry: InputRecording.Entry)] {
        guard case .array(let list)? = fields.members["drag"], (2...maxDragPoints).contains(list.count) else {
            throw fail("\"drag\" must be a list of 2 to \(maxDragPoints) points [[x, y], [x, y], …]")
        }
        var points: [(x: Int, y: Int)] = []
        for element in list {
            guard let numbers = F.numbers(element) else { throw fail("\"drag\" must be a list of points [[x, y], [x, y], …]") }
            points.append(try point(numbers, "drag", fail: fail))
        }
        let over = try fields.optional("over", F.number, "seconds") ?? 0.3
        guard over.isFinite, over > 0, over <= 60 else { throw fail("\"over\" must be seconds over 0, at most 60") }
        let release = try fields.optional("release", F.bool, "true or false") ?? true
        let (button, mods) = try readButton(fields, fail: fail)
        // Where the pointer is a share of the way along the path.
        var lengths: [Double] = [0]
        for index in 1..<points.count {
            let dx = Double(points[index].x - points[index - 1].x), dy = Double(points[index].y - points[index - 1].y)
            lengths.append(lengths[index - 1] + (dx * dx + dy * dy).squareRoot())
        }
        let total = lengths[lengths.count - 1]
        func position(_ share: Double) -> (x: Int, y: Int) {
            guard total > 0 else { return points[points.count - 1] }
            let distance = share * total
            var segment = 1
            while segment < points.count - 1, lengths[segment] < distance { segment += 1 }
            let span = lengths[segment] - lengths[segment - 1]
            let along = span > 0 ? (distance - lengths[segment - 1]) / span : 1
            let a = points[segment - 1], b = points[segment]
            return (Int((Double(a.x) + along * Double(b.x - a.x)).rounded()), Int((Double(a.y) + along * Double(b.y - a.y)).rounded()))
        }
        let moves = max(1, min(1800, Int((over / dragStep).rounded())))
        var entries: [(after: Double, entry: InputRecording.Entry)] = [(0, mouse(.press(button), points[0], mods))]
        for index in 1...moves {
            entries.append((over / Double(moves), mouse(.drag(button), position(Double(index) / Double(moves)), mods)))
        }
        if release { entries.append((0, mouse(.release(button), points[points.count - 1], mods))) }
        return entries
    }
}
