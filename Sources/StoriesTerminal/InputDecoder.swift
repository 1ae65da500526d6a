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
    /// Inside a string answer (OSC, DCS or APC: `stringKind`): its body so far.
    private var osc: String.UnicodeScalarView?
    private var oscSawEscape = false
    /// What follows ESC for the string being read: `]` (OSC: the background, colours), `P`
    /// (DCS: XTVERSION's, XTGETTCAP's, DECRQSS's) or `_` (APC: kitty's graphics answers).
    private var stringKind: Unicode.Scalar = "]"

    /// The terminal's answers read since the last `takeAnswers()`, whole, as the terminal
    /// sent them (`ESC` … to the end), for `ProbeReplies.read(answer:)`: every form the
    /// start-up probe asks for, whenever it comes (issue 45, point 3). A terminal slower
    /// than the probe's window (over ssh) answers while the app runs: its answers are never
    /// keys. At most 32 kept between takes, each at most 256 characters.
    private var answers: [String] = []

    public init() {}

    /// The terminal's answers read since the last call.
    public mutating func takeAnswers() -> [String] {
        defer { answers = [] }
        return answers
    }

    private mutating func keepAnswer(_ sequence: String) {
        if answers.count < 32 { answers.append(sequence) }
    }

    /// The focus reports read since the last call.
    public mutating func takeFocusReports() -> [Bool] {
        defer { focusReports = [] }
        return focusReports
    }

    /// Whether a sequence is begun and not ended (an ESC, a CSI's parameters, a string's
    /// body): `takeEvents()` leaves it for the next read, `flush()` ends it.
    public var holdsPartialSequence: Bool { escape != nil || osc != nil || discardingSequence }

    /// Whether a string answer (OSC, DCS, APC) is begun and not ended.
    public var readsAnswer: Bool { osc.map { Self.startsAsAnswer($0, kind: stringKind) } ?? false }

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

    /// The events decoded so far, leaving a sequence begun and not ended for the next read:
    /// a terminal's answer that comes a few bytes at a time (over a slow link) is read
    /// whole, never as keys. The run loop calls `flush()` once no more comes in time.
    public mutating func takeEvents() -> [InputEvent] {
        finishText()
        defer { events.removeAll() }
        return events
    }

    /// Ends a batch: a pending lone `ESC` becomes the Esc key, and an `ESC ]` (or `P`, `_`)
    /// with nothing that starts an answer after it is Alt and that key. Returns all decoded
    /// events.
    public mutating func flush() -> [InputEvent] {
        // What came after ESC ] is an answer only if it starts as one ("11;…", digits and
        // a semicolon): anything else (Alt+], a paste) is read as typed, never swallowed.
        if let body = osc, !oscSawEscape, !Self.startsAsAnswer(body, kind: stringKind) {
            osc = nil
            finishText()
            events.append(.key(.character(Character(stringKind)), .alt))
            for scalar in body { feed(scalar) }
        }
        // An answer begun stays begun: its rest, however late, is never typed (a body that
        // never ends is ended by a control character, Enter among them, or at 256).
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
                keepAnswer("\u{1B}" + String(stringKind) + String(body) + "\u{1B}\\")
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
                } else if Self.isAnswer(body) {
                    keepAnswer("\u{1B}[" + String(String.UnicodeScalarView(body)))
                } else if ["?", ">", "="].contains(body.first) {
                    // A private sequence no key sends: an answer to something not asked.
                } else if let event = Self.csi(body) {
                    events.append(event)
                }
            } else if !(0x20...0x3F).contains(last) {
                escape = nil // not a sequence we can read: drop it, never print it
            } else if sequence.count > 128 { // xterm's DA1 answer alone is 40
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
        guard let sequence = escape else { return }
        escape = nil
        if sequence.count == 1 {
            events.append(.key(.escape))
        } else if sequence.count == 2, sequence[1] == "[" {
            events.append(.key(.character("["), .alt))
        } else if sequence.count == 2, sequence[1] == "O" {
            events.append(.key(.character("O"), .alt))
        } else if sequence.count > 2, sequence[1] == "[" {
            // A CSI with parameters, unfinished: an answer whose rest is late. The rest
            // (parameters and its final byte) is skipped when it comes, never typed.
            discardingSequence = true
        }
        // A longer unfinished sequence is dropped: it can only be a cut-off report.
    }

    // MARK: - Sequences

    /// A CSI answer to a question the probe asks (never a key): DA1 `? … c`, DA2 `> … c`,
    /// XTSMGRAPHICS `? … S`, the window's and cell's sizes `4|6|8 ; … t`, DECRQM
    /// `? n ; m $ y` (and ANSI modes' `n ; m $ y`), DECXCPR `? r ; c R`, kitty's keyboard
    /// flags `? n u`. The plain cursor report (`r ; c R`) is not asked: Shift-F3 sends it.
    static func isAnswer(_ body: [Unicode.Scalar]) -> Bool {
        guard let final = body.last, let first = body.first else { return false }
        let parameters = body.dropLast()
        switch final {
        case "c": return first == "?" || first == ">"
        case "S", "R", "u": return first == "?"
        case "t": return ["4", "6", "8"].contains(first)
        case "y": return parameters.last == "$"
        default: return false
        }
    }
}
