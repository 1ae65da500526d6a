import Foundation
import StoriesTestSupport
import Testing

/// Issue 45 through a terminal the test plays itself: answers over a slow link straddling
/// the probe's window are never keys, signals at any moment give the terminal back, and a
/// TERM this machine has no entry for starts when the terminal answers like an xterm.
@Suite(.ownThread) struct TerminalAsItIsEndToEndTests {
    static func home() throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fake-terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return home
    }

    /// xterm's answers at 30 ms a byte, starting 50 ms after the burst (the probe's window
    /// closes in the middle of them): the app waits for none of them past its window, takes
    /// none for a key (one holds a `q`), and the keys typed after them are exactly what it
    /// records; the terminal's modes are as they were after it quits.
    @Test(.timed) func answersAtThirtyMillisecondsAByteAreNeverKeys() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let recording = home.appendingPathComponent("keys.jsonl").path
        let terminal = try FakeTerminal(["--record", recording], environment: FakeTerminal.environment(term: "xterm", home: home))
        let burstEnd = try terminal.waitFor("\u{1B}[c")
        // The first frame does not wait for the answers: the screen is up before they end.
        let answers = Thread { terminal.send(XtermAnswers.all, pace: .milliseconds(30)) }
        answers.start()
        try terminal.waitFor("\u{1B}[?1049h", after: burstEnd, timeout: 2)
        try terminal.waitUntil("the answers written", timeout: 30) { answers.isFinished }
        // A key straight after the last answer's byte, then q.
        terminal.send("\u{1B}[C")
        try terminal.waitUntil("Right recorded") { (try? String(contentsOfFile: recording, encoding: .utf8))?.contains("\"Right\"") == true }
        terminal.send("q")
        #expect(try terminal.waitForExit() == 0)
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"key\"") }
        #expect(lines.count == 2 && lines[0].contains("\"Right\"") && lines[1].contains("\"q\""), "keys recorded: \(lines)")
        #expect(terminal.modesDiffer().isEmpty, "\(terminal.modesDiffer())")
    }

    /// Debian's xterm says `TERM=xterm` (8 colours in terminfo) but answers as XTerm(379):
    /// pictures and colours are drawn in 24-bit colour (`38;2;`/`48;2;` in what it writes).
    @Test func debiansXtermGetsTwentyFourBitColour() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try FakeTerminal([], environment: FakeTerminal.environment(term: "xterm", home: home))
        let burstEnd = try terminal.waitFor("\u{1B}[c")
        terminal.send(XtermAnswers.all)
        try terminal.waitFor("Ayla", after: burstEnd)
        // 24-bit colour as xterm-direct sends it (`38:2::r:g:b`) or as the frame writer does.
        try terminal.waitUntil("24-bit colour written") {
            let text = String(decoding: terminal.written.dropFirst(burstEnd), as: UTF8.self)
            return ["38:2:", "48:2:", "38;2;", "48;2;"].contains { text.contains($0) }
        }
        terminal.send("q")
        #expect(try terminal.waitForExit() == 0)
        #expect(terminal.modesDiffer().isEmpty)
    }

    /// A terminal that answers after the first frame (over ssh, or kitty starting on software
    /// OpenGL): the home is drawn without waiting for the answers — in xterm's 8 colours, all
    /// `TERM=xterm` says — and once the terminal says it is XTerm(379), the screen opens again
    /// on the direct-colour entry and the next frames are in 24-bit colour, with no `endwin`
    /// between (the alternate screen is never left); the modes are given back at the end.
    /// With `--cursor focus` (a screen reader's), the cursor is shown on the focus again on
    /// the reopened screen.
    @Test(arguments: [[], ["--cursor", "focus"]]) func aTerminalThatAnswersLateGetsTwentyFourBitColourWhenItDoes(arguments: [String]) throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try FakeTerminal(arguments, environment: FakeTerminal.environment(term: "xterm", home: home))
        let burstEnd = try terminal.waitFor("\u{1B}[c")
        let shown = try terminal.waitFor("Ayla", after: burstEnd)
        let direct = ["38:2:", "48:2:", "38;2;", "48;2;"]
        let before = String(decoding: terminal.written.dropFirst(burstEnd), as: UTF8.self)
        #expect(!direct.contains { before.contains($0) }, "24-bit colour before the terminal said it shows it")
        let answered = terminal.written.count
        terminal.send(XtermAnswers.all)
        try terminal.waitUntil("24-bit colour written after the answers") {
            let text = String(decoding: terminal.written.dropFirst(answered), as: UTF8.self)
            return direct.contains { text.contains($0) }
        }
        let after = String(decoding: terminal.written.dropFirst(shown), as: UTF8.self)
        #expect(!after.contains("\u{1B}[?1049l"), "the screen was given back in between")
        if arguments.contains("focus") {
            try terminal.waitUntil("the cursor shown on the reopened screen") {
                let text = String(decoding: terminal.written.dropFirst(answered), as: UTF8.self)
                guard let shownAt = text.range(of: "\u{1B}[?25h", options: .backwards) else { return false }
                return text.range(of: "\u{1B}[?25l", options: .backwards).map { $0.lowerBound < shownAt.lowerBound } ?? true
            }
        }
        terminal.send("q")
        #expect(try terminal.waitForExit() == 0)
        #expect(terminal.modesDiffer().isEmpty, "\(terminal.modesDiffer())")
    }

    /// `TERM=foot`, `TERM=xterm-ghostty` with no entry here: the app starts, drawn as
    /// xterm-256color, with one line saying so; with a terminal that answers nothing it is
    /// refused as before, and the terminal's modes are as they were. Where the machine has
    /// the entry (`.ci/run` installs foot for the terminal matrix, and its entry with it) the
    /// app starts on it without the line; a name no machine has keeps the stand-in tested.
    @Test(arguments: ["foot", "xterm-ghostty", "stories-unheard-of"]) func aTermWithNoEntryStartsWhenTheTerminalAnswers(term: String) throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let known = ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"].contains {
            FileManager.default.fileExists(atPath: "\($0)/\(term.prefix(1))/\(term)")
        }
        let terminal = try FakeTerminal([], environment: FakeTerminal.environment(term: term, home: home), width: 160)
        let burstEnd = try terminal.waitFor("\u{1B}[c")
        terminal.send(XtermAnswers.all)
        if known {
            _ = try terminal.waitFor("\u{1B}[?1049h", after: burstEnd) // the screen is up, on its own entry
            #expect(!String(decoding: terminal.written, as: UTF8.self).contains("terminfo"), "no stand-in line where \(term) has an entry")
        } else {
            _ = try terminal.waitFor("terminfo", after: burstEnd)
        }
        terminal.send("q")
        #expect(try terminal.waitForExit() == 0)
        #expect(terminal.modesDiffer().isEmpty)
        guard !known else { return }

        let stderr = home.appendingPathComponent("stderr").path
        let silent = try FakeTerminal([], environment: FakeTerminal.environment(term: term, home: home), stderr: stderr)
        #expect(try silent.waitForExit() == 1)
        let said = try String(contentsOfFile: stderr, encoding: .utf8)
        #expect(said.contains("unknown terminal type '\(term)'"), "\(said)")
        #expect(silent.modesDiffer().isEmpty, "\(silent.modesDiffer())")
    }

    /// A signal at each moment of a run — before the burst is answered, halfway through the
    /// answers, once the screen is up, after the first frame — for the viewer and `doctor`:
    /// the terminal's modes are given back and the status is the signal's usual one.
    @Test(arguments: [("viewer", SIGINT), ("viewer", SIGTERM), ("viewer", SIGHUP), ("viewer", SIGQUIT),
                      ("doctor", SIGINT), ("doctor", SIGTERM), ("doctor", SIGHUP), ("doctor", SIGQUIT)])
    func aSignalAtAnyMomentGivesTheTerminalBack(command: String, signal: Int32) throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let moments = command == "viewer" ? ["asked", "half answered", "screen up", "first frame"] : ["asked", "half answered"]
        for moment in moments {
            let terminal = try FakeTerminal(command == "viewer" ? [] : ["doctor"], environment: FakeTerminal.environment(term: "xterm", home: home))
            let burstEnd = try terminal.waitFor("\u{1B}[c")
            switch moment {
            case "asked":
                break
            case "half answered":
                let half = XtermAnswers.all.utf8.count / 2
                terminal.send(String(decoding: Array(XtermAnswers.all.utf8.prefix(half)), as: UTF8.self), pace: .milliseconds(5))
            default:
                terminal.send(XtermAnswers.all)
                try terminal.waitFor(moment == "screen up" ? "\u{1B}[?1049h" : "Ayla", after: burstEnd)
            }
            terminal.child.signal(signal)
            let status: Int32
            do { status = try terminal.waitForExit() } catch {
                Issue.record("\(command), \(moment), signal \(signal): still running")
                throw error
            }
            #expect(status == 128 + signal, "\(command), \(moment), signal \(signal): status \(status)")
            #expect(terminal.modesDiffer().isEmpty, "\(command), \(moment), signal \(signal): \(terminal.modesDiffer())")
        }
    }

    /// Ctrl-Z (SIGTSTP) while `doctor` waits for answers: stopped with the terminal's own
    /// modes, the raw mode back after `fg`, and the report still made.
    @Test func doctorStoppedWhileAskingGivesTheTerminalBack() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try FakeTerminal(["doctor"], environment: FakeTerminal.environment(term: "xterm", home: home))
        try terminal.waitFor("\u{1B}[c")
        terminal.child.signal(SIGTSTP)
        try terminal.waitUntil("stopped") { terminal.isStopped }
        #expect(terminal.modesDiffer().isEmpty, "while stopped: \(terminal.modesDiffer())")
        kill(terminal.child.pid, SIGCONT)
        terminal.send(XtermAnswers.all)
        try terminal.waitFor("colours")
        #expect(try terminal.waitForExit() == 0)
        #expect(terminal.modesDiffer().isEmpty)
    }

    /// Inside tmux nothing the probe sends is taken by tmux as the pane's title (tmux 3.3a
    /// made the kitty query's APC string the title), and doctor and the viewer leave it as
    /// it was; doctor asks tmux within half a second.
    @Test func insideTmuxThePanesTitleIsLeftAlone() throws {
        let binary = try Binary.requireBuilt()
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.tmux(["select-pane", "-T", "my-title"])
        try tmux.type("\(binary) doctor; echo DOCTOR-DONE")
        _ = try tmux.waitFor("doctor's report") { $0.contains("DOCTOR-DONE") }
        #expect(try tmux.tmux(["display-message", "-p", "#{pane_title}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "my-title")
        try tmux.type(binary)
        try tmux.waitForLoadedRingRow()
        try tmux.press("q")
        try tmux.expectGivenBack(status: 0)
        #expect(try tmux.tmux(["display-message", "-p", "#{pane_title}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "my-title")
    }
}
