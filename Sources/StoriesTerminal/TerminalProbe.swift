import CNcursesw
import Foundation
import StoriesCore
import StoriesCells
import StoriesMedia

/// What the terminal says about itself, asked in one burst before anything is drawn
/// (issue 31, point 1): the kitty graphics query, XTVERSION, XTSMGRAPHICS's sixel geometry,
/// the cell size in pixels, the background colour (OSC 11), whether it knows SGR mouse
/// reports and focus reports (DECRQM), and DA1 last. Every terminal answers DA1, and
/// answers in order, so DA1's answer marks the end: reading stops there, or after
/// `TerminalProbe.timeout` (100 ms) for a terminal that answers nothing.
public enum TerminalProbe {
    /// The most a terminal that never answers DA1 costs.
    public static let timeout: Duration = .milliseconds(100)
    /// The kitty graphics query's id (a 1×1 picture, never shown: `a=q`).
    static let kittyQueryID = 31

    /// The queries, in the order they are sent. DA1 (`CSI c`) last.
    public static let burst: String = [
        "\u{1B}_Gi=\(kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\", // kitty graphics: answers OK or an error
        "\u{1B}[>0q", // XTVERSION: the terminal's name and version
        "\u{1B}[?2;1;0S", // XTSMGRAPHICS: the largest sixel picture
        "\u{1B}[16t", // the cell size in pixels
        "\u{1B}]11;?\u{1B}\\", // the background colour
        "\u{1B}[?1006$p", // DECRQM: SGR mouse reports
        "\u{1B}[?1004$p", // DECRQM: focus reports
        "\u{1B}[c", // DA1: its attributes (4: sixel), and the end of the answers
    ].joined()

    /// Asks the terminal on `input`/`output` (both a TTY, or nothing is asked) and reads its
    /// answers until DA1's or `timeout`. The terminal is put in raw mode (no echo, no line
    /// editing) while it answers and given back as it was. Bytes that are not answers (keys
    /// typed meanwhile) are kept in `typed`, never taken as answers.
    ///
    /// `linger`: after `timeout` without DA1's answer, how much longer to keep reading, so
    /// that a slow terminal's answers (over ssh) are read here rather than left for the
    /// shell to take as typed text (`stories doctor` waits a second; they count as late).
    /// Input still waiting when the terminal is given back is discarded.
    public static func ask(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                           timeout: Duration = TerminalProbe.timeout, linger: Duration = .zero) -> ProbeResult {
        // A terminal, and this process in its foreground where it is the controlling one
        // (in the background, writing would stop it with SIGTTOU).
        guard isatty(input) == 1, isatty(output) == 1 else { return ProbeResult(asked: false) }
        let foreground = tcgetpgrp(input)
        guard foreground < 0 || foreground == getpgrp() else { return ProbeResult(asked: false) }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return ProbeResult(asked: false) }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        // Echo left on would show the answers on the screen: nothing is asked then.
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return ProbeResult(asked: false) }
        defer { _ = tcsetattr(input, TCSAFLUSH, &saved) }

        let clock = ContinuousClock()
        let start = clock.now
        var replies = ProbeReplies()
        let bytes = Array(burst.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(output, $0.baseAddress, $0.count) }
            if n > 0 { written += n } else if errno != EINTR { return ProbeResult(asked: false) }
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !replies.sawDA1, replies.byteCount < ProbeReplies.maxBytes {
            let left = timeout + linger - (clock.now - start)
            guard left > .zero else { break }
            let (seconds, attoseconds) = left.components
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let n = buffer.withUnsafeMutableBufferPointer { read(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            guard n > 0 else { break }
            replies.feed(buffer[0..<n], at: clock.now - start)
        }
        let elapsed = clock.now - start
        return ProbeResult(asked: true, replies: replies, elapsed: elapsed, late: replies.sawDA1 && elapsed > timeout)
    }
}

/// What a probe found.
public struct ProbeResult: Sendable {
    /// Whether anything was asked (false: not a terminal).
    public var asked: Bool
    public var replies = ProbeReplies()
    /// From sending the burst to the last answer read (or the timeout).
    public var elapsed: Duration = .zero
    /// DA1's answer came, but after the timeout (read while lingering).
    public var late = false

    public init(asked: Bool, replies: ProbeReplies = ProbeReplies(), elapsed: Duration = .zero, late: Bool = false) {
        self.asked = asked
        self.replies = replies
        self.elapsed = elapsed
        self.late = late
    }
}

/// The terminal's answers to `TerminalProbe.burst`, read from its bytes in any pieces.
/// Pure and bounded: at most `maxBytes` read, each answer's text at most 256 bytes (longer
/// ones are dropped, not cut), unknown sequences skipped, and every number bounded before
/// use. Anything outside an escape sequence is a key typed meanwhile (`typed`).
public struct ProbeReplies: Sendable, Equatable {
    public static let maxBytes = 8192
    static let maxBody = 256

    /// The kitty graphics query's answer: true for OK, false for an error (the terminal
    /// knows the protocol but refused), nil for no answer (it does not know it).
    public private(set) var kittyGraphics: Bool?
    /// XTVERSION's answer ("kitty(0.26.5)", "XTerm(379)", "tmux 3.3a").
    public private(set) var version: String?
    /// The largest sixel picture, in pixels (XTSMGRAPHICS).
    public var sixelGeometry: (width: Int, height: Int)? { sixelSize.map { ($0[0], $0[1]) } }
    private var sixelSize: [Int]?
    /// A cell's size in pixels (`CSI 6 ; h ; w t`).
    public var cellPixels: (width: Int, height: Int)? { cellSize.map { ($0[0], $0[1]) } }
    private var cellSize: [Int]?
    /// The OSC 11 answer's body ("11;rgb:ffff/ffff/ffff").
    public private(set) var background: String?
    /// DECRQM answers: mode → 0 not known, 1 set, 2 reset, 3 always set, 4 always reset.
    public private(set) var modes: [Int: Int] = [:]
    /// DA1's attributes (4: sixel graphics); nil until DA1 answers.
    public private(set) var attributes: [Int]?
    public var sawDA1: Bool { attributes != nil }
    /// When each answer came, after the burst was sent ("kitty", "version", "sixel",
    /// "cell", "background", "mode 1006", "DA1").
    public private(set) var timings: [String: Duration] = [:]
    /// Bytes outside any escape sequence: keys typed while the terminal answered.
    public private(set) var typed: [UInt8] = []
    public private(set) var byteCount = 0

    private var pending: [UInt8] = []
    /// After a sequence too long to be an answer: its rest skipped, up to its end.
    private var discarding = false

    public init() {}

    public static func == (a: ProbeReplies, b: ProbeReplies) -> Bool {
        a.kittyGraphics == b.kittyGraphics && a.version == b.version && a.sixelSize == b.sixelSize
            && a.cellSize == b.cellSize && a.background == b.background && a.modes == b.modes
            && a.attributes == b.attributes && a.typed == b.typed
    }

    /// Reads `bytes`, the next piece of the terminal's output, at `time` after the burst.
    public mutating func feed(_ bytes: some Sequence<UInt8>, at time: Duration = .zero) {
        for byte in bytes {
            guard byteCount < Self.maxBytes else { return }
            byteCount += 1
            if discarding {
                // The rest of a dropped sequence: up to a BEL, or an ESC that starts the next.
                guard byte == 0x1B else { discarding = byte != 0x07; continue }
                discarding = false
            }
            pending.append(byte)
            if pending.first != 0x1B {
                if typed.count < Self.maxBody { typed.append(byte) }
                pending.removeAll(keepingCapacity: true)
                continue
            }
            switch Self.scan(pending) {
            case .coming:
                if pending.count > Self.maxBody + 8 {
                    // Too long to be an answer: dropped with the rest of it.
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                }
            case .complete(let length):
                take(Array(pending.prefix(length)), at: time)
                pending.removeAll(keepingCapacity: true)
            case .broken(let at):
                // An ESC that does not belong (a sequence cut short, Esc pressed just
                // before an answer): what came before it is dropped, and it starts afresh.
                pending.removeFirst(at)
            }
        }
    }

    enum Scan: Equatable {
        case coming, complete(Int), broken(at: Int)
    }

    /// Whether `bytes` (starting with ESC) is a complete sequence (its length), still
    /// coming, or broken by an ESC that starts another (where).
    static func scan(_ bytes: [UInt8]) -> Scan {
        guard bytes.count >= 2 else { return .coming }
        switch bytes[1] {
        case 0x1B:
            return .broken(at: 1)
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates, then a final byte 0x40–0x7E.
            for i in 2..<bytes.count {
                if bytes[i] == 0x1B { return .broken(at: i) }
                if (0x40...0x7E).contains(bytes[i]) { return .complete(i + 1) }
            }
            return .coming
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
            // A string, ended by ST (ESC \) or, for OSC, BEL; an ESC not followed by \
            // starts another sequence.
            for i in 2..<bytes.count {
                if bytes[i] == 0x07, bytes[1] == UInt8(ascii: "]") { return .complete(i + 1) }
                guard bytes[i] == 0x1B, i + 1 < bytes.count else { continue }
                return bytes[i + 1] == UInt8(ascii: "\\") ? .complete(i + 2) : .broken(at: i)
            }
            return .coming
        default:
            return .complete(2) // ESC and one byte: Alt+key, not an answer
        }
    }

    private mutating func take(_ sequence: [UInt8], at time: Duration) {
        let text = String(decoding: sequence.dropFirst(2), as: UTF8.self)
        func note(_ what: String) { if timings[what] == nil { timings[what] = time } }
        func numbers(_ s: Substring) -> [Int] {
            s.split(separator: ";", omittingEmptySubsequences: false).map { Int($0.prefix(6)) ?? 0 }.map { min(max(0, $0), 100_000) }
        }
        switch sequence[1] {
        case UInt8(ascii: "_"):
            // kitty: ESC _ G i=31 ; OK ESC \ (or an error message).
            guard text.hasPrefix("G"), let semicolon = text.firstIndex(of: ";") else { return }
            let keys = text[text.index(after: text.startIndex)..<semicolon].split(separator: ",")
            guard keys.contains("i=\(TerminalProbe.kittyQueryID)") else { return }
            let message = text[text.index(after: semicolon)...].prefix { $0 != "\u{1B}" }
            kittyGraphics = message == "OK"
            note("kitty")
        case UInt8(ascii: "P"):
            // XTVERSION: ESC P > | text ESC \
            guard text.hasPrefix(">|") else { return }
            version = SafeText.line(String(text.dropFirst(2).prefix { $0 != "\u{1B}" }), maxColumns: 80)
            note("version")
        case UInt8(ascii: "]"):
            let body = String(text.prefix { $0 != "\u{1B}" && $0 != "\u{07}" })
            guard body.hasPrefix("11;") else { return }
            background = body
            note("background")
        case UInt8(ascii: "["):
            guard let final = text.last else { return }
            let parameters = text.dropLast()
            if final == "c", parameters.hasPrefix("?") {
                attributes = numbers(parameters.dropFirst())
                note("DA1")
            } else if final == "S", parameters.hasPrefix("?2;") {
                let values = numbers(parameters.dropFirst(3))
                if values.count == 3, values[0] == 0, values[1] > 0, values[2] > 0 { sixelSize = [values[1], values[2]] }
                note("sixel")
            } else if final == "t", parameters.hasPrefix("6;") {
                let values = numbers(parameters.dropFirst(2))
                if values.count == 2, values[0] > 0, values[1] > 0 { cellSize = [values[1], values[0]] }
                note("cell")
            } else if final == "y", parameters.hasPrefix("?"), parameters.hasSuffix("$") {
                let values = numbers(parameters.dropFirst().dropLast())
                if values.count == 2 { modes[values[0]] = values[1]; note("mode \(values[0])") }
            }
        default:
            return
        }
    }
}

/// How pictures can be shown: real pixels through one of three protocols, or cells.
extension GraphicsProtocol {
    /// The protocol a terminal takes, from its answers and its environment, and why.
    /// `tmux`: inside tmux (`TMUX` set), what tmux says of itself and the terminal outside
    /// it (nil where it could not be asked).
    public static func detect(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?) -> GraphicsChoice {
        if TmuxClient.inside(environment) { return detectInTmux(probe, tmux) }
        let version = probe.replies.version
        if probe.replies.kittyGraphics == true {
            return GraphicsChoice(.kitty, "it answered the kitty graphics query", placeholders: KittyPlaceholders.supported(version: version))
        }
        if probe.replies.attributes?.contains(4) == true { return GraphicsChoice(.sixel, "its DA1 answer lists sixel (4)") }
        let program = environment["TERM_PROGRAM"] ?? ""
        if ["iTerm.app", "WezTerm", "mintty"].contains(program) || environment["LC_TERMINAL"] == "iTerm2" {
            return GraphicsChoice(.iterm, "TERM_PROGRAM=\(SafeText.line(program, maxColumns: 20)) shows iTerm2 inline images")
        }
        if !probe.asked { return GraphicsChoice(.cells, "not a terminal: nothing was asked") }
        if !probe.replies.sawDA1 { return GraphicsChoice(.cells, "the terminal answered nothing within 100 ms") }
        return GraphicsChoice(.cells, "the terminal answered no picture query")
    }

    /// Inside tmux the probe's answers are tmux's own. Pictures tmux keeps on screen through
    /// its redraws, window switches and scrolling are the only ones worth showing:
    /// - sixel where tmux draws sixel itself (built with sixel, 3.4 and later: it then lists
    ///   4 in its own DA1 answer) and the terminal outside shows them;
    /// - kitty's Unicode placeholders, passed through to a kitty of 0.28 or later or
    ///   Ghostty outside: the picture is sent once through the passthrough and the cells
    ///   that show it are text, which tmux keeps and draws again like any other.
    /// A picture written through the passthrough at the cursor (sixel, iTerm2, kitty's
    /// placement commands) lands where the outside terminal's cursor happens to be and is
    /// wiped by tmux's next redraw: cells instead.
    static func detectInTmux(_ probe: ProbeResult, _ tmux: TmuxClient?) -> GraphicsChoice {
        guard let tmux else { return GraphicsChoice(.cells, "inside tmux, which did not say what terminal is outside it") }
        if probe.replies.attributes?.contains(4) == true, tmux.features.contains("sixel") {
            return GraphicsChoice(.sixel, "inside tmux \(tmux.version), which draws sixel itself (its DA1 answer lists 4)")
        }
        let outside = tmux.terminalType.isEmpty ? (tmux.terminalName.isEmpty ? "the terminal outside" : "the terminal outside (TERM=\(tmux.terminalName))")
            : tmux.terminalType
        let placeholders = KittyPlaceholders.supported(version: tmux.terminalType)
        switch tmux.passthrough {
        case true? where placeholders:
            return GraphicsChoice(.kitty, "through tmux's passthrough to \(outside), as Unicode placeholders", placeholders: true, throughTmux: true)
        case true?:
            let kitty = tmux.terminalType.lowercased().hasPrefix("kitty") || tmux.terminalName == "xterm-kitty"
            return GraphicsChoice(.cells, kitty
                ? "inside tmux: \(outside) shows pictures tmux keeps only from kitty 0.28 on (Unicode placeholders)"
                : "inside tmux: \(outside) shows no pictures tmux keeps (kitty 0.28 or later and Ghostty do)")
        case false?:
            return GraphicsChoice(.cells, placeholders
                ? "inside tmux, which passes no pictures through to \(outside) (allow-passthrough is off)"
                : "inside tmux, which passes no pictures through (allow-passthrough is off)")
        case nil:
            return GraphicsChoice(.cells, "inside tmux, which did not say whether it passes pictures through")
        }
    }
}

/// What a terminal's terminfo entry says, read without starting ncurses.
public enum TerminalCapabilities {
    /// The colours `term`'s entry has (`colors`), or nil without an entry.
    public static func colours(term: String) -> Int? {
        guard !term.isEmpty, term.utf8.count < 128, !term.contains("/") else { return nil }
        let count = term.withCString { stories_terminfo_colors($0) }
        return count > 0 ? Int(count) : nil
    }
}
