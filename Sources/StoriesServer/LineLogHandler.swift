import StoriesFeedIO
import Foundation
import Logging
import StoriesCore

/// The server's log: one line per request (and Hummingbird's own lines), to standard error
/// or appended to a file, each with one `write(2)` as it happens (`tail -f` sees it at
/// once). Lines are made printable before they are written. A write that fails is said on
/// standard error at once, once, and again when the server stops (`writeFailure`), whose
/// exit status then says so; the server goes on.
struct LineLogHandler: LogHandler {
    /// Where lines go. `@unchecked Sendable`: `pending`, `second`, `stamp`, `failure` and
    /// `said` are touched only under `lock`; shared by every copy of the handler.
    final class Sink: @unchecked Sendable {
        let fd: Int32
        /// The file's path, or "standard error", for messages.
        let name: String
        private let ownsDescriptor: Bool
        private let lock = NSLock()
        private var pending: [UInt8] = []
        // The time stamp is formatted once a second, not once a line.
        private var second = 0
        private var stamp = ""
        private var failure: String?
        private var said = false

        init(fd: Int32, name: String, ownsDescriptor: Bool) {
            self.fd = fd
            self.name = name
            self.ownsDescriptor = ownsDescriptor
        }

        deinit { if ownsDescriptor { close(fd) } }

        func write(level: Logger.Level, _ message: String) {
            let now = Date()
            let whole = Int(now.timeIntervalSince1970)
            lock.lock()
            defer { lock.unlock() }
            if whole != second { second = whole; stamp = now.formatted(.iso8601) }
            pending.append(contentsOf: "\(stamp) \(level) \(message)\n".utf8)
            flushLocked()
        }

        /// Writes anything still waiting (the server is stopping).
        func flush() { lock.withLock { flushLocked() } }

        /// Why the log could not be written, when it could not (nil: every line went out).
        var writeFailure: String? { lock.withLock { failure } }

        private func flushLocked() {
            guard !pending.isEmpty else { return }
            let code = FileWrites.writeAll(fd, pending) ?? 0
            pending.removeAll(keepingCapacity: pending.capacity <= 64 << 10)
            guard code != 0 else { return }
            // The lines are lost (never held without bound); the server goes on.
            let reason = String(cString: strerror(code))
            failure = "the access log \(SafeText.line(name)) could not be written (\(reason)); lines were lost"
            if !said, let failure {
                said = true
                FileWrites.sayOnStandardError("stories serve: \(failure)")
            }
        }
    }

    let sink: Sink
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        sink.write(level: event.level, SafeText.line(event.message.description))
    }

    /// A sink writing to `path` (appended; created if missing), or to standard error.
    static func sink(path: String?) throws(FeedError) -> Sink {
        guard let path else { return Sink(fd: STDERR_FILENO, name: "standard error", ownsDescriptor: false) }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o644)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which is not followed" : String(cString: strerror(errno))
            throw FeedError(file: SafeText.line(path), reason: "cannot write the log: \(reason)")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFCHR || (info.st_mode & S_IFMT) == S_IFIFO else {
            close(fd)
            throw FeedError(file: SafeText.line(path), reason: "cannot write the log: it is \(SafeFile.kind(of: info.st_mode))")
        }
        return Sink(fd: fd, name: path, ownsDescriptor: true)
    }

    static func logger(sink: Sink) -> Logger {
        Logger(label: "stories.serve") { _ in LineLogHandler(sink: sink) }
    }
}
