import Foundation
import StoriesCells
import StoriesCore
import StoriesMedia

/// Asking the tmux server this process runs under (`TmuxClient`, what it says).
extension TmuxClient {
    /// Asks the tmux server this process runs under, for this pane (`TMUX_PANE`); nil
    /// outside tmux, or when tmux cannot be run or takes longer than `timeout`.
    public static func ask(environment: [String: String], timeout: Duration = .milliseconds(500)) -> TmuxClient? {
        guard inside(environment) else { return nil }
        var arguments = ["display-message", "-p"]
        // Its own pane (`%` and digits), so the client is the one looking at it.
        if let pane = environment["TMUX_PANE"], pane.count <= 12, pane.first == "%", pane.dropFirst().allSatisfy(\.isASCII),
           pane.dropFirst().allSatisfy(\.isNumber) {
            arguments += ["-t", pane]
        }
        return run(arguments + [format], timeout: timeout).flatMap(parse)
    }

    /// `tmux -V`'s answer (tmux older than 3.3 does not know every format `ask` uses).
    public static func versionLine(environment: [String: String], timeout: Duration = .milliseconds(500)) -> String? {
        guard inside(environment), timeout > .milliseconds(1) else { return nil }
        return run(["-V"], timeout: timeout).map { SafeText.line($0.trimmingCharacters(in: .whitespacesAndNewlines), maxColumns: 30) }
    }

    /// Runs tmux with `arguments`: what it printed (at most 4 KB), or nil when it failed or
    /// took longer than `timeout` (then it is stopped).
    private static func run(_ arguments: [String], timeout: Duration) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do { try process.run() } catch { return nil }
        let (seconds, atto) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(atto / 1_000_000_000)
        guard exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { process.terminate(); return nil }
        guard process.terminationStatus == 0 else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile().prefix(4096)
        return String(decoding: data, as: UTF8.self)
    }
}
