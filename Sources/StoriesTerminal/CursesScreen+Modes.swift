import CNcursesw
import CStoriesSupport
import Foundation
import StoriesCore
import StoriesCells

/// How a SCREEN is set up once it is current — at start, and again when the terminal says
/// late that it shows 24-bit colour and the screen is opened on the direct-colour entry
/// (issue 48, point 2: the first frame no longer waits for the probe's window).
extension CursesScreen {
    /// The modes of the screen just made current; false when the entry cannot address the
    /// cursor. `shellModes`: the person's own modes, from before the probe left the terminal
    /// raw (so late answers are neither echoed nor lost) — what ncurses gives back at the end.
    static func takeModes(input: Int32, shellModes: termios?) -> Bool {
        if var shell = shellModes {
            tcsetattr(input, TCSANOW, &shell)
            def_shell_mode()
        }
        guard stories_can_address_cursor() == 1 else { return false }
        cbreak()
        noecho()
        // Flow control off: Ctrl-S would otherwise freeze the display until Ctrl-Q. Ctrl-Z
        // comes as a key, not as SIGTSTP from the terminal: read with the other input it is
        // never lost (a signal was, now and then, on a loaded machine), and the app suspends
        // itself. ncurses keeps this as the program's mode (restored after Ctrl-Z) and gives
        // the shell its own mode back at the end.
        var modes = termios()
        if tcgetattr(input, &modes) == 0 {
            modes.c_iflag &= ~tcflag_t(IXON | IXOFF)
            withUnsafeMutableBytes(of: &modes.c_cc) { characters in
                if Int(VSUSP) < characters.count { characters[Int(VSUSP)] = 0 } // _POSIX_VDISABLE
            }
            tcsetattr(input, TCSANOW, &modes)
            def_prog_mode()
        }
        keypad(stories_stdscr(), true)
        nodelay(stories_stdscr(), true)
        leaveok(stories_stdscr(), true)
        set_escdelay(25) // a lone Esc otherwise stalls input for a second
        curs_set(0)
        // SGR mouse reports reach the input decoder as plain characters: make ncurses forget
        // the kmous strings so it neither swallows nor half-parses them.
        _ = define_key("\u{1B}[<", 0)
        _ = define_key("\u{1B}[M", 0)
        return true
    }

    /// The current screen's colours and how many pairs it holds (none under NO_COLOR).
    static func startColours(environment: [String: String]) -> (ColorDepth, Int) {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        guard has_colors(), !noColor else { return (.none, 0) }
        start_color()
        use_default_colors()
        return (ColorDepth(colorCount: Int(stories_colors())), max(0, Int(stories_color_pairs()) - 1))
    }

    /// What came of a late word that the terminal shows 24-bit colour.
    public enum DirectColourChange: Equatable, Sendable {
        /// The screen was opened again on the direct-colour entry: the next frame is whole,
        /// in 24-bit colour.
        case taken
        /// Nothing to do: it has 24-bit colour, colours are off or limited by stories.conf,
        /// or the screen is given back.
        case kept
        /// It cannot be sent from here; the line says why (as the start's note would).
        case refused(String)
    }

    /// The terminal said after the first frame that it shows 24-bit colour (`reason`, from
    /// `DirectColourEvidence`): ncurses is opened again on the entry's direct sibling, as it
    /// would have been at start. Nothing is given back to the shell
    /// in between (no `endwin`): the terminal stays in the app's screen, and the next frame
    /// repaints it whole, pictures in pixels with it.
    public func takeDirectColour(because reason: String) -> DirectColourChange {
        guard !isRestored, colorDepth != .direct, colorDepth != .none, colorLimit == nil, shellModes != nil else { return .kept }
        // Only an entry installed on this machine: one the app would compile (with `tic`)
        // is opened through TERMINFO, which cannot be set safely while other threads run.
        let (direct, note) = DirectColorEntry.find(for: entryName, truecolor: reason, environment: environment) { _ in
            .failure(.init(reason: "the terminal said it late, and no 24-bit entry is installed (apt install ncurses-term)"))
        }
        guard let direct else { return note.map { .refused("\(colorDepth.name) colours: " + $0) } ?? .kept }
        let old = screen
        guard let opened = Self.open(direct, output: streams.output, input: streams.input) else {
            set_term(old)
            return .refused("\(colorDepth.name) colours: the direct-colour terminfo entry would not open")
        }
        set_term(opened)
        let (depth, pairs) = Self.startColours(environment: environment)
        guard Self.takeModes(input: fileno(streams.input), shellModes: shellModes), depth == .direct else {
            // Not freed either (`delscreen` of one SCREEN stops the other's output).
            set_term(old)
            reset_prog_mode()
            return .refused("\(colorDepth.name) colours: the direct-colour terminfo entry would not open")
        }
        // The old SCREEN is left, not freed: ncurses 6.4's delscreen of it, current or not,
        // stops the new one's output on the same stream (seen: nothing after it reached the
        // terminal). It happens once in a run, and holds a few windows' cells.
        screen = opened
        // The screen reader's cursor: on the focus again (`showFocus` set it on the old SCREEN).
        if showsFocus {
            leaveok(stories_stdscr(), false)
            curs_set(cursorShown ? 1 : 0)
        }
        colorDepth = depth
        pairCapacity = pairs
        pairCache.removeAll()
        nextPair = 1
        colorCache.removeAll()
        truecolorNote = nil
        wroteDirectly = false
        motionBytes = []
        previous = nil
        // ncurses repaints from nothing; a full frame sends pictures in pixels again.
        clearok(stories_curscr(), true)
        return .taken
    }
}
