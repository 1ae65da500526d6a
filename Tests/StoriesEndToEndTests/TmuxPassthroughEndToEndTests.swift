import Foundation
import StoriesTestSupport
import StoriesMedia
import Testing

/// Issue 31, point 1, inside tmux: a real tmux (this machine's 3.3a) runs the app in a
/// pseudo-terminal of the test's, which answers tmux's own questions as the terminal
/// outside would (XTVERSION: kitty of some version). What reaches that outer terminal is
/// what a person's kitty would get: with `allow-passthrough on` and kitty 0.28, the
/// picture (tmux unwraps it) and placeholders as text, and its deletion on quitting;
/// without passthrough, or with a kitty too old for placeholders, no kitty command at all.
@Suite(.serialized, .ownThread) struct TmuxPassthroughEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let kitty: String, passthrough: Bool, pictures: Bool, doctor: String
        var testDescription: String { "kitty \(kitty), passthrough \(passthrough ? "on" : "off")" }
    }

    static let cases = [
        Case(kitty: "0.28.1", passthrough: true, pictures: true,
             doctor: "pictures    kitty: through tmux's passthrough to kitty(0.28.1), as Unicode placeholders"),
        Case(kitty: "0.28.1", passthrough: false, pictures: false,
             doctor: "pictures    cells: inside tmux, which passes no pictures through to kitty(0.28.1) (allow-passthrough is off)"),
        Case(kitty: "0.26.5", passthrough: true, pictures: false,
             doctor: "pictures    cells: inside tmux: kitty(0.26.5) shows pictures tmux keeps only from kitty 0.28 on"),
    ]

    @Test(arguments: cases)
    func picturesReachTheTerminalOutsideOnlyAsTmuxKeepsThem(_ test: Case) throws {
        let binary = try Binary.requireBuilt()
        let outer = try OuterTerminal(kitty: test.kitty, passthrough: test.passthrough) { folder in
            "\(binary) doctor > '\(folder)/doctor.txt' 2>&1; exec \(binary)"
        }
        let output = outer.output
        try XTerminal.wait("the home screen", timeout: 30) { output.text.contains("Demo stories") }
        let report = (try? String(contentsOfFile: outer.folder.path + "/doctor.txt", encoding: .utf8)) ?? ""
        #expect(report.contains(test.doctor), "\(report)")
        #expect(report.contains("the terminal outside is kitty(\(test.kitty))"), "\(report)")
        try XTerminal.wait("the first story on the row", timeout: 30) { output.text.contains("@ayla") }
        let homeBytes = output.text.utf8.count
        outer.type("\r") // open the first story: its photo
        if test.pictures {
            try XTerminal.wait("the photo in placeholders", timeout: 30) { output.text.unicodeScalars.contains("\u{10EEEE}") }
        } else {
            try XTerminal.wait("the viewer's author line", timeout: 30) {
                String(decoding: output.text.utf8.dropFirst(homeBytes), as: UTF8.self).contains("@ayla")
            }
            // The time a picture would have taken: none comes.
            let held = Wait.holds(for: 3) { !output.text.unicodeScalars.contains("\u{10EEEE}") && !output.text.contains("\u{1B}_G") }
            #expect(held)
        }
        outer.type(" ") // paused: it stays on this photo
        try XTerminal.wait("the viewer paused", timeout: 30) { output.text.contains("paused") }
        let shown = output.text
        if test.pictures {
            // tmux unwrapped it: the commands reach the terminal as kitty reads them.
            let transmit = try #require(shown.range(of: "\u{1B}_Ga=t,f=100,t=d,i="), "the photo sent through tmux")
            let id = try #require(Int(shown[transmit.upperBound...].prefix { $0.isNumber }))
            #expect((16...255).contains(id))
            #expect(shown.contains("\u{1B}_Ga=p,U=1,i=\(id),c=80,r="), "its virtual placement")
            #expect(!shown.contains("\u{1B}_Ga=p,i="), "no placement commands (tmux would wipe them)")
            #expect(!shown.contains("\u{1B}Ptmux;"), "nothing left wrapped: tmux passed it on")
            // The cells name it in one of the 256 colours, as tmux wrote them.
            #expect(shown.utf8.firstRange(of: Array("\u{1B}[38;5;\(id)m\u{10EEEE}".utf8)) != nil, "placeholders in picture \(id)'s colour")
            outer.type("qq")
            try XTerminal.wait("the app to quit", timeout: 20) { !outer.tmux.isRunning }
            #expect(output.text.contains("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\"), "the picture deleted at the end")
            #expect(!output.text.contains("d=A"), "no delete-all: other panes' pictures are theirs")
        } else {
            #expect(!shown.contains("\u{1B}_G"), "no kitty command reaches the terminal")
            #expect(!shown.unicodeScalars.contains("\u{10EEEE}"))
            outer.type("qq")
            try XTerminal.wait("the app to quit", timeout: 20) { !outer.tmux.isRunning }
        }
        #expect(outer.tmux.wait() == 0)
    }

    /// `stories print --graphics kitty` inside tmux: the photo through the passthrough and
    /// its placeholders as text after the prompt, which tmux keeps; with passthrough off,
    /// refused in one line that says how to allow it (nothing would show).
    @Test func printInsideTmux() throws {
        let binary = try Binary.requireBuilt()
        let photo = RealPixelsEndToEndTests.astronaut.path
        let outer = try OuterTerminal(kitty: "0.28.1", passthrough: true) { folder in
            "\(binary) print '\(photo)' --graphics kitty --size 20x10 2> '\(folder)/err.txt'; echo PRINTED; sleep 2"
        }
        try XTerminal.wait("the print", timeout: 30) { outer.output.text.contains("PRINTED") }
        let text = outer.output.text
        let transmit = try #require(text.range(of: "\u{1B}_Ga=t,f=100,t=d,i="), "sent through tmux")
        let id = try #require(Int(text[transmit.upperBound...].prefix { $0.isNumber }))
        // The portrait photo fitted in 20×10 cells: 12 of 10-pixel cells wide, 10 of 20 high.
        #expect(text.contains("\u{1B}_Ga=p,U=1,i=\(id),c=12,r=10,"), "its virtual placement over the cells it covers")
        #expect(text.utf8.firstRange(of: Array("\u{1B}[38;5;\(id)m\u{10EEEE}".utf8)) != nil)
        let rows = text.unicodeScalars.split(separator: "\n").filter { $0.contains("\u{10EEEE}") }
        #expect(rows.count == 10, "ten rows of placeholders, as text tmux keeps")
        #expect(((try? String(contentsOfFile: outer.folder.path + "/err.txt", encoding: .utf8)) ?? "x").isEmpty, "no warning for kitty 0.28")

        let off = try OuterTerminal(kitty: "0.28.1", passthrough: false) { folder in
            "\(binary) print '\(photo)' --graphics kitty --size 20x10 2> '\(folder)/err.txt'; echo \"STATUS $?\"; sleep 2"
        }
        try XTerminal.wait("the refusal", timeout: 30) { off.output.text.contains("STATUS") }
        #expect(off.output.text.contains("STATUS 1") && !off.output.text.contains("\u{1B}_G"))
        let error = (try? String(contentsOfFile: off.folder.path + "/err.txt", encoding: .utf8)) ?? ""
        #expect(error.contains("inside tmux, which passes no pictures through: `tmux set -g allow-passthrough on`"), "\(error)")
    }
}

/// A real tmux in a pseudo-terminal of the test's, standing for the terminal outside it:
/// everything tmux writes is kept (`output`), and tmux's XTVERSION question is answered as
/// kitty of `kitty`'s version. The tmux server (a socket of its own) and the folder go
/// when it does.
final class OuterTerminal {
    let tmux: Child
    let output = Box()
    let folder: URL
    private let master: Int32
    private let socket: String
    private let tmuxPath: String

    init(kitty version: String, passthrough: Bool, command: (String) -> String) throws {
        let binary = try #require(XTerminal.which("tmux"), "tmux (.ci/run installs it)")
        tmuxPath = binary
        TerminalsInUse.shared()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-pt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("tmux.conf")
        try "set -g allow-passthrough \(passthrough ? "on" : "off")\nset -g status off\n".write(to: config, atomically: true, encoding: .utf8)
        socket = "stories-pt-\(UUID().uuidString.prefix(8))"
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 800, ws_ypixel: 480)
        try #require(openpty(&master, &slave, nil, nil, &size) == 0)
        self.master = master
        var environment = ProcessInfo.processInfo.environment
        for name in ["TMUX", "TMUX_PANE", "NO_COLOR", "TERM_PROGRAM", "LC_TERMINAL", "COLORFGBG", "KITTY_WINDOW_ID"] { environment[name] = nil }
        environment["TERM"] = "xterm-256color"
        for name in ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"] { environment[name] = folder.path }
        // The command waits until tmux has the outside terminal's answer (a person's tmux has
        // had it long before anything runs in it; here the pane starts at once).
        let settled = "until [ -n \"$(tmux display-message -p '#{client_termtype}')\" ]; do sleep 0.1; done; "
        tmux = try Child([binary, "-L", socket, "-f", config.path, "new-session", "-x", "80", "-y", "24", settled + command(folder.path)],
                         environment: environment, stdin: slave, stdout: .descriptor(slave), stderr: .null)
        close(slave)
        let output = output, terminal = master
        Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var answered = false
            while true {
                let n = read(terminal, &buffer, buffer.count)
                guard n > 0 else { break }
                output.append(buffer[0..<n])
                if !answered, output.text.contains("\u{1B}[>q") {
                    answered = true
                    let answer = "\u{1B}P>|kitty(\(version))\u{1B}\\"
                    _ = write(terminal, answer, answer.utf8.count)
                }
            }
        }.start()
    }

    func type(_ keys: String) { _ = write(master, keys, keys.utf8.count) }

    deinit {
        _ = try? XTerminal.output([tmuxPath, "-L", socket, "kill-server"], environment: ProcessInfo.processInfo.environment)
        if let keep = ProcessInfo.processInfo.environment["STORIES_SCREENSHOTS"] {
            try? output.text.write(toFile: keep + "/\(socket).txt", atomically: true, encoding: .utf8)
        }
        close(master)
        try? FileManager.default.removeItem(at: folder)
        TerminalsInUse.sharedDone()
    }
}
