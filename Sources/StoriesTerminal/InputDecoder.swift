import StoriesCore

/// One unit read from ncurses: a character, or a function key ncurses recognised (named by
/// `keyname()`, e.g. "KEY_LEFT", "KEY_SRIGHT", "kUP5").
public enum RawInput: Equatable, Sendable {
    case scalar(Unicode.Scalar)
    case keyName(String)
}

/// Turns raw input into `InputEvent`s. Pure: the run loop feeds it what one drain of stdin
/// read, then calls `flush()`.
///
/// ncurses decodes the keys its terminfo knows. Everything else arrives as characters and is
/// parsed here: SGR mouse reports (`ESC [ < b ; x ; y M|m`, which the backend keeps away from
/// ncurses), CSI/SS3 keys a terminfo entry lacks, Alt+key (`ESC` + key) and a lone Esc.
/// Plain characters are grouped into grapheme clusters, so an emoji sequence is one event.
public struct InputDecoder: Sendable {
    private var escape: [Unicode.Scalar]? = nil
    /// Inside a control sequence too long to be one we read: skip to its final byte.
    private var discardingSequence = false
    private var text = String.UnicodeScalarView()
    private var events: [InputEvent] = []
    /// Focus reports read (`CSI I`: the window gained the focus, true; `CSI O`: lost it), in
    /// order; taken with `takeFocusReports()`. Not input events: nothing routes them.
    private var focusReports: [Bool] = []
    /// Operating-system command answers (`ESC ] body BEL` or `ESC ] body ESC \`): their
    /// bodies, at most 256 characters (OSC 11's "11;rgb:…" says the background).
    private var oscReports: [String] = []
    /// Inside an OSC answer (or a DCS or APC one: `stringKind`): its body so far.
    private var osc: String.UnicodeScalarView?
    private var oscSawEscape = false
    /// What follows ESC for the string being read: `]` (OSC, an answer kept), `P` (DCS:
    /// XTVERSION's, DECRQSS's) or `_` (APC: kitty's graphics answers), which are read to
    /// their end and dropped. A terminal slower than the start-up probe's 100 ms (over ssh)
    /// answers while the app runs: its answers are never keys.
    private var stringKind: Unicode.Scalar = "]"

    /// Answers to the start-up probe that came after it stopped waiting (a terminal slower
    /// than 100 ms: kitty's graphics answer, XTVERSION, DA1, the cell size), whole, as the
    /// terminal sent them, for `ProbeReplies` to read; at most 16 kept.
    private var lateAnswers: [String] = []

    public init() {}

    /// The probe's answers read since the last call.
    public mutating func takeLateAnswers() -> [String] {
        defer { lateAnswers = [] }
        return lateAnswers
    }

    private mutating func keepAnswer(_ sequence: String) {
        if lateAnswers.count < 16 { lateAnswers.append(sequence) }
    }

    /// The OSC answers read since the last call.
    public mutating func takeOSCReports() -> [String] {
        defer { oscReports = [] }
        return oscReports
    }

    /// The focus reports read since the last call.
    public mutating func takeFocusReports() -> [Bool] {
        defer { focusReports = [] }
        return focusReports
    }

    public mutating func feed(_ input: RawInput) {
        switch input {
        case .keyName(let name):
            finishText()
            finishEscapeAsTyped()
            if let event = Self.event(forKeyName: name) { events.append(event) }
        case .scalar(let scalar):
            feed(scalar)
        }
    }

    /// Ends a batch: a pending lone `ESC` becomes the Esc key. Returns all decoded events.
    public mutating func flush() -> [InputEvent] {
        // What came after ESC ] is an answer only if it starts as one ("11;…", digits and
        // a semicolon): anything else (Alt+], a paste) is read as typed, never swallowed.
        if let body = osc, !oscSawEscape, !Self.startsAsAnswer(body, kind: stringKind) {
            osc = nil
            finishText()
            events.append(.key(.character(Character(stringKind)), .alt))
            for scalar in body { feed(scalar) }
        }
        finishText()
        finishEscapeAsTyped()
        defer { events.removeAll() }
        return events
    }

    /// Whether a string's body so far can be the start of an answer: OSC's are numbered
    /// ("11;…"), kitty's APC answers start with `G`, DCS answers with `>|` (XTVERSION), a
    /// digit (DECRQSS, XTGETTCAP) or `+`. An empty body is not one yet (Alt+] or Alt+P).
    static func startsAsAnswer(_ body: String.UnicodeScalarView, kind: Unicode.Scalar) -> Bool {
        guard let first = body.first else { return false }
        switch kind {
        case "_":
            return first == "G"
        case "P":
            return first == ">" || first == "+" || ("0"..."9").contains(first)
        default:
            let digits = body.prefix { ("0"..."9").contains($0) }.count
            return digits > 0 && (digits == body.count || body[body.index(body.startIndex, offsetBy: digits)] == ";")
        }
    }

    public mutating func decode(_ inputs: [RawInput]) -> [InputEvent] {
        for input in inputs { feed(input) }
        return flush()
    }

    private mutating func feed(_ scalar: Unicode.Scalar) {
        if var body = osc {
            // An OSC answer ends with BEL or ESC \; nothing in it is typed. Anything an
            // answer cannot hold (another control character, an Escape that does not end
            // it, more than 256 characters) ends it unread, and is read as typed.
            if scalar == "\u{07}" || (oscSawEscape && scalar == "\\") {
                osc = nil
                oscSawEscape = false
                if stringKind == "]" {
                    oscReports.append(String(body))
                } else {
                    keepAnswer("\u{1B}" + String(stringKind) + String(body) + "\u{1B}\\")
                }
                return
            }
            if scalar == "\u{1B}", !oscSawEscape {
                oscSawEscape = true
                return
            }
            let abandoned = oscSawEscape || scalar.value < 0x20 || scalar.value == 0x7F || body.count >= 256
            osc = nil
            if abandoned {
                let sawEscape = oscSawEscape
                oscSawEscape = false
                if sawEscape { feed("\u{1B}") }
                feed(scalar)
                return
            }
            body.append(scalar)
            osc = body
            return
        }
        if discardingSequence {
            if (0x20...0x3F).contains(scalar.value) { return }
            discardingSequence = false
            if (0x40...0x7E).contains(scalar.value) { return }
        }
        if var sequence = escape {
            sequence.append(scalar)
            escape = sequence
            continueEscape()
            return
        }
        switch scalar.value {
        case 0x1B:
            finishText()
            escape = [scalar]
        case 0x0D, 0x0A:
            finishText(); events.append(.key(.enter))
        case 0x09:
            finishText(); events.append(.key(.tab))
        case 0x7F, 0x08:
            finishText(); events.append(.key(.backspace))
        case 0x00:
            finishText(); events.append(.key(.character(" "), .control))
        case 0x01...0x1A:
            finishText()
            let letter = Character(Unicode.Scalar(scalar.value + 0x60) ?? "?")
            events.append(.key(.character(letter), .control))
        case 0x1C...0x1F:
            finishText()
        default:
            text.append(scalar)
        }
    }

    private mutating func finishText() {
        guard !text.isEmpty else { return }
        for character in String(text) { events.append(.key(.character(character))) }
        text.removeAll()
    }

    /// Decides what the escape sequence collected so far is, if it is complete.
    private mutating func continueEscape() {
        guard let sequence = escape, sequence.count >= 2 else { return }
        let second = sequence[1]
        switch second {
        case "]", "P", "_":
            escape = nil
            osc = String.UnicodeScalarView()
            stringKind = second
        case "[":
            guard sequence.count >= 3 else { return }
            let last = sequence[sequence.count - 1].value
            if (0x40...0x7E).contains(last) {
                escape = nil
                let body = Array(sequence.dropFirst(2))
                if body == ["I"] || body == ["O"] {
                    focusReports.append(body == ["I"]) // focus in / out (CSI ? 1004 h)
                } else if (body.first == "?" && body.last == "c") || (body.first == "6" && body.last == "t") {
                    keepAnswer("\u{1B}[" + String(String.UnicodeScalarView(body))) // DA1; the cell size
                } else if let event = Self.csi(body) {
                    events.append(event)
                }
            } else if !(0x20...0x3F).contains(last) {
                escape = nil // not a sequence we can read: drop it, never print it
            } else if sequence.count > 32 {
                escape = nil
                discardingSequence = true
            }
        case "O":
            guard sequence.count >= 3 else { return }
            escape = nil
            if let event = Self.ss3(sequence[2]) { events.append(event) }
        case "\u{1B}":
            events.append(.key(.escape))
            escape = [second]
        default:
            escape = nil
            var alt = InputDecoder()
            alt.feed(.scalar(second))
            for case .key(let key, let modifiers) in alt.flush() {
                events.append(.key(key, modifiers.union(.alt)))
            }
        }
    }

    private mutating func finishEscapeAsTyped() {
        discardingSequence = false
        guard let sequence = escape else { return }
        escape = nil
        if sequence.count == 1 {
            events.append(.key(.escape))
        } else if sequence.count == 2, sequence[1] == "[" {
            events.append(.key(.character("["), .alt))
        } else if sequence.count == 2, sequence[1] == "O" {
            events.append(.key(.character("O"), .alt))
        }
        // A longer unfinished sequence is dropped: it can only be a cut-off report.
    }

    // MARK: - Sequences

    private static func modifiers(fromParameter value: Int) -> Modifiers {
        guard value >= 2 else { return [] }
        let bits = value - 1
        var modifiers: Modifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        return modifiers
    }

    static func csi(_ body: [Unicode.Scalar]) -> InputEvent? {
        guard let final = body.last else { return nil }
        var parameterText = String(String.UnicodeScalarView(body.dropLast()))
        if parameterText.hasPrefix("<") {
            parameterText.removeFirst()
            return sgrMouse(parameterText, pressed: final == "M")
        }
        let numbers = parameterText.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
        let modifiers = numbers.count >= 2 ? Self.modifiers(fromParameter: numbers[1]) : []
        let key: Key
        switch final {
        case "A": key = .up
        case "B": key = .down
        case "C": key = .right
        case "D": key = .left
        case "H": key = .home
        case "F": key = .end
        case "Z": return .key(.tab, .shift)
        case "~":
            switch numbers.first ?? 0 {
            case 1, 7: key = .home
            case 4, 8: key = .end
            case 2: key = .insert
            case 3: key = .delete
            case 5: key = .pageUp
            case 6: key = .pageDown
            case 11...15: key = .function((numbers.first ?? 11) - 10)
            case 17...21: key = .function((numbers.first ?? 17) - 11)
            case 23, 24: key = .function((numbers.first ?? 23) - 12)
            default: return nil
            }
        default:
            return nil
        }
        return .key(key, modifiers)
    }

    static func ss3(_ final: Unicode.Scalar) -> InputEvent? {
        switch final {
        case "A": .key(.up)
        case "B": .key(.down)
        case "C": .key(.right)
        case "D": .key(.left)
        case "H": .key(.home)
        case "F": .key(.end)
        case "M": .key(.enter)
        case "P": .key(.function(1))
        case "Q": .key(.function(2))
        case "R": .key(.function(3))
        case "S": .key(.function(4))
        default: nil
        }
    }

    /// `b;x;y` with 1-based cell coordinates; `pressed` is false for the `m` (release) form.
    static func sgrMouse(_ parameters: String, pressed: Bool) -> InputEvent? {
        let parts = parameters.split(separator: ";").compactMap { Int($0) }
        guard parts.count == 3, parts[1] >= 1, parts[2] >= 1 else { return nil }
        let code = parts[0]
        var modifiers: Modifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let isMotion = code & 32 != 0
        let buttonBits = code & 3
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            switch buttonBits {
            case 0: kind = .wheelUp
            case 1: kind = .wheelDown
            case 2: kind = .wheelLeft
            default: kind = .wheelRight
            }
        } else {
            let button: MouseButton? = switch buttonBits {
            case 0: .left
            case 1: .middle
            case 2: .right
            default: nil
            }
            if isMotion {
                kind = button.map { .drag($0) } ?? .move
            } else if let button {
                kind = pressed ? .press(button) : .release(button)
            } else {
                return nil
            }
        }
        return .mouse(MouseEvent(kind: kind, column: parts[1] - 1, row: parts[2] - 1, modifiers: modifiers))
    }

    /// Maps ncurses key names to events. Extended names carry modifiers in a digit suffix
    /// (xterm convention: 2 Shift, 3 Alt, 5 Ctrl, …; no digit on kUP/kDN/… means Shift).
    static func event(forKeyName name: String) -> InputEvent? {
        let fixed: [String: InputEvent] = [
            "KEY_UP": .key(.up), "KEY_DOWN": .key(.down), "KEY_LEFT": .key(.left), "KEY_RIGHT": .key(.right),
            "KEY_SR": .key(.up, .shift), "KEY_SF": .key(.down, .shift),
            "KEY_SLEFT": .key(.left, .shift), "KEY_SRIGHT": .key(.right, .shift),
            "KEY_HOME": .key(.home), "KEY_END": .key(.end), "KEY_SHOME": .key(.home, .shift), "KEY_SEND": .key(.end, .shift),
            "KEY_NPAGE": .key(.pageDown), "KEY_PPAGE": .key(.pageUp),
            "KEY_ENTER": .key(.enter), "KEY_BACKSPACE": .key(.backspace), "KEY_DC": .key(.delete),
            "KEY_SDC": .key(.delete, .shift), "KEY_IC": .key(.insert), "KEY_BTAB": .key(.tab, .shift),
            "KEY_A1": .key(.home), "KEY_C1": .key(.end), "KEY_A3": .key(.pageUp), "KEY_C3": .key(.pageDown),
        ]
        if let event = fixed[name] { return event }
        if name.hasPrefix("KEY_F("), name.hasSuffix(")"), let n = Int(name.dropFirst(6).dropLast()) {
            return .key(.function(n))
        }
        let bases: [String: Key] = ["kUP": .up, "kDN": .down, "kLFT": .left, "kRIT": .right, "kHOM": .home,
                                    "kEND": .end, "kDC": .delete, "kIC": .insert, "kNXT": .pageDown, "kPRV": .pageUp]
        for (base, key) in bases where name.hasPrefix(base) {
            let suffix = name.dropFirst(base.count)
            if suffix.isEmpty { return .key(key, .shift) }
            if let digit = Int(suffix) { return .key(key, modifiers(fromParameter: digit)) }
        }
        return nil
    }
}
