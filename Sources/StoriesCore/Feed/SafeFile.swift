import Foundation

/// The one way a file from outside is opened for reading: never through a link
/// (`O_NOFOLLOW`), never blocking on a FIFO (`O_NONBLOCK`), only a regular file (checked on
/// the open descriptor, so a swap after the check cannot matter), and never more than
/// `maxBytes` read.
public enum SafeFile {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missing
        /// A symbolic link: never followed, so a link cannot lead out of a folder.
        case link
        /// Not readable: `errno`'s words.
        case cannotOpen(String)
        /// What it is instead: "a FIFO", "a folder", "a device", "a socket".
        case notRegular(String)
        case tooLarge(Int)
        case unreadable(String)
    }

    /// Which version of which file was opened: a file replaced or changed since has another.
    public struct Identity: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        /// Modification time in nanoseconds since 1970.
        public var modified: Int64
    }

    /// An open regular file, for reads at places in it (a container's boxes).
    public final class Opened {
        public let size: Int
        public let modified: Date
        public let identity: Identity
        let handle: FileHandle

        init(handle: FileHandle, size: Int, modified: Date, identity: Identity) {
            self.handle = handle
            self.size = size
            self.modified = modified
            self.identity = identity
        }

        /// The whole file, as long as it is still the size it was opened at.
        public func readAll() throws(Failure) -> Data {
            let data = try read(at: 0, count: size)
            guard data.count == size else { throw .unreadable("the file changed while it was read") }
            return data
        }

        /// Up to `count` bytes from `offset` (fewer at the end of the file).
        public func read(at offset: Int, count: Int) throws(Failure) -> Data {
            guard offset >= 0, count >= 0, offset <= size else { return Data() }
            do {
                try handle.seek(toOffset: UInt64(offset))
                return try handle.read(upToCount: min(count, size - offset)) ?? Data()
            } catch {
                throw .unreadable((error as NSError).localizedDescription)
            }
        }
    }

    /// Opens a regular file the one safe way. `followLinks`: for a file a person named on
    /// the command line (a symlinked config or photo is theirs to name); a file found in a
    /// folder is never reached through a link.
    public static func open(_ path: String, followLinks: Bool = false) throws(Failure) -> Opened {
        let fd = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .missing
            // Not following links, a link is refused; following them, ELOOP means a loop.
            case ELOOP: throw followLinks ? .cannotOpen("its links go round in a loop") : .link
            default: throw .cannotOpen(String(cString: strerror(errno)))
            }
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFIFO: throw .notRegular("a FIFO")
        case S_IFDIR: throw .notRegular("a folder")
        case S_IFCHR, S_IFBLK: throw .notRegular("a device")
        case S_IFSOCK: throw .notRegular("a socket")
        default: throw .notRegular("a special file")
        }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
        return Opened(handle: handle, size: max(0, Int(info.st_size)), modified: modified, identity: identity)
    }

    /// Up to `maxBytes` of the file; `wholeOrNothing` refuses a larger file instead of
    /// reading its start. Also its modification time.
    public static func read(_ path: String, maxBytes: Int, wholeOrNothing: Bool = true,
                            followLinks: Bool = false) throws(Failure) -> (Data, modified: Date) {
        let file = try open(path, followLinks: followLinks)
        if wholeOrNothing, file.size > maxBytes { throw .tooLarge(file.size) }
        do {
            return (try file.handle.read(upToCount: max(0, maxBytes)) ?? Data(), file.modified)
        } catch {
            throw .unreadable((error as NSError).localizedDescription)
        }
    }

    /// In words for a feed-problems line.
    public static func describe(_ failure: Failure, maxBytes: Int) -> String {
        failure.description(maxBytes: maxBytes)
    }
}

extension SafeFile.Failure {
    public var description: String { description(maxBytes: nil) }

    func description(maxBytes: Int?) -> String {
        switch self {
        case .missing: "no such file"
        case .link: "is a symbolic link, which is not followed"
        case .cannotOpen(let why): "cannot open: \(why)"
        case .notRegular(let kind): "is \(kind), not a file"
        case .tooLarge(let size): "\(size) bytes is more than the \(maxBytes.map { "\($0 >> 20) MB" } ?? "size") allowed here"
        case .unreadable(let why): "cannot read: \(why)"
        }
    }
}
