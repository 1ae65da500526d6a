import Foundation

/// A recorded session: the screen it began on and every input with its time, so a replay
/// can feed the same inputs at the same moments. The file is JSON lines (docs/gestures.md
/// is the reference; version 1 is stable):
///
///     {"stories-recording":1,"width":100,"height":30,"started":1795240800.0,"seen":{"mika":["mika-t1"]}}
///     {"t":0.512,"key":"Right"}
///     {"t":1.020,"mouse":"press","button":"left","x":70,"y":12}
///     {"t":3.000,"resize":[80,24]}
///     {"t":9.500,"end":true}
///
/// `t` is seconds since the app started. Keys use the names of keys.conf ("Shift-Right",
/// "Space", "q"). `started` is the wall clock at the start (relative times replay the same),
/// `seen` what had been watched before it (the first unseen item replays the same).
public struct InputRecording: Equatable, Sendable {
    /// Version 2 added `setup`; version 1 files (no setup) still replay.
    public static let formatVersion = 2
    public static let readableVersions = 1...2
    /// The largest recording a replay reads, and so the most `--record` writes.
    public static let maxBytes = 64 << 20

    public enum Entry: Equatable, Sendable {
        case input(InputEvent)
        case resize(width: Int, height: Int)
        /// A cell's shape changed (width over height: the terminal's pixel size changed).
        case cellAspect(Double)
        /// The session ended here (the app quit, or the recording stopped).
        case end
    }

    public var width: Int
    public var height: Int
    /// Wall-clock seconds since 1970 when the session started.
    public var started: Double
    public var seen: SeenState
    /// What shaped the session (feed, network and seed, preloading, motion, keys,
    /// colours); nil in a version 1 file.
    public var setup: SessionSetup?
    public var entries: [(time: Double, entry: Entry)]

    public init(width: Int, height: Int, started: Double, seen: SeenState = SeenState(), setup: SessionSetup? = nil,
                entries: [(time: Double, entry: Entry)] = []) {
        self.width = width
        self.height = height
        self.started = started
        self.seen = seen
        self.setup = setup
        self.entries = entries
    }

    public static func == (a: InputRecording, b: InputRecording) -> Bool {
        a.width == b.width && a.height == b.height && a.started == b.started && a.seen == b.seen && a.setup == b.setup
            && a.entries.count == b.entries.count
            && zip(a.entries, b.entries).allSatisfy { $0.time == $1.time && $0.entry == $1.entry }
    }

    /// When the session ended: the `end` entry, or the last input.
    public var duration: Double { entries.last?.time ?? 0 }

    // MARK: - Writing

    /// The first line of the file.
    public var headerLine: String {
        Header(recording: Self.formatVersion, width: width, height: height, started: started,
               seen: seen.items.mapValues { $0.sorted() },
               tooltips: seen.tooltips.isEmpty ? nil : seen.tooltips.sorted(), setup: setup?.json).json.text()
    }

    /// One line of the file for an entry at a time.
    public static func line(_ entry: Entry, at time: Double) -> String {
        var line = Line(t: (time * 1000).rounded() / 1000)
        switch entry {
        case .end:
            line.end = true
        case .resize(let width, let height):
            line.resize = [width, height]
        case .cellAspect(let aspect):
            line.cell = (aspect * 1000).rounded() / 1000
        case .input(.key(let key, let modifiers)):
            line.key = name(of: key, modifiers: modifiers)
        case .input(.mouse(let mouse)):
            line.x = mouse.column
            line.y = mouse.row
            if !mouse.modifiers.isEmpty { line.mods = modifierNames(mouse.modifiers) }
            switch mouse.kind {
            case .press(let button): (line.mouse, line.button) = ("press", buttonName(button))
            case .release(let button): (line.mouse, line.button) = ("release", buttonName(button))
            case .drag(let button): (line.mouse, line.button) = ("drag", buttonName(button))
            case .move: line.mouse = "move"
            case .wheelUp: (line.mouse, line.direction) = ("wheel", "up")
            case .wheelDown: (line.mouse, line.direction) = ("wheel", "down")
            case .wheelLeft: (line.mouse, line.direction) = ("wheel", "left")
            case .wheelRight: (line.mouse, line.direction) = ("wheel", "right")
            }
        }
        return line.json.text()
    }

    /// The whole file.
    public var text: String {
        ([headerLine] + entries.map { Self.line($0.entry, at: $0.time) }).joined(separator: "\n") + "\n"
    }

    /// A key as keys.conf writes it: "Shift-Right", "Space", "q".
    public static func name(of key: Key, modifiers: Modifiers) -> String {
        let base: String
        switch key {
        case .character(" "): base = "Space"
        case .character(let c): base = String(c)
        case .up: base = "Up"
        case .down: base = "Down"
        case .left: base = "Left"
        case .right: base = "Right"
        case .enter: base = "Enter"
        case .escape: base = "Esc"
        case .tab: base = "Tab"
        case .backspace: base = "Backspace"
        case .delete: base = "Delete"
        case .insert: base = "Insert"
        case .home: base = "Home"
        case .end: base = "End"
        case .pageUp: base = "PgUp"
        case .pageDown: base = "PgDn"
        case .function(let n): base = "F\(n)"
        }
        return (modifierNames(modifiers).map { $0.capitalized } + [base]).joined(separator: "-")
    }

    private static func modifierNames(_ modifiers: Modifiers) -> [String] {
        var names: [String] = []
        if modifiers.contains(.control) { names.append("ctrl") }
        if modifiers.contains(.alt) { names.append("alt") }
        if modifiers.contains(.shift) { names.append("shift") }
        return names
    }

    private static func buttonName(_ button: MouseButton) -> String {
        switch button {
        case .left: "left"
        case .middle: "middle"
        case .right: "right"
        }
    }

    // MARK: - Reading

    /// Reads a recording; a bad line is an error naming the file, the line and the field.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> InputRecording {
        // CRLF line ends and a byte order mark read like LF (an editor on another system).
        let lines = TextLines.split(text)
        func fail(_ line: Int, _ reason: String) -> ConfigError { ConfigError(file: file, line: line, reason: reason) }
        guard let first = lines.first, !first.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail(1, "empty: a recording starts with {\"stories-recording\":2,…}")
        }
        // Read as every feed is (JSONValue: a key named twice is refused, not guessed at).
        let headerValue: JSONValue
        switch JSONValue.parseLine(first) {
        case .success(let value): headerValue = value
        case .failure(let failure): throw fail(1, "not a stories recording header: \(failure.reason)")
        }
        guard case .object(let headerMembers) = headerValue,
              let versionNumber = Fields.wholeNumber(headerMembers["stories-recording"]) else {
            throw fail(1, "not a stories recording header (expected {\"stories-recording\":\(formatVersion),\"width\":…,\"height\":…})")
        }
        guard readableVersions.contains(versionNumber) else {
            throw fail(1, "recording version \(versionNumber) is not supported (this stories reads versions \(readableVersions.lowerBound) to \(readableVersions.upperBound))")
        }
        let header: Header
        do { header = try Header(Fields(headerMembers)) } catch {
            throw fail(1, "header: \(error.reason)")
        }
        var setup: SessionSetup?
        if let json = header.setup, json != .null {
            guard versionNumber >= 2 else { throw fail(1, "\"setup\" came with version 2; this file says version 1") }
            do { setup = try SessionSetup(json: json) } catch { throw fail(1, "\"\(error.field)\" \(error.reason)") }
        }
        let side = InputLimits.maxScreenSide
        guard (1...side).contains(header.width), (1...side).contains(header.height) else {
            throw fail(1, "width and height must be from 1 to \(side) (the largest screen, as for --size)")
        }
        guard header.started.isFinite, (0...InputLimits.maxWallClock).contains(header.started) else {
            throw fail(1, "\"started\" must be seconds since 1970, up to the year 5000")
        }
        var recording = InputRecording(width: header.width, height: header.height, started: header.started,
                                       seen: SeenState(items: (header.seen ?? [:]).mapValues(Set.init),
                                                       tooltips: Set(header.tooltips ?? [])), setup: setup)
        var previous = 0.0
        for (offset, raw) in lines.enumerated().dropFirst() {
            let number = offset + 1
            guard !raw.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let line: Line
            switch JSONValue.parseLine(raw) {
            case .failure(let failure): throw fail(number, failure.reason)
            case .success(let value):
                guard case .object(let members) = value, case .number? = members["t"] else {
                    throw fail(number, "not a JSON object with a number \"t\"")
                }
                do { line = try Line(Fields(members)) } catch { throw fail(number, error.reason) }
            }
            guard line.t.isFinite, line.t >= previous, line.t <= InputLimits.maxRecordingTime else {
                throw fail(number, "\"t\" must be a number not smaller than the line before's (\(previous)), at most a year (\(Int(InputLimits.maxRecordingTime)) s)")
            }
            previous = line.t
            recording.entries.append((line.t, try entry(of: line, fail: { fail(number, $0) })))
        }
        return recording
    }

    static func entry(of line: Line, fail: (String) -> ConfigError) throws(ConfigError) -> Entry {
        if line.end == true { return .end }
        if let size = line.resize {
            let side = InputLimits.maxScreenSide
            guard size.count == 2, (1...side).contains(size[0]), (1...side).contains(size[1]) else {
                throw fail("\"resize\" must be [width, height], each from 1 to \(side)")
            }
            return .resize(width: size[0], height: size[1])
        }
        if let cell = line.cell {
            let range = Display.cellAspectRange
            guard cell.isFinite, range.contains(cell) else {
                throw fail("\"cell\" must be a cell's width over its height, from \(range.lowerBound) to \(range.upperBound)")
            }
            return .cellAspect(cell)
        }
        if let key = line.key {
            guard let input = KeyBindings.input(named: key) else { throw fail("\"key\": unknown key '\(SafeText.line(String(key.prefix(40))))'") }
            return .input(input)
        }
        guard let kind = line.mouse else { throw fail("a line needs \"key\", \"mouse\", \"resize\", \"cell\" or \"end\"") }
        guard let x = line.x, let y = line.y, (0...InputLimits.maxCoordinate).contains(x), (0...InputLimits.maxCoordinate).contains(y) else {
            throw fail("\"mouse\" needs \"x\" and \"y\", each from 0 to \(InputLimits.maxCoordinate)")
        }
        var modifiers: Modifiers = []
        for name in line.mods ?? [] {
            switch name.lowercased() {
            case "shift": modifiers.insert(.shift)
            case "alt": modifiers.insert(.alt)
            case "ctrl": modifiers.insert(.control)
            default: throw fail("\"mods\": unknown modifier '\(SafeText.line(String(name.prefix(40))))'")
            }
        }
        func button() throws(ConfigError) -> MouseButton {
            switch line.button {
            case "left": return .left
            case "middle": return .middle
            case "right": return .right
            default: throw fail("\"button\" must be left, middle or right")
            }
        }
        let mouseKind: MouseEvent.Kind
        switch kind {
        case "press": mouseKind = .press(try button())
        case "release": mouseKind = .release(try button())
        case "drag": mouseKind = .drag(try button())
        case "move": mouseKind = .move
        case "wheel":
            switch line.direction {
            case "up": mouseKind = .wheelUp
            case "down": mouseKind = .wheelDown
            case "left": mouseKind = .wheelLeft
            case "right": mouseKind = .wheelRight
            default: throw fail("\"direction\" must be up, down, left or right")
            }
        default:
            throw fail("\"mouse\": unknown kind '\(SafeText.line(String(kind.prefix(40))))' (press, release, drag, move, wheel)")
        }
        return .input(.mouse(MouseEvent(kind: mouseKind, column: x, row: y, modifiers: modifiers)))
    }
}
