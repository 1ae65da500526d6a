import Foundation
import Testing

/// The built `stories` binary, next to this test bundle in the build folder.
enum Binary {
    static var url: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("stories")
    }

    static func requireBuilt() throws -> String {
        let path = url.path
        try #require(FileManager.default.isExecutableFile(atPath: path), "no stories binary at \(path); run `swift build` first")
        return path
    }

    /// Runs the binary without a terminal; returns exit status, stdout and stderr.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try requireBuilt())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files, not pipes: a tmux server started meanwhile by another suite inherits open
        // descriptors, and a pipe it holds never reaches its end.
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appendingPathComponent("run-\(UUID().uuidString).out")
        let errFile = folder.appendingPathComponent("run-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let outData = (try? Data(contentsOf: outFile)) ?? Data()
        let errData = (try? Data(contentsOf: errFile)) ?? Data()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
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

    /// Starts a bare bash with a recognisable prompt in a `width`×`height` window.
    init(width: Int = 100, height: Int = 30, stateDirectory: URL? = nil) throws {
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
    }

    /// The tmux server's process id (to check that it goes away).
    func serverPID() throws -> Int32? {
        Int32(try tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs a tmux command. `captureOutput` false is for commands that start the server:
    /// the server keeps any pipe it inherits open, so reading it would never end.
    @discardableResult
    func tmux(_ arguments: [String], captureOutput: Bool = true) throws -> String {
        let result = try Spawn.run(["tmux", "-u", "-L", socket] + arguments, captureOutput: captureOutput,
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
        // The title line ends in "N stories" once the feed has loaded, and the bubbles are
        // drawn once their view models are built a moment later (off the main queue).
        try tmux.waitFor("the loaded ring row") { lines in
            guard let title = lines.first, title.range(of: #"[0-9]+\+? stor(y|ies)$"#, options: .regularExpression) != nil else { return false }
            // A bubble in the ring row at the top: the home sections' cards further down are
            // drawn with "╭" too, and can come first on a loaded machine (seen in CI).
            return title.hasSuffix(" 0 stories") || lines.prefix(7).contains { $0.contains("┏") || $0.contains("╭") }
        }
        return tmux
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
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while Date() < deadline {
            lines = try screen()
            if condition(lines) { return lines }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(lines.joined(separator: "\n"))")
        throw CancellationError()
    }

    func waitFor(text: String, timeout: Double = 15) throws {
        try waitFor("'\(text)'", timeout: timeout) { $0.joined(separator: "\n").contains(text) }
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

/// Runs a program with posix_spawn and reaps it with waitpid. (Foundation's Process left
/// the exited tmux client unreaped here, and waitUntilExit never returned.)
enum Spawn {
    static func run(_ arguments: [String], captureOutput: Bool, environment extra: [String: String] = [:]) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["LANG"] = "C.UTF-8"       // tmux draws wide characters only in a UTF-8 locale
        environment.removeValue(forKey: "TMUX")
        // The test runner sets NO_COLOR; the app would rightly draw without colour. Tests
        // that want that say so on the command line they type.
        environment.removeValue(forKey: "NO_COLOR")
        environment.removeValue(forKey: "COLORTERM")
        var fds: [Int32] = [-1, -1]
        if captureOutput { try #require(pipe(&fds) == 0) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        // A spawned program inherits the signal mask, and the test process (libdispatch)
        // blocks most signals: a tmux server started with them blocked never shuts down.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        if captureOutput { close(fds[1]) }
        try #require(spawned == 0, "could not start \(arguments.first ?? "")")
        var output = Data()
        if captureOutput {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fds[0], &buffer, buffer.count)
                if count <= 0 { break }
                output.append(buffer, count: count)
            }
            close(fds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, String(decoding: output, as: UTF8.self))
    }
}

/// CPU time (user + system, in clock ticks) a process has used.
func cpuTicks(of pid: Int32) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}
