import Dispatch
import Foundation

/// The signals a run loop takes through Dispatch signal sources. libdispatch reads them with
/// signalfd, which only sees a signal no thread takes first: the kernel offers a process's
/// signal to a thread that does not block it, preferring the main thread, and what
/// libdispatch's handler does with it there is a race — a Ctrl-Z, a resize or a SIGTERM
/// lost now and then under load (the Ctrl-Z end-to-end test failed two runs in six on a
/// loaded machine). So:
/// - `blockInEveryThread` blocks them on the calling thread; called first thing, before any
///   thread exists, every thread inherits the block;
/// - `serveMainQueueForever` runs the main queue on the main thread without unblocking them.
public enum TerminalSignals {
    /// What the viewer in a terminal takes.
    public static let taken: [Int32] = [SIGWINCH, SIGTSTP, SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// What `stories serve` takes (its graceful shutdown); SIGHUP too when it has a viewers
    /// file to read again (main.swift).
    public static let takenByServer: [Int32] = [SIGINT, SIGTERM]

    /// The signals of `taken` sent to this process and not yet taken (blocked meanwhile).
    public static func pending() -> Set<Int32> {
        var set = sigset_t()
        sigemptyset(&set)
        guard sigpending(&set) == 0 else { return [] }
        return Set(taken.filter { sigismember(&set, $0) == 1 })
    }

    public static func blockInEveryThread(_ signals: [Int32] = taken) {
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in signals { sigaddset(&set, signalNumber) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Serves the main queue on the main thread, for good. Not `dispatchMain()`: on Linux it
    /// parks the main thread in `sigsuspend` with every signal unblocked, which undoes
    /// `blockInEveryThread` for the very thread the kernel prefers. Foundation's main run
    /// loop serves the main queue and leaves the thread's signal mask as it is.
    public static func serveMainQueueForever() -> Never {
        RunLoop.main.run()
        // The main run loop never runs out of work to wait for (it stands for the main
        // queue); should it ever return, the queue is still served.
        dispatchMain()
    }
}
