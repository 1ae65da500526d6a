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
        init(_ handle: FileHandle) { self.handle = handle }
        func write(_ line: String) {
            lock.lock()
            handle.write(Data(line.utf8))
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
        let time = Date().formatted(.iso8601)
        sink.write("\(time) \(event.level) \(SafeText.line(event.message.description))\n")
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
