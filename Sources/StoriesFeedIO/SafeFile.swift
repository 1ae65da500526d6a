import StoriesCore
import Foundation

/// The one way a file from outside is opened for reading: never through a link
/// (`O_NOFOLLOW`), never blocking on a FIFO (`O_NONBLOCK`), only a regular file (checked on
/// the open descriptor, so a swap after the check cannot matter), and never more than
/// `maxBytes` read. A file inside a folder the app reads (a feed, a folder of photos, what
/// `stories serve` sends) is opened from the folder's own descriptor instead (`OpenFolder`):
/// this opens by path only what a person named.
public enum SafeFile {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missing
        /// A symbolic link: never followed, so a link cannot lead out of a folder.
        case link
        /// Not readable: `errno`'s words.
        case cannotOpen(String)
        /// What it is instead: "a FIFO", "a folder", "a device", "a socket".
        case notRegular(String)
        /// A folder was wanted; this is what it is instead: "a file", "a FIFO", "a device".
        case notFolder(String)
        case tooLarge(Int)
        case unreadable(String)
        /// A file that holds who may do what (viewers, a token, a store) that others could
        /// change: what is wrong and how to fix it (`SafeFile.checkPrivate`).
        case notPrivate(String)
    }

    /// Which version of which file was opened: a file replaced or changed since has another.
    public struct Identity: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        /// Modification time in nanoseconds since 1970.
        public var modified: Int64
    }

    /// An open regular file, for reads at places in it (a container's boxes). Reads use
    /// `pread`, so one open file may be read from several threads at once; the descriptor
    /// is closed when the last reference goes.
    public final class Opened: Sendable {
        public let size: Int
        public let modified: Date
        public let identity: Identity
        /// Its owner and permission bits, as opened.
        public let owner: UInt32, permissions: UInt32
        let descriptor: Int32

        init(descriptor: Int32, size: Int, modified: Date, identity: Identity, owner: UInt32, permissions: UInt32) {
            self.owner = owner
            self.permissions = permissions
            self.descriptor = descriptor
            self.size = size
            self.modified = modified
            self.identity = identity
        }

        deinit { close(descriptor) }

        /// The whole file, as long as it is still the size it was opened at.
        public func readAll() throws(Failure) -> Data {
            let data = try read(at: 0, count: size)
            guard data.count == size else { throw .unreadable("the file changed while it was read") }
            return data
        }

        /// Up to `count` bytes from `offset` (fewer at the end of the file).
        public func read(at offset: Int, count: Int) throws(Failure) -> Data {
            guard offset >= 0, count > 0, offset < size else { return Data() }
            let wanted = min(count, size - offset)
            var data = Data(count: wanted)
            let got = data.withUnsafeMutableBytes { buffer in read(at: offset, into: buffer) }
            guard got >= 0 else { throw .unreadable(String(cString: strerror(Int32(-got)))) }
            if got < wanted { data.removeSubrange(got...) }
            return data
        }

        /// Fills `buffer` from `offset` as far as the file goes: the bytes read (fewer at the
        /// end of the file), or minus `errno` when reading failed.
        public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard let base = buffer.baseAddress, offset >= 0 else { return 0 }
            var done = 0
            while done < buffer.count {
                let got = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if got < 0 {
                    if errno == EINTR { continue }
                    return done > 0 ? done : -Int(errno)
                }
                if got == 0 { break }
                done += got
            }
            return done
        }

        /// The file as it is now (`fstat` on the open descriptor): nil when that fails.
        public func current() -> Identity? {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            return SafeFile.identity(info)
        }
    }

    /// Opens a regular file the one safe way. `followLinks`: for a file a person named on
    /// the command line (a symlinked config or photo is theirs to name); a file found in a
    /// folder is never reached through a link.
    public static func open(_ path: String, followLinks: Bool = false) throws(Failure) -> Opened {
        let fd = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .missing
            // Not following links, a link is refused; following them, ELOOP means a loop.
            case ELOOP: throw followLinks ? .cannotOpen("its links go round in a loop") : .link
            case ENXIO: throw .notRegular("a socket") // a Unix socket cannot be opened
            default: throw .cannotOpen(String(cString: strerror(errno)))
            }
        }
        return try opened(fd)
    }

    /// A descriptor just opened, taken over: it must be a regular file (checked on the
    /// descriptor itself); closed when it is not.
    static func opened(_ fd: Int32) throws(Failure) -> Opened {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreadable(reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notRegular(kind(of: info.st_mode))
        }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return Opened(descriptor: fd, size: max(0, Int(info.st_size)), modified: modified, identity: identity(info),
                      owner: UInt32(info.st_uid), permissions: UInt32(info.st_mode & 0o7777))
    }

    static func identity(_ info: stat) -> Identity {
        Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                 modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
    }

    /// What a file system object is, in words: "a file", "a folder", "a FIFO", "a device",
    /// "a socket", "a symbolic link", "a special file".
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a file"
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    /// Up to `maxBytes` of the file; `wholeOrNothing` refuses a larger file instead of
    /// reading its start. Also its modification time.
    public static func read(_ path: String, maxBytes: Int, wholeOrNothing: Bool = true,
                            followLinks: Bool = false) throws(Failure) -> (Data, modified: Date) {
        try bounded(open(path, followLinks: followLinks), maxBytes: maxBytes, wholeOrNothing: wholeOrNothing)
    }

    /// An open file read within a bound: nothing of a larger file is read (`wholeOrNothing`),
    /// or only its start.
    static func bounded(_ file: Opened, maxBytes: Int, wholeOrNothing: Bool) throws(Failure) -> (Data, modified: Date) {
        if wholeOrNothing, file.size > maxBytes { throw .tooLarge(file.size) }
        return (try file.read(at: 0, count: max(0, maxBytes)), file.modified)
    }

    /// The whole of an open file, refused (nothing read) when it is over `maxBytes`.
    public static func bounded(_ file: Opened, maxBytes: Int) throws(Failure) -> Data {
        try bounded(file, maxBytes: maxBytes, wholeOrNothing: true).0
    }

    /// A file that says who may do what — the viewers file, a token file, the seen store —
    /// is refused, as OpenSSH refuses such files, when another user could change it: owned
    /// by someone other than this user (or root), or writable by its group or by anyone.
    /// `secret`: a file that holds a secret itself (a token), refused as well when its group
    /// or anyone can read it, as OpenSSH refuses a private key.
    public static func checkPrivate(owner: UInt32, permissions: UInt32, path: String, secret: Bool = false) throws(Failure) {
        let me = UInt32(geteuid()), shown = SafeText.line(path)
        if owner != me && owner != 0 {
            throw .notPrivate("is owned by user \(owner), not by you (user \(me)), who could change it: make it as this user, or `chown \(me) \(shown)`")
        }
        if permissions & 0o022 != 0 {
            let who = permissions & 0o002 != 0 ? "anyone on this machine" : "its group"
            throw .notPrivate("is writable by \(who) (mode \(String(format: "%04o", permissions))), who could change it: `chmod 600 \(shown)`")
        }
        if secret, permissions & 0o044 != 0 {
            let who = permissions & 0o004 != 0 ? "anyone on this machine" : "its group"
            throw .notPrivate("is readable by \(who) (mode \(String(format: "%04o", permissions))), who could use the token in it: `chmod 600 \(shown)`")
        }
    }

    /// Reads a file that says who may do what: the one safe way, then `checkPrivate`.
    public static func readPrivate(_ path: String, maxBytes: Int, followLinks: Bool = false, secret: Bool = false) throws(Failure) -> Data {
        let file = try open(path, followLinks: followLinks)
        try checkPrivate(owner: file.owner, permissions: file.permissions, path: path, secret: secret)
        return try bounded(file, maxBytes: maxBytes)
    }

    /// In words for a feed-problems line.
    public static func describe(_ failure: Failure, maxBytes: Int) -> String {
        failure.description(maxBytes: maxBytes)
    }
}

extension SafeFile.Failure {
    public var description: String { description(maxBytes: nil) }

    /// A failure that may pass by itself — the file not readable now (an I/O error, a
    /// permission being fixed), or not there because the folder holding it is not there now
    /// (a disk unmounted, a deploy swapping folders: `OpenFolder.mayPass`) — rather than one
    /// about what the file is (a link, a FIFO, too large, others could change it). A feed
    /// read from a folder retries these by the one policy, as it does a server gone away;
    /// a file missing from a folder that is there is a mistake in the feed, said once.
    public var mayPass: Bool {
        switch self {
        case .missing, .cannotOpen, .unreadable: true
        case .link, .notRegular, .notFolder, .tooLarge, .notPrivate: false
        }
    }

    func description(maxBytes: Int?) -> String {
        switch self {
        case .missing: "no such file"
        case .link: "is a symbolic link, which is not followed"
        case .cannotOpen(let why): "cannot open: \(why)"
        case .notRegular(let kind): "is \(kind), not a file"
        case .notFolder(let kind): "is \(kind), not a folder"
        case .tooLarge(let size): "\(size) bytes is more than the \(maxBytes.map { SafeFile.megabytes($0) } ?? "size") allowed here"
        case .unreadable(let why): "cannot read: \(why)"
        case .notPrivate(let why): why
        }
    }
}

extension SafeFile {
    /// "64 MB", "512 KB", "100 bytes": a bound in words.
    public static func megabytes(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KB" }
        return "\(bytes) bytes"
    }
}
