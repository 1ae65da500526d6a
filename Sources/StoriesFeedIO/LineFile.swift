import StoriesCore
import Foundation

/// A file the app writes lines to as it goes (`--record`, `--gesture-log`, `--metrics`):
/// each line written whole with `write(2)` (a partial write is finished, an interrupted one
/// tried again). A write that fails ends the file — nothing more is written to it — and
/// gives the reason once, in words, for the app to say at once and again when it ends.
/// `@unchecked Sendable`: `failed` is touched only under `lock`; the descriptor is written
/// only under it too.
public final class LineFile: @unchecked Sendable {
    /// The path as given (for messages).
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let lock = NSLock()
    private var failed: String?

    public init(fd: Int32, path: String, ownsDescriptor: Bool = true) {
        self.fd = fd
        self.path = path
        self.ownsDescriptor = ownsDescriptor
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Opens `path` for writing: emptied (`append: false`) or appended to, created when it
    /// is not there; a link named on the command line is the person's and is followed. A
    /// FIFO with a reader or a device (`/dev/null`, `/dev/full`) is taken as it is: what a
    /// write to it says is what counts. A FIFO with no reader is refused at once rather than
    /// waited on.
    public static func open(_ path: String, append: Bool) throws(FileWriteFailure) -> LineFile {
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (append ? O_APPEND : O_TRUNC), 0o644)
        guard fd >= 0 else {
            let reason = switch errno {
            case EISDIR: "it is a folder"
            case ENXIO: "it is a FIFO with no reader (start the reader first)"
            default: String(cString: strerror(errno))
            }
            throw FileWriteFailure(path: path, reason: reason)
        }
        // Blocking from here on (a FIFO opened for writing no longer needs O_NONBLOCK).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return LineFile(fd: fd, path: path)
    }

    /// Why the file stopped being written (nil while every line went out).
    public var failure: FileWriteFailure? { lock.withLock { failed.map { FileWriteFailure(path: path, reason: $0) } } }

    /// Writes `line` and a line end. Returns the failure the first time a write fails
    /// (nil otherwise, and for every line after it: they are not written).
    @discardableResult
    public func write(_ line: String) -> FileWriteFailure? {
        write(Array(line.utf8))
    }

    /// The same for a line already in bytes (a line end is added).
    @discardableResult
    public func write(_ line: [UInt8]) -> FileWriteFailure? {
        var bytes = line
        bytes.append(0x0A)
        return lock.withLock { () -> FileWriteFailure? in
            guard failed == nil else { return nil }
            if let code = FileWrites.writeAll(fd, bytes) {
                failed = code == ENOSPC ? "the disk is full (\(String(cString: strerror(code))))" : String(cString: strerror(code))
                return FileWriteFailure(path: path, reason: failed ?? "")
            }
            return nil
        }
    }
}


public enum FileWrites {
    /// Writes all of `bytes` to `fd`: nil when it did, else `errno` (ENOSPC for a write
    /// that wrote nothing). A partial write is finished, an interrupted one tried again.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var written = 0
        while written < bytes.count {
            let n = Foundation.write(fd, base + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return ENOSPC }
            written += n
        }
        return nil
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// A line on standard error, made printable; a standard error that cannot be written
    /// (closed, a full disk) is not a reason to stop, or to crash.
    public static func sayOnStandardError(_ line: String) {
        _ = writeAll(STDERR_FILENO, Array((SafeText.line(line) + "\n").utf8))
    }
}

