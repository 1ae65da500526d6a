import Foundation
import Logging
import StoriesCore

/// The server's log: one line per request (and Hummingbird's own lines), to standard error
/// or appended to a file. Lines are made printable before they are written.
struct LineLogHandler: LogHandler {
    // `FileHandle` writes are serialised by `lock`, shared by every copy of the handler.
    final class Sink: @unchecked Sendable {
        let handle: FileHandle
        let lock = NSLock()
        // The time stamp is formatted once a second, not once a line.
        private var second = 0
        private var stamp = ""
        init(_ handle: FileHandle) { self.handle = handle }
        func write(level: Logger.Level, _ message: String) {
            let now = Date()
            let whole = Int(now.timeIntervalSince1970)
            lock.lock()
            if whole != second { second = whole; stamp = now.formatted(.iso8601) }
            handle.write(Data("\(stamp) \(level) \(message)\n".utf8))
            lock.unlock()
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

    /// A logger writing to `path` (appended; created if missing), or to standard error.
    static func logger(path: String?) throws(FeedError) -> Logger {
        let handle: FileHandle
        if let path {
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw FeedError(file: path, reason: "cannot write the log: \(String(cString: strerror(errno)))") }
            handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        } else {
            handle = FileHandle.standardError
        }
        let sink = Sink(handle)
        return Logger(label: "stories.serve") { _ in LineLogHandler(sink: sink) }
    }
}
