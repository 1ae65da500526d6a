import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import StoriesFeedIO
import StoriesTerminal

/// `--screen-reader` on this process's standard input and output: lines typed are read on
/// a thread of their own and taken on the main queue; every line said is written at once
/// (a speech synthesiser reading the pipe speaks it as it comes).
@MainActor
enum ScreenReaderSession {
    /// `remote`: the server's seen state, when the feed is a server's (nil: this machine's only).
    static func run(client: FeedClient, store: SeenStore, remote: (any SeenRemote)?, options: ScreenReaderRun.Options, onQuit: (() -> Void)?) -> Never {
        let run = ScreenReaderRun(client: client, options: options) { line in
            if FileWrites.writeAll(STDOUT_FILENO, Array((line + "\n").utf8)) != nil {
                // Nobody reads what is said any more (the synthesiser ended): the run ends.
                store.flush()
                exit(0)
            }
        }
        if let remote {
            run.syncSeen(with: remote) { store.save($0) }
        } else {
            run.persistSeen = { store.save($0) }
        }
        run.finish = { status in
            store.flush()
            run.finishSync()
            onQuit?()
            var failed = false
            if let reason = store.lastError {
                FileWrites.sayOnStandardError("stories: " + WriteFailure(.seenState, path: store.file.path, reason: reason).line)
                failed = true
            }
            exit(status == 0 && failed ? TerminalApp.writeFailedStatus : status)
        }
        run.start()
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                DispatchQueue.main.async { MainActor.assumeIsolated { run.take(line) } }
            }
            DispatchQueue.main.async { MainActor.assumeIsolated { run.endOfInput() } }
        }
        reader.start()
        // The signals the full screen takes are blocked in every thread (main.swift): here
        // Ctrl-C, a hang-up or a kill end the run as `quit` does, seen state kept, and
        // Ctrl-Z stops it as a shell expects.
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { run.quit(status: 128 + signalNumber) } }
            source.resume()
            sources.append(source)
        }
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .main)
        stop.setEventHandler { kill(getpid(), SIGSTOP) }
        stop.resume()
        sources.append(stop)
        withExtendedLifetime(sources) { TerminalSignals.serveMainQueueForever() }
    }
}
