import Foundation
import StoriesTestSupport
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
