import Foundation
import StoriesFeedIO
import StoriesApp
import StoriesCore
import StoriesTerminal

/// The files a headless run could not write. `@unchecked Sendable`: touched only on the
/// main queue (the engine's), where the run happens.
final class WriteFailures: @unchecked Sendable {
    private(set) var all: [WriteFailure] = []
    func add(_ failure: WriteFailure) { all.append(failure) }
}

/// The end of a headless run: the last screen on stdout, its lines and nothing else; every
/// file that could not be written said again on stderr, and the exit status says what
/// failed (a screen that could not be printed: 1; a file: 74, as in the terminal).
func finishHeadless(_ lines: [String], failures: WriteFailures) -> Never {
    let screen = Array((lines.joined(separator: "\n") + "\n").utf8)
    let screenFailure = FileWrites.writeAll(STDOUT_FILENO, screen)
    for failure in failures.all { FileWrites.sayOnStandardError("stories: " + failure.line) }
    if let code = screenFailure {
        FileWrites.sayOnStandardError("stories: the screen could not be written to standard output (\(String(cString: strerror(code))))")
        Foundation.exit(1)
    }
    Foundation.exit(failures.all.isEmpty ? 0 : TerminalApp.writeFailedStatus)
}
