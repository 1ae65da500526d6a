import CNcursesw
import CStoriesSupport
import Foundation
import StoriesCore
import StoriesCells
import StoriesMedia

/// What the terminal says about itself, asked in one burst before anything is drawn
/// (issue 31, point 1; issue 45): the kitty graphics query, XTVERSION, XTGETTCAP of `RGB`,
/// a DECRQSS read-back of a 24-bit background, XTSMGRAPHICS's sixel geometry, the cell size
/// in pixels, the background colour (OSC 11), whether it knows SGR mouse reports and focus
/// reports (DECRQM), and DA1 last. Every terminal answers DA1, and answers in order, so
/// DA1's answer marks the end: reading stops there, or after the window for a terminal that
/// answers nothing (`window`: 5 ms for the viewer, 100 ms where the screen cannot open
/// without the answers). What comes later is read by the input decoder, never as keys
/// (`unread` hands it a sequence cut by the window).
public enum TerminalProbe {
    /// The most a terminal that never answers DA1 costs where nothing can be drawn without
    /// its answer (`window`).
    public static let timeout: Duration = .milliseconds(100)
    /// How long the viewer waits for the answers before its first frame where it can draw
    /// without them: a local terminal answers DA1 within it (xterm, foot, st in under 2 ms
    /// on this machine), and what comes later is taken as it comes (the background, pictures,
    /// the palette, the cell size, 24-bit colour: `CursesScreen.takeDirectColour`).
    public static let firstFrameWait: Duration = .milliseconds(5)

    /// How long the viewer waits for the answers before its first frame: `timeout` when
    /// `TERM` has no terminfo entry here (the screen cannot open until the terminal answers
    /// like an xterm, for the stand-in), else `firstFrameWait`.
    public static func window(environment: [String: String], exists: (String) -> Bool = TerminalEntry.exists) -> Duration {
        exists(environment["TERM"] ?? "") ? firstFrameWait : timeout
    }
    /// The kitty graphics query's id (a 1×1 picture, never shown: `a=q`).
    static let kittyQueryID = 31
    /// The 24-bit colour the DECRQSS test sets and reads back (notcurses' method): a
    /// terminal that keeps it as three numbers shows 24-bit colour whatever terminfo says.
    static let directColourProbe = (red: 1, green: 2, blue: 3)

    /// The queries, in the order they are sent, DA1 (`CSI c`) last. Inside tmux or GNU
    /// screen, strings a multiplexer takes for its own (tmux 3.3 makes an APC the pane's
    /// title, screen its hardstatus line) are not sent: tmux says what is outside it
    /// (`TmuxClient`). The Linux console reads `ESC P` as a palette change: no DCS or APC.
    /// `sharedMemory`: an object offered for kitty's `t=s` query (`KittySharedMemory.offer`).
    public static func burst(environment: [String: String], sharedMemory: String? = nil) -> String {
        let strings = sendsStrings(environment)
        let (r, g, b) = directColourProbe
        var queries: [String] = []
        if strings {
            queries.append("\u{1B}_Gi=\(kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\") // kitty graphics: OK or an error
            if let sharedMemory { queries.append(KittyGraphics.sharedMemoryQuery(name: sharedMemory, id: KittySharedMemory.queryID)) }
        }
        queries.append("\u{1B}[>0q") // XTVERSION: the terminal's name and version
        if strings {
            queries.append("\u{1B}P+q524742\u{1B}\\") // XTGETTCAP RGB: direct colour in its own description
            // DECRQSS: a 24-bit background set, read back, and reset.
            queries.append("\u{1B}[48;2;\(r);\(g);\(b)m\u{1B}P$qm\u{1B}\\\u{1B}[m")
        }
        queries += [
            "\u{1B}[?2;1;0S", // XTSMGRAPHICS: the largest sixel picture
            "\u{1B}[16t", // the cell size in pixels
            "\u{1B}]11;?\u{1B}\\", // the background colour
        ]
        if asksPalette(environment) {
            // OSC 4: the 16 colours, each answered on its own.
            queries.append("\u{1B}]4;" + (0..<16).map { "\($0);?" }.joined(separator: ";") + "\u{1B}\\")
        }
        queries += [
            "\u{1B}[?1006$p", // DECRQM: SGR mouse reports
            "\u{1B}[?1004$p", // DECRQM: focus reports
            "\u{1B}[c", // DA1: its attributes (4: sixel), and the end of the answers
        ]
        return queries.joined()
    }

    /// Whether strings (DCS, APC, OSC 4) are sent: not inside tmux or GNU screen, not to the
    /// Linux console.
    static func sendsStrings(_ environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        let multiplexed = TmuxClient.inside(environment) || !(environment["STY"] ?? "").isEmpty || term.hasPrefix("screen")
        return !multiplexed && !term.hasPrefix("linux")
    }

    /// Whether the 16 colours are asked for (OSC 4): where strings are sent, and not where
    /// COLORTERM says 24-bit colour (pictures never use the palette there, and a slow link
    /// is spared 16 answers).
    public static func asksPalette(_ environment: [String: String]) -> Bool {
        sendsStrings(environment) && !["truecolor", "24bit"].contains((environment["COLORTERM"] ?? "").lowercased())
    }

    /// Asks the terminal on `input`/`output` (both a TTY, or nothing is asked) and reads its
    /// answers until DA1's or `timeout`. The terminal is put in raw mode (no echo, no line
    /// editing) while it answers. Bytes that are not answers (keys typed meanwhile) are kept
    /// in `typed`, never taken as answers.
    ///
    /// `handOver`: the caller reads the terminal next (the viewer): the terminal stays in
    /// raw mode, nothing waiting is discarded, and the result's `savedModes` are the modes to
    /// give back — an answer that arrives between the probe and the screen is neither echoed
    /// nor lost. Otherwise the modes are given back here and what still waits is discarded.
    ///
    /// `linger`: after `timeout` without DA1's answer, how much longer to keep reading, so
    /// that a slow terminal's answers (over ssh) are read here rather than left for the
    /// shell to take as typed text (`stories doctor` waits a second; they count as late).
    ///
    /// `offersSharedMemory`: kitty is asked whether it reads this process's shared memory
    /// (the viewer and `doctor`); the object offered is removed once DA1 has answered, or at
    /// the end here unless `handOver` (the caller reads the late answers, and removes it).
    ///
    /// A signal that ends or stops the process while the terminal is raw gives it back first
    /// (`stories_guard_terminal`).
    public static func ask(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           timeout: Duration = TerminalProbe.timeout, linger: Duration = .zero, handOver: Bool = false,
                           offersSharedMemory: Bool = false) -> ProbeResult {
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
        stories_guard_terminal(input, &saved, &raw)
        // Echo left on would show the answers on the screen: nothing is asked then.
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { stories_unguard_terminal(); return ProbeResult(asked: false) }
        defer {
            if !handOver { _ = tcsetattr(input, TCSAFLUSH, &saved) }
            stories_unguard_terminal()
        }

        let clock = ContinuousClock()
        let start = clock.now
        var replies = ProbeReplies()
        // The viewer asks whether kitty reads its pictures from shared memory (a terminal on
        // this machine); the object offered goes once DA1 has answered (answers come in order).
        let offer = offersSharedMemory && sendsStrings(environment) ? KittySharedMemory.offer() : nil
        stories_guard_remove_on_signal(offer.map { "/dev/shm" + $0 })
        defer { stories_guard_remove_on_signal(nil) }
        let bytes = Array(burst(environment: environment, sharedMemory: offer).utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(output, $0.baseAddress, $0.count) }
            if n > 0 { written += n } else if errno != EINTR {
                if let offer { KittySharedMemory.remove(offer) }
                return ProbeResult(asked: false, savedModes: handOver ? saved : nil)
            }
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
        let settled = replies.sawDA1 || !handOver
        if let offer, settled { KittySharedMemory.remove(offer) }
        var result = ProbeResult(asked: true, replies: replies, elapsed: elapsed, late: replies.sawDA1 && elapsed > timeout,
                                 savedModes: handOver ? saved : nil)
        result.sharedMemoryOffer = settled ? nil : offer
        return result
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
    /// The answer to the `t=s` query: true when kitty read the object offered (it is on this
    /// machine), false for an error, nil for no answer.
    public private(set) var kittySharedMemory: Bool?
    /// XTVERSION's answer ("kitty(0.26.5)", "XTerm(379)", "tmux 3.3a").
    public private(set) var version: String?
    /// XTGETTCAP's answer for `RGB` (or `Tc`): true when the terminal's own description has
    /// direct colour, false when it said it has not; nil for no answer.
    public private(set) var rgbCapability: Bool?
    /// The DECRQSS read-back of the 24-bit background the probe set: true when it came back
    /// as the same three numbers (the terminal keeps 24-bit colour), false when it came
    /// back otherwise (a palette colour); nil for no answer.
    public private(set) var keepsDirectColour: Bool?
    /// The largest sixel picture, in pixels (XTSMGRAPHICS).
    public var sixelGeometry: (width: Int, height: Int)? { sixelSize.map { ($0[0], $0[1]) } }
    private var sixelSize: [Int]?
    /// A cell's size in pixels (`CSI 6 ; h ; w t`).
    public var cellPixels: (width: Int, height: Int)? { cellSize.map { ($0[0], $0[1]) } }
    private var cellSize: [Int]?
    /// The OSC 11 answer's body ("11;rgb:ffff/ffff/ffff").
    public private(set) var background: String?
    /// OSC 4's answers: palette number (0–15) → red, green, blue.
    public private(set) var paletteAnswers: [Int: [UInt8]] = [:]
    /// DECRQM answers: mode → 0 not known, 1 set, 2 reset, 3 always set, 4 always reset.
    public private(set) var modes: [Int: Int] = [:]
    /// DA1's attributes (4: sixel graphics); nil until DA1 answers.
    public private(set) var attributes: [Int]?
    public var sawDA1: Bool { attributes != nil }

    /// The terminal's 16 colours: what OSC 4 answered, `defaults` for the rest.
    public func palette(defaults: TerminalPalette) -> TerminalPalette {
        paletteAnswers.reduce(defaults) { palette, answer in
            answer.value.count == 3 ? palette.setting(answer.key, to: (answer.value[0], answer.value[1], answer.value[2])) : palette
        }
    }
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

    /// The start of an answer the probe stopped reading in the middle of (its window ended):
    /// the input decoder reads it first, so the rest is never taken for keys.
    public var unread: [UInt8] { discarding ? [] : pending }

    /// Reads one whole answer the input decoder found after the probe (`ESC` … to its end).
    /// Not counted against `maxBytes`: the decoder bounds each answer and how many it keeps.
    public mutating func read(answer: String, at time: Duration = .zero) {
        let bytes = Array(answer.utf8)
        guard bytes.count <= Self.maxBody + 8, bytes.first == 0x1B, Self.scan(bytes) == .complete(bytes.count) else { return }
        take(bytes, at: time)
    }

    public static func == (a: ProbeReplies, b: ProbeReplies) -> Bool {
        a.kittyGraphics == b.kittyGraphics && a.kittySharedMemory == b.kittySharedMemory && a.version == b.version && a.sixelSize == b.sixelSize
            && a.rgbCapability == b.rgbCapability && a.keepsDirectColour == b.keepsDirectColour
            && a.cellSize == b.cellSize && a.background == b.background && a.modes == b.modes
            && a.attributes == b.attributes && a.typed == b.typed && a.paletteAnswers == b.paletteAnswers
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
            let message = text[text.index(after: semicolon)...].prefix { $0 != "\u{1B}" }
            if keys.contains("i=\(KittySharedMemory.queryID)") {
                kittySharedMemory = message == "OK"
                note("shared memory")
            }
            guard keys.contains("i=\(TerminalProbe.kittyQueryID)") else { return }
            kittyGraphics = message == "OK"
            note("kitty")
        case UInt8(ascii: "P"):
            let body = text.prefix { $0 != "\u{1B}" }
            if body.hasPrefix(">|") {
                // XTVERSION: ESC P > | text ESC \
                version = SafeText.line(String(body.dropFirst(2)), maxColumns: 80)
                note("version")
            } else if body.hasPrefix("1+r") || body.hasPrefix("0+r") {
                // XTGETTCAP: ESC P 1 + r 524742 [= value] ESC \ (0: not in its description).
                let name = body.dropFirst(3).prefix { $0 != "=" && $0 != ";" }.uppercased()
                guard name == "524742" || name == "5463" else { return } // RGB, Tc
                rgbCapability = body.hasPrefix("1")
                note("RGB")
            } else if body.hasPrefix("1$r") || body.hasPrefix("0$r") {
                // DECRQSS of SGR: ESC P 1 $ r 0;48:2::1:2:3 m ESC \ — the colour's three
                // numbers back in order, with `:` or `;` between them.
                guard body.hasSuffix("m") else { return }
                let (r, g, b) = TerminalProbe.directColourProbe
                let numbers = body.dropFirst(3).dropLast().split(whereSeparator: { $0 == ";" || $0 == ":" })
                let found = zip(numbers.indices, numbers).contains { index, number in
                    guard number == "48" else { return false }
                    let rest = numbers[(index + 1)...].map(String.init)
                    return rest.starts(with: ["2", "\(r)", "\(g)", "\(b)"])
                }
                keepsDirectColour = body.hasPrefix("1") && found
                note("SGR")
            }
        case UInt8(ascii: "]"):
            let body = String(text.prefix { $0 != "\u{1B}" && $0 != "\u{07}" })
            if let (index, color) = TerminalPalette.color(fromOSC: body) {
                paletteAnswers[index] = [color.0, color.1, color.2]
                note("palette")
                return
            }
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
