import Foundation
import StoriesTestSupport
import StoriesCore
import Testing

/// The built `stories` binary (`BuiltBinary`), and running it without a terminal.
enum Binary {
    static var url: URL { BuiltBinary.url }

    static func requireBuilt() throws -> String { try BuiltBinary.requireBuilt() }

    /// Runs the binary without a terminal; returns exit status, stdout and stderr.
    /// `stdoutPath`: standard output goes there instead (`/dev/full`), and `out` is empty.
    static func run(_ arguments: [String], environment: [String: String] = [:], stdoutPath: String? = nil) throws -> (status: Int32, out: String, err: String) {
        // Files, not pipes: reading them never waits for an end another process holds.
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appendingPathComponent("run-\(UUID().uuidString).out").path
        let errFile = folder.appendingPathComponent("run-\(UUID().uuidString).err").path
        defer {
            try? FileManager.default.removeItem(atPath: outFile)
            try? FileManager.default.removeItem(atPath: errFile)
        }
        let child = try Child([try requireBuilt()] + arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                              stdout: .file(stdoutPath ?? outFile), stderr: .file(errFile))
        let status = child.wait()
        let outData = FileManager.default.contents(atPath: outFile) ?? Data()
        let errData = FileManager.default.contents(atPath: errFile) ?? Data()
        return (status, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

/// A private tmux server running a shell, driven the way a person would use a terminal:
/// type, press keys, resize, read the screen.
final class Tmux {
    let socket: String
    let session = "e2e"
    /// XDG_STATE_HOME for the app under test (and XDG_CONFIG_HOME as its `config` folder):
    /// its own, so tests never touch the real ones.
    let stateDirectory: URL
    /// Whether this object made `stateDirectory` (and so removes it).
    private let ownsStateDirectory: Bool
    /// The niceness tmux runs at — its server, so the shell and the app it starts, and each
    /// command that sends a key — or nil for the test's own. A test that times the app's
    /// answer to a key gives it -10, as a person's terminal has the machine to itself while
    /// other suites load these two cores (where that is not allowed, `nice` says so and
    /// runs the command at the test's own).
    private let niceness: Int?

    /// Starts a bare bash with a recognisable prompt in a `width`×`height` window.
    init(width: Int = 100, height: Int = 30, stateDirectory: URL? = nil, niceness: Int? = nil) throws {
        TerminalsInUse.shared()
        self.niceness = niceness
        socket = "stories-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"
        self.stateDirectory = stateDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-state")
        ownsStateDirectory = stateDirectory == nil
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)",
                  "env", "PS1=PROMPT$ ", "bash", "--norc", "--noprofile"], captureOutput: false)
        try waitFor("the shell prompt") { $0.contains { $0.hasPrefix("PROMPT$") } }
    }

    deinit {
        _ = try? tmux(["kill-server"])
        if ownsStateDirectory { try? FileManager.default.removeItem(at: stateDirectory) }
        TerminalsInUse.sharedDone()
    }

    /// The tmux server's process id (to check that it goes away).
    func serverPID() throws -> Int32? {
        Int32(try tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs a tmux command. `captureOutput` false is for commands that start the server:
    /// the server keeps any pipe it inherits open, so reading it would never end.
    @discardableResult
    func tmux(_ arguments: [String], captureOutput: Bool = true) throws -> String {
        let nice = niceness.map { ["nice", "-n", "\($0)"] } ?? []
        let result = try Spawn.run(nice + ["tmux", "-u", "-L", socket] + arguments, captureOutput: captureOutput,
                                   environment: ["XDG_STATE_HOME": stateDirectory.path,
                                                 "XDG_CONFIG_HOME": stateDirectory.appendingPathComponent("config").path,
                                                 "XDG_CACHE_HOME": stateDirectory.appendingPathComponent("cache").path])
        try #require(result.status == 0, "tmux \(arguments.joined(separator: " ")) failed with \(result.status) (is tmux installed?)")
        return result.output
    }

    /// A shell in tmux with `stories` started in it and its loaded ring row on screen.
    static func runningStories(width: Int = 100, height: Int = 30, arguments: String = "", stateDirectory: URL? = nil) throws -> Tmux {
        let binary = try Binary.requireBuilt()
        let tmux = try Tmux(width: width, height: height, stateDirectory: stateDirectory)
        try tmux.type(arguments.isEmpty ? binary : "\(binary) \(arguments)")
        try tmux.waitForLoadedRingRow()
        return tmux
    }

    /// Waits until the app's ring row is loaded: keys pressed before then find no story to
    /// move to (on a loaded machine the first screen can come seconds before the feed).
    func waitForLoadedRingRow() throws {
        // The title line ends in "N stories" once the feed has loaded, and the bubbles are
        // drawn once their view models are built a moment later (off the main queue).
        try waitFor("the loaded ring row") { lines in
            guard let title = lines.first, title.range(of: #"[0-9]+\+? stor(y|ies)$"#, options: .regularExpression) != nil else { return false }
            // A bubble in the ring row at the top: the home sections' cards further down are
            // drawn with "╭" too, and can come first on a loaded machine (seen in CI).
            return title.hasSuffix(" 0 stories") || lines.prefix(7).contains { $0.contains("┏") || $0.contains("╭") }
        }
    }

    /// Waits until the viewer's item `item` (1-based) is on screen and playing: its segment
    /// of the progress bar has begun to fill, which it does only once its photo is there
    /// (an item counts as seen only then).
    func waitForPlaying(item: Int) throws {
        try waitFor("item \(item) playing") { lines in
            guard let segment = Self.segments(of: lines).dropFirst(item - 1).first else { return false }
            return segment.contains("━") || segment.contains("╸")
        }
    }

    /// Waits until the item on screen, whichever it is, has begun to play: a segment of the
    /// bar is part filled (the progress waits for any animation to end).
    func waitForTheItemPlaying(_ what: String) throws {
        try waitFor("\(what): the item playing") { lines in
            Self.segments(of: lines).contains { ($0.contains("━") || $0.contains("╸")) && $0.contains("─") }
        }
    }

    /// The viewer's progress bar (the top line), a segment an item.
    static func segments(of lines: [String]) -> [Substring] {
        (lines.first ?? "").split(separator: " ", omittingEmptySubsequences: true)
    }

    /// Waits until the shell's prompt is back on an otherwise empty last line.
    func waitForPrompt() throws {
        try waitFor("the shell prompt back") { $0.contains { $0 == "PROMPT$" } }
    }

    /// After the app has gone: the shell's prompt back, the exit status `status`, echo on
    /// (the terminal's modes restored) and mouse reporting off.
    func expectGivenBack(status: Int) throws {
        try waitForPrompt()
        try type("echo exit=$?; stty -a | grep -o -- ' -\\?echo ' | head -1")
        try waitFor(text: "exit=\(status)")
        try waitFor(text: " echo ")
        #expect(try mouseModes() == "0 0", "mouse reporting off again")
    }

    /// Types a command line and presses Enter.
    func type(_ line: String) throws {
        try tmux(["send-keys", "-t", session, "-l", line])
        try tmux(["send-keys", "-t", session, "Enter"])
    }

    /// Presses keys by tmux name ("Enter", "Escape", "Space", "C-c", "l").
    func press(_ keys: String...) throws {
        for key in keys { try tmux(["send-keys", "-t", session, key]) }
    }

    /// Sends bytes as if the terminal produced them (mouse reports).
    func sendRaw(_ text: String) throws {
        try tmux(["send-keys", "-t", session, "-l", text])
    }

    /// Sends bytes as they are (any value, not only text), a few thousand per tmux call.
    func sendBytes(_ bytes: [UInt8]) throws {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 4000)
            try tmux(["send-keys", "-t", session, "-H"] + bytes[start..<end].map { String(format: "%02x", $0) })
            start = end
        }
    }

    /// Whether the program in the pane has drag reporting (mode 1002) and SGR encoding
    /// (1006) on, as tmux tracks them: "1 1" on, "0 0" off.
    func mouseModes() throws -> String {
        try tmux(["display-message", "-p", "-t", session, "#{mouse_button_flag} #{mouse_sgr_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Where the terminal's cursor is and whether it shows, as tmux tracks them, with the
    /// screen's text from the cursor to the end of its line (columns, not characters: a wide
    /// character counts two).
    func cursor() throws -> (x: Int, y: Int, visible: Bool, text: String) {
        // One command list: tmux runs it without reading the pane in between, so the place
        // and the screen are one moment's (two calls could straddle a frame being drawn).
        var lines = try tmux(["display-message", "-p", "-t", session, "#{cursor_x} #{cursor_y} #{cursor_flag}",
                              ";", "capture-pane", "-p", "-t", session]).components(separatedBy: "\n")
        let fields = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ").compactMap { Int($0) }
        try #require(fields.count == 3, "tmux said where the cursor is")
        let line = lines[safe: fields[1]] ?? ""
        var column = 0
        var rest = Substring(line)
        while column < fields[0], let first = rest.first {
            column += max(1, String(first).displayWidth)
            rest = rest.dropFirst()
        }
        return (fields[0], fields[1], fields[2] == 1, String(rest))
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    func screen() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", session]).components(separatedBy: "\n")
    }

    var text: String { (try? screen().joined(separator: "\n")) ?? "" }

    /// Every cell the terminal shows, each with its colours and attributes ("A 38;5;255 48;5;236 1"),
    /// row by row, trailing blank default cells left out: two captures are equal exactly
    /// when the terminal shows the same thing, however tmux chose to write the escapes.
    func cells() throws -> [[String]] {
        let capture = try tmux(["capture-pane", "-p", "-e", "-t", session])
        return capture.components(separatedBy: "\n").map { line in
            var foreground = "39", background = "49", attributes: [String] = []
            var row: [String] = []
            var scalars = Array(line.unicodeScalars)[...]
            while let scalar = scalars.popFirst() {
                if scalar == "\u{1B}", scalars.first == "[" {
                    scalars.removeFirst()
                    var parameters = ""
                    while let next = scalars.popFirst(), next != "m" { parameters.unicodeScalars.append(next) }
                    var values = parameters.isEmpty ? ["0"] : parameters.components(separatedBy: ";")
                    while !values.isEmpty {
                        let value = values.removeFirst()
                        switch value {
                        case "0", "": foreground = "39"; background = "49"; attributes = []
                        case "38", "48":
                            let count = values.first == "5" ? 2 : 4
                            let colour = ([value] + values.prefix(count)).joined(separator: ";")
                            values.removeFirst(min(count, values.count))
                            if value == "38" { foreground = colour } else { background = colour }
                        case "39": foreground = "39"
                        case "49": background = "49"
                        default:
                            if let n = Int(value), (30...37).contains(n) || (90...97).contains(n) { foreground = value }
                            else if let n = Int(value), (40...47).contains(n) || (100...107).contains(n) { background = value }
                            else { attributes.append(value) }
                        }
                    }
                } else {
                    row.append("\(Character(scalar)) \(foreground) \(background) \(attributes.joined(separator: ","))")
                }
            }
            while row.last == "  39 49 " { row.removeLast() }
            return row
        }
    }

    /// Reads the screen until `condition` holds, for up to `timeout` seconds.
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 15, _ condition: ([String]) -> Bool) throws -> [String] {
        var lines: [String] = []
        if try Wait.until(timeout, every: 0.05, { lines = try screen(); return condition(lines) }) { return lines }
        // Two issues: a long one can reach the log cut short, and the wait must be named.
        Issue.record("timed out after \(Int(timeout)) s waiting for \(what)")
        Issue.record("the screen, waiting for \(what):\n\(lines.joined(separator: "\n"))")
        throw CancellationError()
    }

    func waitFor(text: String, timeout: Double = 15) throws {
        try waitFor("'\(text)'", timeout: timeout) { $0.joined(separator: "\n").contains(text) }
    }

    /// The screen once the app in the pane has settled: a whole second in which it used no
    /// CPU and the screen did not change (pictures decoded ahead arrive a moment after the
    /// row, later on a loaded machine), for up to `timeout` seconds.
    func settledScreen(named name: String = "stories", timeout: Double = 20) throws -> [String] {
        let pid = try #require(foregroundPID(named: name))
        var lines: [String] = []
        let settled = try Wait.until(timeout, every: 0) {
            lines = try screen()
            let (before, ticks) = (lines, cpuTicks(of: pid))
            return try Wait.holds(for: 1, every: 0.1) { try screen() == before && cpuTicks(of: pid) == ticks }
        }
        if settled { return lines }
        Issue.record("the app never settled in \(timeout) s (something polls, or never finishes); the screen was:\n\(lines.joined(separator: "\n"))")
        throw CancellationError()
    }

    /// The process id of the program running in the pane.
    func foregroundPID(named name: String) -> Int32? {
        guard let panePID = try? tmux(["display-message", "-p", "-t", session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines),
              let children = try? String(contentsOfFile: "/proc/\(panePID)/task/\(panePID)/children", encoding: .utf8) else { return nil }
        for pid in children.split(separator: " ").compactMap({ Int32($0) }) {
            if let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix(name) { return pid }
        }
        return nil
    }
}

/// Presses keys through one waiting shell, at the niceness given: each press is a line
/// written to it, not a process the test starts — forking the test's own large process
/// took tens of milliseconds on a loaded machine, and a test that times the app's answer to
/// a key would time that fork too.
final class KeyPresser {
    private let child: Child
    private let writeEnd: Int32

    init(_ tmux: Tmux, niceness: Int) throws {
        var fds: [Int32] = [-1, -1]
        let pipe2 = try #require(Child.pipe2, "glibc has no pipe2")
        try #require(pipe2(&fds, O_CLOEXEC) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TMUX")
        let loop = "while IFS= read -r key; do tmux -u -L '\(tmux.socket)' send-keys -t '\(tmux.session)' \"$key\"; done"
        do {
            child = try Child(["/usr/bin/env", "nice", "-n", String(niceness), "sh", "-c", loop], environment: environment, stdin: fds[0])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[0])
        writeEnd = fds[1]
    }

    /// Sends a key by its tmux name ("Space", "m", "Enter").
    func press(_ key: String) {
        let bytes = Array((key + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
    }

    deinit {
        close(writeEnd) // the shell's read ends, and so does it
        _ = child.wait()
    }
}
