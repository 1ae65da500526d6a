import Foundation
import Glibc
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesTerminal
import StoriesTestSupport

/// 24-bit colour wherever the terminal says it has it (COLORTERM=truecolor): the direct
/// entry of its family, else one derived from its own entry with tic, and a note only when
/// nothing can be done.
@Suite(.serialized) @MainActor struct DirectColorTests {
    let truecolor = ["COLORTERM": "truecolor"]

    func open(_ term: String, environment: [String: String]) throws -> (ColorDepth, String?) {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        let screen = try CursesScreen(termName: term, input: input, output: output, environment: environment, mouse: false)
        defer { screen.close() }
        return (screen.colorDepth, screen.truecolorNote)
    }

    func temporaryCache() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stories-terminfo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func eachFamilyGetsItsOwnDirectEntry() {
        let cases: [(String, [String: String], String)] = [
            ("xterm-kitty", [:], "kitty-direct"),
            ("xterm-256color", ["KITTY_WINDOW_ID": "1"], "kitty-direct"),
            ("xterm-256color", ["VTE_VERSION": "7200"], "vte-direct"),
            ("xterm-256color", ["KONSOLE_VERSION": "230400"], "konsole-direct"),
            ("xterm-256color", ["TERM_PROGRAM": "iTerm.app"], "iterm2-direct"),
            ("xterm-256color", ["TERM_PROGRAM": "vscode"], "vscode-direct"),
            ("xterm-256color", ["TERM_PROGRAM": "WezTerm"], "wezterm-direct"),
            ("tmux-256color", [:], "tmux-direct"),
            ("screen-256color", ["TMUX": "/tmp/tmux-0/default,1,0"], "tmux-direct"),
            ("alacritty", [:], "alacritty-direct"),
            ("foot", [:], "foot-direct"),
            ("mintty", [:], "mintty-direct"),
            ("st-256color", [:], "st-direct"),
            ("xterm-256color", [:], "xterm-direct"),
            ("rxvt-unicode-256color", [:], "rxvt-unicode-direct"),
        ]
        for (term, environment, entry) in cases {
            #expect(DirectColorEntry.familyEntries(of: term, environment: environment) == [entry], "\(term) \(environment)")
        }
        // GNU screen outside tmux passes no 24-bit colour: there is nothing to find.
        #expect(DirectColorEntry.familyEntries(of: "screen-256color", environment: [:]).isEmpty)
    }

    /// The family entries come from ncurses-term (which `.ci/run` installs): no kitty, VTE
    /// or Konsole is needed, only their terminfo. Reported as skipped where it is missing.
    @Test(.enabled(if: ["k/kitty-direct", "v/vte-direct", "t/tmux-direct", "x/xterm-direct"].allSatisfy {
        FileManager.default.fileExists(atPath: "/usr/share/terminfo/" + $0)
    }, "needs the ncurses-term package (apt-get install ncurses-term)"))
    func installedFamilyEntriesOpenInDirectColour() throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // Each of these has its family's -direct entry in ncurses-term; none needs tic.
        for (term, extra) in [("xterm-kitty", [String: String]()), ("xterm-256color", [:]), ("tmux-256color", [:]),
                              ("screen-256color", ["TMUX": "x"]), ("alacritty", [:]), ("konsole-256color", [:]),
                              ("vte-256color", [:]), ("mintty", [:]), ("st-256color", [:]), ("iterm2", [:])] {
            let environment = truecolor.merging(extra) { $1 }.merging(["XDG_CACHE_HOME": cache]) { $1 }
            let (depth, note) = try open(term, environment: environment)
            #expect(depth == .direct, "\(term)")
            #expect(note == nil, "\(term): \(note ?? "")")
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache + "/stories/terminfo")) ?? []).isEmpty)
        // Without COLORTERM the terminal's own entry is used, as it says.
        #expect(try open("xterm-256color", environment: ["XDG_CACHE_HOME": cache]).0 == .palette256)
    }

    @Test func aTerminalWithNoDirectEntryGetsOneDerivedFromItsOwn() throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let environment = truecolor.merging(["XDG_CACHE_HOME": cache]) { $1 }
        let (depth, note) = try open("rxvt-unicode-256color", environment: environment)
        #expect(depth == .direct)
        #expect(note == nil)
        let compiled = cache + "/stories/terminfo/s/stories-rxvt-unicode-256color-direct"
        // Dated long ago: compiled again, it would carry today's date.
        let made = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: made], ofItemAtPath: compiled)
        // The derived entry keeps the terminal's own keys (urxvt's Home is not xterm's).
        let dump = try infocmp("stories-rxvt-unicode-256color-direct", directory: cache + "/stories/terminfo")
        #expect(dump.contains("khome=\\E[7~"))
        #expect(dump.contains("colors#0x1000000"))
        // A second run finds it and compiles nothing.
        #expect(try open("rxvt-unicode-256color", environment: environment).0 == .direct)
        #expect(try FileManager.default.attributesOfItem(atPath: compiled)[.modificationDate] as? Date == made)
        // TERMINFO was set for the lookup alone.
        #expect(getenv("TERMINFO") == nil)
    }

    @Test func whereNothingCanBeDoneOneShortTrueLine() throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let (depth, note) = try open("screen-256color", environment: truecolor.merging(["XDG_CACHE_HOME": cache]) { $1 })
        #expect(depth == .palette256)
        let line = try #require(note)
        #expect(line.contains("GNU screen"))
        #expect(!line.contains("apt install ncurses-term"))
        #expect(line.displayWidth <= 78)
        // tic cannot be had: the line says so, and fits.
        let found = DirectColorEntry.find(for: "rxvt-unicode-256color", truecolor: "COLORTERM", environment: truecolor) { term in
            DirectColorEntry.compile(term, into: cache + "/t", tic: "/nonexistent/tic")
        }
        #expect(found.entry == nil)
        #expect(found.note?.contains("no tic") == true)
        #expect((found.note?.displayWidth ?? 99) <= 78)
        // A TERM with characters no terminfo name has is never handed to tic or a path.
        for hostile in ["../../etc/x", "a b", "x\u{1B}[2J", String(repeating: "x", count: 200)] {
            let result = DirectColorEntry.find(for: hostile, truecolor: "COLORTERM", environment: truecolor) { _ in
                Issue.record("compiled \(hostile)")
                return .failure(.init(reason: ""))
            }
            #expect(result.entry == nil && result.note == nil)
            #expect(!DirectColorEntry.isPlainName(hostile))
        }
    }

    func infocmp(_ name: String, directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/infocmp")
        process.arguments = ["-x", "-A", directory, name]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Issue 29, point 5: focus reports read from the input, and the mode asked for and given back.
@Suite(.ownThread) struct FocusReportTests {
    @Test func focusInAndOutAreReportsNotKeys() {
        var decoder = InputDecoder()
        for scalar in "\u{1B}[Oa\u{1B}[I\u{1B}[A".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("a")), .key(.up)], "no stray Escape, O or I typed")
        #expect(decoder.takeFocusReports() == [false, true])
        #expect(decoder.takeFocusReports().isEmpty)
    }

    /// Issue 29, point 1: the terminal's OSC 11 answer (its background) is read from the input.
    @Test func oscAnswersAreReportsNotKeys() {
        // The answer comes with the input, and nothing of it is typed.
        var decoder = InputDecoder()
        for scalar in "a\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\b\u{1B}]11;rgb:0/0/0\u{07}".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("a")), .key(.character("b"))])
        #expect(decoder.takeAnswers() == ["\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\", "\u{1B}]11;rgb:0/0/0\u{1B}\\"])
        // A hostile answer that never ends is bounded and swallows nothing after its end.
        var endless = InputDecoder()
        for _ in 0..<100_000 { endless.feed(.scalar("x")) }
        for scalar in "\u{1B}]".unicodeScalars + Array(repeating: "y", count: 10_000) + "\u{07}q".unicodeScalars { endless.feed(.scalar(scalar)) }
        let events = endless.flush()
        #expect(events.last == .key(.character("q")))
        #expect((endless.takeAnswers().first?.count ?? 0) <= 260)
    }

    /// ESC ] that is not an answer (Alt+], a paste) never swallows the keys after it.
    @Test func anOSCThatIsNotAnAnswerSwallowsNothing() {
        var decoder = InputDecoder()
        for scalar in "\u{1B}]".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("]"), .alt)], "Alt+] alone")
        for scalar in "q".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("q"))], "and q still quits")
        var pasted = InputDecoder()
        for scalar in "\u{1B}]hello".unicodeScalars { pasted.feed(.scalar(scalar)) }
        #expect(pasted.flush() == [.key(.character("]"), .alt), .key(.character("h")), .key(.character("e")), .key(.character("l")),
                                   .key(.character("l")), .key(.character("o"))])
        var controlled = InputDecoder()
        for scalar in "\u{1B}]11;rgb:ff\u{03}x".unicodeScalars { controlled.feed(.scalar(scalar)) }
        let events = controlled.flush()
        #expect(events.contains(.key(.character("c"), .control)) && events.last == .key(.character("x")), "\(events)")
        #expect(controlled.takeAnswers().isEmpty)
        // Numbers an answer cannot hold are not read as a colour (and trap nothing).
        for hostile in ["11;rgb:-2/0/0", "11;rgb:+f/0/0", "11;rgb:0x/0/0", "11;rgb:ffff/ffff/ffff/ffff"] {
            #expect(ThemeChoice.background(fromOSC: hostile) == nil, "\(hostile)")
        }
    }

    @Test @MainActor func theScreenAsksForFocusReportsAndGivesThemBack() throws {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        let screen = try CursesScreen(termName: "xterm-256color", input: input, output: output, environment: [:], mouse: true)
        screen.suspend()
        screen.resume()
        screen.close()
        fflush(output)
        rewind(output)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, output)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "\u{1B}[?1004h").count - 1 == 2, "on at start and after fg")
        #expect(text.components(separatedBy: "\u{1B}[?1004l").count - 1 == 2, "off for the shell, and at the end")
    }
}
