import ArgumentParser
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesTerminal
import Foundation

/// `stories doctor`: what this terminal can show and how long it took to find out, and for
/// each thing missing what the person can do about it (issue 31, point 5).
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "What this terminal can show (colours, background, pictures, symbols, tmux, mouse) and how to get more."
    )

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        // A second more for a slow terminal's answers (over ssh), read here rather than
        // left for the shell to take as typed text.
        // The report may go to a file or a pipe (`stories doctor > report.txt`): the terminal
        // is then the process's own, /dev/tty, where there is one.
        var terminal = (input: STDIN_FILENO, output: STDOUT_FILENO)
        var opened: Int32 = -1
        if isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
            opened = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            if opened >= 0 { terminal = (opened, opened) }
        }
        defer { if opened >= 0 { close(opened) } }
        let probe = TerminalProbe.ask(input: terminal.input, output: terminal.output, environment: environment, linger: .seconds(1),
                                      offersSharedMemory: true)
        // tmux is asked within half a second in all: a tmux that hangs costs no more.
        let clock = ContinuousClock()
        let begun = clock.now
        let tmux = TmuxClient.ask(environment: environment, timeout: .milliseconds(400))
        let tmuxVersion = tmux == nil ? TmuxClient.versionLine(environment: environment, timeout: .milliseconds(500) - (clock.now - begun)) : nil
        for line in Self.report(probe, environment: environment, tmux: tmux,
                                cellPixels: PrintCommand.terminalCellPixels(of: terminal.output).map { ($0.width, $0.height) },
                                tmuxVersion: tmuxVersion,
                                sound: Self.soundOutput(), settings: Self.settings(environment: environment)) {
            print(line)
        }
    }

    /// The report, one line a finding: a name, what was found, and after "→" what to do
    /// where something is missing. Every string from outside made printable.
    /// `tmux`: what tmux said of itself and the terminal outside (nil outside tmux, or when
    /// it would not say; then `tmuxVersion` is `tmux -V`'s line where that answered).
    static func report(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?,
                       cellPixels: (width: Int, height: Int)?, tmuxVersion: String?, sound: Result<Void, AudioProblem>? = nil,
                       settings: (read: AppSettings, problem: String?) = (AppSettings(), nil)) -> [String] {
        let inTmux = !(environment["TMUX"] ?? "").isEmpty
        func clean(_ text: String, _ columns: Int = 40) -> String { SafeText.line(text, maxColumns: columns) }
        func ms(_ what: String) -> String {
            guard let time = probe.replies.timings[what] else { return "" }
            let (seconds, atto) = time.components
            return String(format: " (answered in %.1f ms)", Double(seconds) * 1000 + Double(atto) / 1e15)
        }
        var lines: [String] = []
        func add(_ name: String, _ finding: String, fix: String? = nil) {
            lines.append(name.padding(toLength: 12, withPad: " ", startingAt: 0) + finding)
            if let fix { lines.append(String(repeating: " ", count: 12) + "→ " + fix) }
        }
        let term = clean(environment["TERM"] ?? "(not set)", 30)
        if !probe.asked {
            lines.append("Not a terminal (standard input or output is not one): nothing was asked. Run `stories doctor` in the")
            lines.append("terminal you want to know about. From the environment alone:")
        }

        // The terminal.
        var terminal = "TERM=\(term)"
        if let program = environment["TERM_PROGRAM"] {
            terminal += ", TERM_PROGRAM=\(clean(program, 20))" + (environment["TERM_PROGRAM_VERSION"].map { " \(clean($0, 20))" } ?? "")
        }
        if let version = probe.replies.version { terminal += "; says it is \(clean(version))\(ms("version"))" }
        add("terminal", terminal)

        // The terminfo entry, and colours.
        let rawTerm = environment["TERM"] ?? ""
        let evidence = TerminalEvidence.from(probe, environment: environment, tmux: tmux)
        let hasEntry = TerminalEntry.exists(rawTerm)
        if !rawTerm.isEmpty, !hasEntry {
            if let (standIn, _) = TerminalEntry.choose(rawTerm, evidence: evidence) {
                add("terminfo", "no entry for TERM=\(term) here: the viewer draws as \(standIn), since the terminal answers like an xterm",
                    fix: "install the terminal's terminfo here, or from your own machine: infocmp -x \(term) | ssh HOST -- tic -x -")
            } else {
                add("terminfo", "no entry for TERM=\(term) here, and the terminal did not answer: the viewer cannot start",
                    fix: "install the terminal's terminfo (infocmp -x \(term) | ssh HOST -- tic -x -), or TERM=xterm-256color")
            }
        }
        let count = TerminalCapabilities.colours(term: hasEntry ? rawTerm : TerminalEntry.standIn)
        if !(environment["NO_COLOR"] ?? "").isEmpty {
            add("colours", "none: NO_COLOR is set (pictures are shaded)", fix: "unset NO_COLOR for colour")
        } else if let reason = evidence.truecolor {
            let entry = count.map { ", though its terminfo entry says \($0 >= 1 << 24 ? "so too" : "\($0)")" } ?? ""
            add("colours", "24-bit: \(clean(reason, 90))\(entry)\(ms("SGR").isEmpty ? ms("version") : ms("SGR"))")
        } else if term.hasSuffix("-direct") {
            add("colours", "24-bit (TERM=\(term))")
        } else {
            add("colours", count.map { "\($0) (TERM's terminfo entry; the terminal did not say it shows more)" } ?? "unknown: no terminfo entry for TERM=\(term)",
                fix: (count ?? 0) < 256 ? "TERM=xterm-256color (or the terminal's own 256-colour name) where it shows more; COLORTERM=truecolor for 24-bit"
                    : "if the terminal shows 24-bit colour (most do), COLORTERM=truecolor lets stories use it")
        }

        // Background and theme.
        if let body = probe.replies.background, let colour = ThemeChoice.background(fromOSC: body) {
            let light = Display(background: colour).isLight
            add("background", String(format: "#%02x%02x%02x", colour.red, colour.green, colour.blue)
                + ", so the \(light ? "light" : "dark") theme unless --theme or stories.conf says\(ms("background"))")
        } else if let hint = ThemeChoice.background(fromCOLORFGBG: environment["COLORFGBG"]) {
            add("background", "no answer to OSC 11; COLORFGBG says \(Display(background: hint).isLight ? "light" : "dark")")
        } else {
            add("background", "no answer to OSC 11: text in the terminal's own colours, accents that read on black and on white",
                fix: "--theme light or dark (or `theme =` in stories.conf) for the theme's colours")
        }

        // The 16 colours pictures in 8 and 16 colours are picked among.
        let answered = probe.replies.paletteAnswers.count
        let kind = term.hasPrefix("linux") ? "the Linux console's" : "xterm's"
        if answered == 16 {
            add("palette", "the terminal's own 16 colours (OSC 4)\(ms("palette"))")
        } else if answered > 0 {
            add("palette", "\(answered) of 16 colours from OSC 4, \(kind) defaults for the rest\(ms("palette"))")
        } else {
            add("palette", "\(kind) defaults (\(TerminalProbe.asksPalette(environment) ? "no answer to OSC 4" : "not asked"))")
        }

        // Pictures.
        let choice = GraphicsProtocol.detect(probe, environment: environment, tmux: tmux)
        let kittyTime = inTmux ? "" : ms("kitty"), da1Time = ms("DA1")
        switch choice.protocol {
        case .cells:
            let fix: String
            if inTmux, tmux?.passthrough == false {
                fix = "`tmux set -g allow-passthrough on` (tmux 3.3 or later) lets pictures through to kitty 0.28 or later or Ghostty; stories never changes it"
            } else if inTmux {
                fix = "inside tmux, pictures need kitty 0.28 or later or Ghostty outside it (with allow-passthrough on), or a tmux built with sixel (3.4 or later) in a sixel terminal"
            } else {
                fix = "real pixels need kitty, Ghostty, WezTerm, Konsole (kitty graphics), foot, mlterm, `xterm -ti vt340` (sixel) or iTerm2"
            }
            add("pictures", "cells: \(choice.reason)", fix: fix)
        case let graphics:
            add("pictures", "\(graphics.rawValue): \(choice.reason)\(graphics == .kitty ? kittyTime : da1Time)")
            add("", "photos at rest are shown in real pixels (--graphics cells, or graphics = cells in stories.conf, turns it off)")
            if graphics == .kitty {
                add("", choice.throughTmux
                    ? "sent through tmux's passthrough and placed through Unicode placeholders, text that tmux keeps and draws again"
                    : choice.placeholders ? "placed through Unicode placeholders, so pictures live in the text (kitty 0.28 or later, Ghostty)"
                    : "placed by placement commands (kitty 0.28 or later draws Unicode placeholders, which stories would use)")
                if !choice.throughTmux {
                    add("", choice.sharedMemory
                        ? "pixels through shared memory: kitty read this process's object, so it runs on this machine\(ms("shared memory"))"
                        : "pixels as PNG in the escape sequences: kitty could not read this process's shared memory (another machine, over ssh?)")
                }
            }
        }
        if let sixel = probe.replies.sixelGeometry { add("", "sixel pictures up to \(sixel.width)×\(sixel.height) pixels\(ms("sixel"))") }

        // Symbols.
        let symbols = CellSymbols.drawn(by: environment)
        let names: [CellSymbols: String] = [.half: "half blocks", .quad: "quadrants", .sextant: "sextants", .octant: "octants"]
        add("symbols", "\(names[symbols.symbols] ?? symbols.symbols.rawValue): \(clean(symbols.reason, 120))",
            fix: symbols.symbols == .half ? "--symbols quad (or sextant, octant) where the font draws them" : nil)

        // tmux.
        if inTmux {
            if let tmux {
                let passes = tmux.passthrough.map { $0 ? "on" : "off" } ?? "not known (tmux did not say)"
                add("tmux", "inside tmux \(clean(tmux.version, 12)); allow-passthrough \(passes)")
                var outside = tmux.terminalType.isEmpty ? "did not say what it is" : "is \(clean(tmux.terminalType))"
                if !tmux.terminalName.isEmpty { outside += " (TERM=\(clean(tmux.terminalName, 30)))" }
                if !tmux.features.isEmpty { outside += "; tmux uses its \(clean(tmux.features.joined(separator: ", "), 60))" }
                add("", "the terminal outside \(outside)")
            } else {
                add("tmux", "inside \(clean(tmuxVersion ?? "tmux", 20)), which did not say what terminal is outside it (tmux 3.3 or later does)")
            }
        } else {
            add("tmux", "not inside tmux")
        }

        // The cell size.
        if let cell = cellPixels {
            add("cell size", "\(cell.width)×\(cell.height) pixels (the window's size, TIOCGWINSZ)")
        } else if let cell = probe.replies.cellPixels {
            add("cell size", "\(cell.width)×\(cell.height) pixels\(ms("cell"))")
        } else {
            add("cell size", "unknown: photos assume cells twice as tall as wide")
        }

        // Locale.
        // setlocale says nil for a locale that is not installed.
        let locale = setlocale(LC_CTYPE, "").map { String(cString: $0) }
        let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
        if locale == nil {
            let asked = environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] ?? ""
            add("locale", "\(clean(asked, 30)) is not installed here; stories draws in C.UTF-8 anyway",
                fix: "install it (locale-gen) or choose one `locale -a` lists, for other programs' sake")
        } else if codeset.uppercased() == "UTF-8" {
            add("locale", "\(clean(locale ?? "", 30)), UTF-8")
        } else {
            add("locale", "\(clean(locale ?? "", 30)), \(clean(codeset, 20)): not UTF-8; stories draws in C.UTF-8 anyway",
                fix: "export LANG=C.UTF-8 (or your language's .UTF-8 locale) for other programs' sake")
        }

        // Sound (issue 32).
        switch sound {
        case .success?:
            add("sound", "a sound server took a stream (PulseAudio, or PipeWire's pulse server): videos play their sound (m mutes)")
        case .failure(let problem)?:
            add("sound", "none: \(clean(problem.description, 100))",
                fix: "videos play silently; a desktop session's PulseAudio or PipeWire (with pipewire-pulse) gives them sound, and PULSE_SERVER points to another")
        case nil:
            break
        }

        // Accessibility and direction (issue 33), as stories.conf says, else as found.
        let said = settings.read
        if let problem = settings.problem {
            add("settings", clean(problem, 200), fix: "the viewer stops there too: mend the line or remove it")
        }
        let brailleSocket = BrailleSocket.exists()
        if let cursor = said.cursor {
            add("reader", cursor == .focus ? "the cursor stands on what has focus (cursor = focus in stories.conf)"
                : "the cursor is hidden (cursor = hidden in stories.conf)")
        } else if let hint = ScreenReaderHint.likely(environment: environment, brailleSocketExists: brailleSocket) {
            add("reader", "a screen reader is likely (\(clean(hint, 40))): the cursor stands on what has focus",
                fix: "stories --screen-reader says everything in lines instead; `cursor = hidden` in stories.conf hides the cursor")
        } else {
            add("reader", "no sign of a screen reader: the cursor is hidden",
                fix: "--cursor focus (or `cursor = focus`) puts it on what has focus; --screen-reader says everything in lines")
        }
        let direction = LayoutDirection.locale(environment: environment)
        if let chosen = said.direction {
            add("direction", (chosen == .rightToLeft ? "right to left" : "left to right") + ", whatever the feed says (direction = \(chosen.rawValue) in stories.conf)")
        } else {
            add("direction", direction == .rightToLeft ? "right to left, as the locale reads: the layout is mirrored unless the feed says otherwise"
                : "left to right\(direction == nil ? "" : ", as the locale reads"); a feed that says \"direction\": \"rtl\" is mirrored")
        }
        switch said.bidi ?? BidiMode.auto(environment: environment) {
        case .terminal where said.bidi != nil:
            add("bidi", "the terminal puts right-to-left text in order (bidi = terminal in stories.conf): stories writes it as stored")
        case .terminal:
            add("bidi", "this terminal (Konsole or mlterm) puts right-to-left text in order itself: stories writes it as stored")
        case .app where environment["VTE_VERSION"] != nil:
            add("bidi", "stories puts right-to-left text in order (FriBiDi) and tells this VTE terminal not to do it again")
        case .app where said.bidi != nil:
            add("bidi", "stories puts right-to-left text in order and joins Arabic letters (bidi = app in stories.conf)")
        case .app:
            add("bidi", "stories puts right-to-left text in order and joins Arabic letters (FriBiDi)",
                fix: "`bidi = terminal` in stories.conf for a terminal that does it itself")
        }

        // Mouse and focus.
        func mode(_ number: Int, _ name: String, _ fix: String) {
            switch probe.replies.modes[number] {
            case 1?, 2?, 3?: add(name, "known (mode \(number))\(ms("mode \(number)"))")
            case 0?, 4?: add(name, "not known to this terminal (mode \(number))", fix: fix)
            default: add(name, probe.asked ? "not said (no answer to DECRQM \(number)); stories asks for it anyway" : "not asked")
            }
        }
        mode(1006, "mouse", "clicks still work up to column 223; a terminal with SGR mouse reports has no limit")
        mode(1004, "focus", "a story does not wait while the window is in the background")

        // The probe itself.
        if probe.asked {
            let (seconds, atto) = probe.elapsed.components
            let total = Double(seconds) * 1000 + Double(atto) / 1e15
            add("asked", probe.late ? String(format: "answers came late, in %.0f ms: after the viewer's first frame, which takes them as they come", total)
                : probe.replies.sawDA1 ? String(format: "every answer in %.1f ms (DA1 last)", total)
                : String(format: "no answer to DA1 within %.0f ms: a terminal that answers nothing costs no more", total))
        }
        return lines
    }

    /// stories.conf as the viewer reads it (nothing there: the defaults).
    static func settings(environment: [String: String]) -> (read: AppSettings, problem: String?) {
        let file = AppSettings.configFile(environment: environment)
        let data: Data
        do { data = try SafeFile.read(file.path, maxBytes: 1 << 20, followLinks: true).0 } catch .missing { return (AppSettings(), nil) } catch {
            return (AppSettings(), "\(file.path): \(SafeFile.describe(error, maxBytes: 1 << 20))")
        }
        guard let text = String(data: data, encoding: .utf8) else { return (AppSettings(), "\(file.path): cannot be read as UTF-8 text") }
        do { return (try AppSettings().applying(text, file: file.path), nil) } catch { return (AppSettings(), error.description) }
    }

    /// Whether a sound server takes a stream (one opened and closed at once).
    static func soundOutput() -> Result<Void, AudioProblem> {
        do { _ = try PulseOutput(name: "doctor") } catch { return .failure(error) }
        return .success(())
    }
}
