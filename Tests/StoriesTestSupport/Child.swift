import Foundation
import Testing

/// A program started with posix_spawn and reaped with waitpid.
///
/// It inherits nothing but its three standard descriptors, and starts with every signal
/// unblocked and at its default. The tests start programs from many threads at once: a
/// tmux server that inherited another test's pipe kept that test reading forever, and one
/// that inherited the socket Foundation's `Process` watches kept `waitUntilExit` from
/// ever returning. And the test process (libdispatch) blocks most signals, which a
/// spawned program would inherit: a tmux server started so never shuts down.
public final class Child {
    public enum Output { case null, file(String), descriptor(Int32) }

    public let pid: pid_t
    private var status: Int32?

    /// `stdin`: a descriptor to read from (a pseudo-terminal), else /dev/null.
    public init(_ arguments: [String], environment: [String: String], stdin: Int32? = nil, stdout: Output = .null, stderr: Output = .null) throws {
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
    public var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = Self.exitStatus(raw)
        return false
    }

    public func signal(_ signal: Int32) { if isRunning { kill(pid, signal) } }

    /// Waits for it to exit: its exit status, or 128 + the signal that ended it.
    @discardableResult public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let result = Self.exitStatus(raw)
        status = result
        return result
    }

    /// Stops it (SIGTERM) and waits; what was left running when a test ended.
    @discardableResult public func stop() -> Int32 {
        signal(SIGTERM)
        return wait()
    }

    deinit { if status == nil { _ = stop() } }

    private static func exitStatus(_ raw: Int32) -> Int32 { (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }

    // glibc (2.34 and later) has both; Swift's Glibc module leaves out what needs _GNU_SOURCE.
    static let addCloseFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }
    public static let pipe2 = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self) }
}

