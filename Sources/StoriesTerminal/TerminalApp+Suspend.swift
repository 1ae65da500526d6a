import Foundation
import StoriesApp
import StoriesCore

/// The terminal going away, and a job-control stop.
extension TerminalApp {
    /// True when stdin is at end of file or its terminal hung up (a wake-up with nothing
    /// to read is otherwise harmless and ignored).
    static func inputHungUp() -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return false }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// Ctrl-Z (the key map's `suspend`, as `.suspendProcess`) or SIGTSTP: give the terminal
    /// back, stop, and redraw in full when the shell resumes us.
    /// What plays waits meanwhile (not as a pause of the person's), and plays on after `fg`.
    func suspend() {
        engine.send(.app(.suspend)) // the reducer decides what stops
        terminal.suspend()
        // libdispatch reads signals through signalfd, which keeps SIGTSTP blocked: raising
        // it would only leave it pending. SIGSTOP cannot be blocked; the shell sees a stop.
        kill(getpid(), SIGSTOP)  // execution continues here after SIGCONT (`fg`)
        terminal.resume()
        engine.send(.app(.resume)) // what played plays on; the person's own pause stays
        engine.setNeedsDisplay()
    }
}
