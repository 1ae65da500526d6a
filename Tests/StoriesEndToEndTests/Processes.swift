import Foundation
import Testing

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

    /// `stdin`: a descriptor to read from (a pseudo-terminal), else /dev/null.
    init(_ arguments: [String], environment: [String: String], stdin: Int32? = nil, stdout: Output = .null, stderr: Output = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
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
