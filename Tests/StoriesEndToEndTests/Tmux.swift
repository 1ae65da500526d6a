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
            guard let bar = lines.first else { return false }
            let segments = bar.split(separator: " ", omittingEmptySubsequences: true)
            guard segments.count >= item else { return false }
            return segments[item - 1].contains("━") || segments[item - 1].contains("╸")
        }
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

    /// The screen once the app in the pane has settled: a whole second in which it used no
    /// CPU and the screen did not change (pictures decoded ahead arrive a moment after the
    /// row, later on a loaded machine), for up to `timeout` seconds.
    func settledScreen(named name: String = "stories", timeout: Double = 20) throws -> [String] {
        let pid = try #require(foregroundPID(named: name))
        let deadline = Date().addingTimeInterval(timeout)
        var lines = try screen()
        var ticks = cpuTicks(of: pid)
        while Date() < deadline {
            sleep(1)
            let now = try screen(), nowTicks = cpuTicks(of: pid)
            if now == lines && nowTicks == ticks { return now }
            lines = now
            ticks = nowTicks
        }
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

/// Runs a program through `/usr/bin/env` with the environment a terminal test wants, and
/// waits for it; its output is read from a pipe when asked for.
enum Spawn {
    static func run(_ arguments: [String], captureOutput: Bool, environment extra: [String: String] = [:]) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["LANG"] = "C.UTF-8"       // tmux draws wide characters only in a UTF-8 locale
        environment.removeValue(forKey: "TMUX")
        // The test runner sets NO_COLOR; the app would rightly draw without colour. Tests
        // that want that say so on the command line they type.
        environment.removeValue(forKey: "NO_COLOR")
        environment.removeValue(forKey: "COLORTERM")
        guard captureOutput else {
            return (try Child(["/usr/bin/env"] + arguments, environment: environment).wait(), "")
        }
        // Close-on-exec, so no program another test starts meanwhile holds its writing end
        // (the child gets it as its stdout, where close-on-exec does not follow).
        var fds: [Int32] = [-1, -1]
        let pipe2 = try #require(Child.pipe2, "glibc has no pipe2")
        try #require(pipe2(&fds, O_CLOEXEC) == 0)
        let child: Child
        do {
            child = try Child(["/usr/bin/env"] + arguments, environment: environment, stdout: .descriptor(fds[1]))
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(buffer, count: count)
        }
        close(fds[0])
        return (child.wait(), String(decoding: output, as: UTF8.self))
    }
}

/// A program started with posix_spawn and reaped with waitpid.
///
/// It inherits nothing but its three standard descriptors, and starts with every signal
/// unblocked and at its default. The tests start programs from many threads at once: a
/// tmux server that inherited another test's pipe kept that test reading forever, and one
/// that inherited the socket Foundation's `Process` watches kept `waitUntilExit` from
/// ever returning. And the test process (libdispatch) blocks most signals, which a
/// spawned program would inherit: a tmux server started so never shuts down.
final class Child {
    enum Output { case null, file(String), descriptor(Int32) }

    let pid: pid_t
    private var status: Int32?

    init(_ arguments: [String], environment: [String: String], stdout: Output = .null, stderr: Output = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (fd, output) in [(Int32(1), stdout), (2, stderr)] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            }
        }
        let addCloseFrom = try #require(Self.addCloseFrom, "glibc older than 2.34")
        try #require(addCloseFrom(&actions, 3) == 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments.first ?? "", &actions, &attributes, argv, envp)
        try #require(spawned == 0, "could not start \(arguments.first ?? ""): \(String(cString: strerror(spawned)))")
        self.pid = pid
    }

    /// Whether it has not exited yet (reaping it if it has).
    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = Self.exitStatus(raw)
        return false
    }

    func signal(_ signal: Int32) { if isRunning { kill(pid, signal) } }

    /// Waits for it to exit: its exit status, or 128 + the signal that ended it.
    @discardableResult func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let result = Self.exitStatus(raw)
        status = result
        return result
    }

    /// Stops it (SIGTERM) and waits; what was left running when a test ended.
    func stop() -> Int32 {
        signal(SIGTERM)
        return wait()
    }

    deinit { if status == nil { _ = stop() } }

    private static func exitStatus(_ raw: Int32) -> Int32 { (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }

    // glibc (2.34 and later) has both; Swift's Glibc module leaves out what needs _GNU_SOURCE.
    static let addCloseFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }
    static let pipe2 = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self) }
}

/// The threads of a process that do not block every one of `signals` (their names and
/// masks): a signal such a thread can take never reaches the app's Dispatch sources.
func threadsNotBlocking(_ signals: [Int32], in pid: Int32) throws -> [String] {
    let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    try #require(!tasks.isEmpty)
    var open: [String] = []
    for task in tasks {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
              let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { continue }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        if signals.contains(where: { mask & (1 << UInt64($0 - 1)) == 0 }) { open.append("\(task) \(name) SigBlk \(String(mask, radix: 16))") }
    }
    return open
}

/// CPU time (user + system, in clock ticks) a process has used.
func cpuTicks(of pid: Int32) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}
