import StoriesCore
import CStoriesFiles
import Foundation

/// A folder held open by its descriptor, and everything inside it reached from that
/// descriptor, never by a path opened again: the folder's files are confined to it
/// whatever happens to the paths meanwhile (a sub-folder swapped for a link while a server
/// serves, a folder renamed). This is how the photo folder, `stories serve`, `init` and
/// `assets` reach what is in a folder.
///
/// A path inside is relative, its parts neither empty nor `.` or `..`, and is opened with
/// `openat2` and `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where the kernel has it (Linux
/// 5.6 on): no link anywhere on the way, no way out. Elsewhere it is walked one part at a
/// time from the folder's descriptor, each folder with `O_NOFOLLOW | O_DIRECTORY`, the last
/// part with `O_NOFOLLOW`. What is read is checked on the descriptor that reads it (`fstat`).
///
/// The folder itself is the one place a link is followed, when a person names it (a
/// `~/Pictures` that is a link is theirs to name). The descriptor is closed when the last
/// reference goes.
public final class OpenFolder: Sendable {
    /// The path the folder was opened at (for messages: nothing is opened through it again).
    public let path: String
    let descriptor: Int32
    /// False: the walk, even where the kernel has `openat2` (the tests run both).
    let usesOpenat2: Bool

    private init(descriptor: Int32, path: String, usesOpenat2: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.usesOpenat2 = usesOpenat2
    }

    deinit { close(descriptor) }

    /// Whether this kernel has `openat2` with the resolve flags (asked once: a kernel before
    /// 5.6, or a seccomp filter that refuses it, gives ENOSYS or EPERM).
    static let kernelHasOpenat2: Bool = {
        let fd = stories_open_beneath(AT_FDCWD, ".", stories_o_path | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }()

    /// Opens a folder a person named: a link to a folder is followed, anything else that is
    /// not a folder is refused as what it is ("is a FIFO, not a folder").
    /// `openat2: false` walks paths inside one part at a time even where the kernel could do better.
    public static func open(_ path: String, openat2: Bool = true) throws(SafeFile.Failure) -> OpenFolder {
        var fd = Foundation.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        // A folder that may be passed through but not listed (mode 0711): its files can still
        // be reached from it; a listing of it says "permission denied".
        if fd < 0, errno == EACCES { fd = Foundation.open(path, stories_o_path | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else {
            let code = errno
            var info = stat()
            switch code {
            case ENOTDIR where stat(path, &info) == 0: throw .notFolder(SafeFile.kind(of: info.st_mode))
            case ENOENT, ENOTDIR:
                var link = stat()
                throw lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK ? .cannotOpen("a symbolic link to nothing") : .missing
            case ELOOP: throw .cannotOpen("a loop of symbolic links")
            case EACCES: throw .cannotOpen("permission denied")
            default: throw .cannotOpen(String(cString: strerror(code)))
            }
        }
        return OpenFolder(descriptor: fd, path: path, usesOpenat2: openat2 && kernelHasOpenat2)
    }

    /// The folder at `relative` inside this one (no link on the way), held open in turn.
    public func folder(_ relative: String) throws(SafeFile.Failure) -> OpenFolder {
        guard !relative.isEmpty else {
            let fd = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
            return OpenFolder(descriptor: fd, path: path, usesOpenat2: usesOpenat2)
        }
        let fd = try openBeneath(relative, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, wantsFolder: true)
        return OpenFolder(descriptor: fd, path: path + "/" + relative, usesOpenat2: usesOpenat2)
    }

    /// The regular file at `relative` inside this folder, open (no link on the way, never a
    /// FIFO or a device: checked on the open descriptor).
    public func open(_ relative: String) throws(SafeFile.Failure) -> SafeFile.Opened {
        try SafeFile.opened(openBeneath(relative, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, wantsFolder: false))
    }

    /// Up to `maxBytes` of the file at `relative`; `wholeOrNothing` refuses a larger file
    /// (nothing of it read) instead of reading its start. Also its modification time.
    public func read(_ relative: String, maxBytes: Int, wholeOrNothing: Bool = true) throws(SafeFile.Failure) -> (Data, modified: Date) {
        try SafeFile.bounded(open(relative), maxBytes: maxBytes, wholeOrNothing: wholeOrNothing)
    }

    /// What `name` (one part: no `/`) in this folder is, the link itself for a link
    /// (`fstatat` with `AT_SYMLINK_NOFOLLOW`); nil when it is not there.
    /// Whether a failure reading `relative` may pass: an I/O or permission error, or a file
    /// missing because the folder it is in (its first part: `stories/`, `media/`, a
    /// sub-folder) is missing now. A file missing beside its folder's others is not.
    public func mayPass(_ failure: SafeFile.Failure, reading relative: String) -> Bool {
        guard failure.mayPass else { return false }
        guard failure == .missing else { return true }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count > 1, let top = parts.first else { return false } // the folder itself is open
        return status(of: String(top)) == nil
    }

    public func status(of name: String) -> stat? {
        guard Self.isPart(name) else { return nil }
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// Which version of which file is at `relative` inside (no link on the way, none
    /// followed at the end): nil when there is none.
    public func identity(of relative: String) -> SafeFile.Identity? {
        guard let fd = try? openBeneath(relative, flags: stories_o_path | O_CLOEXEC, wantsFolder: false) else { return nil }
        defer { close(fd) }
        var info = stat()
        // The walk opens a link at the end itself (O_PATH | O_NOFOLLOW), openat2 refuses it:
        // either way a link is not a file here.
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK else { return nil }
        return SafeFile.identity(info)
    }

    /// What the folder itself is now (its modification time moves when an entry comes or goes).
    public func status() -> stat? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? info : nil
    }

    /// Calls `body` with each name in the folder (not `.` or `..`; nil for a name that is not
    /// UTF-8) and what the listing says it is (`d_type`: `DT_DIR`, `DT_REG`, `DT_LNK`…, or
    /// `DT_UNKNOWN` where the file system does not say) until it returns false. Nil when the
    /// folder could be listed; else `errno`'s words.
    public func forEachName(_ body: (String?, UInt8) -> Bool) -> String? {
        // A descriptor of its own: a listing moves its offset, and this one is shared.
        let fd = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        guard let handle = fdopendir(fd) else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return reason
        }
        defer { closedir(handle) }
        while true {
            // readdir says the end and a failure alike (NULL): errno tells them apart.
            errno = 0
            guard let item = readdir(handle) else {
                return errno == 0 ? nil : String(cString: strerror(errno))
            }
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                raw.baseAddress.flatMap { String(validatingCString: $0.assumingMemoryBound(to: CChar.self)) }
            }
            if name == "." || name == ".." { continue }
            if !body(name, item.pointee.d_type) { return nil }
        }
    }

    // MARK: - Writing

    /// Makes the folder `name` (one part) inside this one when it is not there; a link or a
    /// file in its place is refused as what it is.
    public func makeFolder(_ name: String, mode: mode_t = 0o755) throws(AtomicFile.Failure) {
        guard Self.isPart(name) else { throw AtomicFile.Failure(description: "cannot make \(SafeText.line(name)): not a name") }
        if mkdirat(descriptor, name, mode) == 0 { return }
        let code = errno
        if code == EEXIST, let info = status(of: name) {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw AtomicFile.Failure(description: "cannot make \(SafeText.line(path + "/" + name)): it is \(SafeFile.kind(of: info.st_mode))")
            }
            return
        }
        throw AtomicFile.failure("make the folder", path + "/" + name, errno: code)
    }

    /// Replaces `name` (one part) in this folder with `data`, whole or not at all: a
    /// temporary file beside it (created with `O_EXCL | O_NOFOLLOW`), written, flushed, then
    /// renamed over it, all from this folder's descriptor.
    public func write(_ data: Data, to name: String, mode: mode_t = 0o644) throws(AtomicFile.Failure) {
        guard Self.isPart(name) else { throw AtomicFile.Failure(description: "cannot write \(SafeText.line(name)): not a name") }
        try AtomicFile.write(data, in: descriptor, name: name, shownAs: path + "/" + name, mode: mode)
    }

    // MARK: - Confinement

    /// A part of a path inside a folder: not empty, not `.` or `..`, no `/` or NUL.
    static func isPart<S: StringProtocol>(_ part: S) -> Bool {
        !part.isEmpty && part != "." && part != ".." && !part.utf8.contains(0x2F) && !part.utf8.contains(0)
    }

    /// Opens `relative` beneath the folder, taking the descriptor's ownership to the caller.
    func openBeneath(_ relative: String, flags: Int32, wantsFolder: Bool) throws(SafeFile.Failure) -> Int32 {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, relative.utf8.count <= 4096, parts.allSatisfy(Self.isPart) else { throw .missing }
        if usesOpenat2 {
            let fd = stories_open_beneath(descriptor, relative, flags, 0)
            if fd >= 0 { return fd }
            let code = errno
            if code != ENOSYS && code != EPERM { throw failure(code, last: String(parts[parts.count - 1]), in: nil, wantsFolder: wantsFolder, relative: relative) }
        }
        return try walk(parts, flags: flags, wantsFolder: wantsFolder)
    }

    /// One part at a time: each folder on the way opened with `O_NOFOLLOW | O_DIRECTORY`
    /// from the one before, the last part with `O_NOFOLLOW`.
    private func walk(_ parts: [Substring], flags: Int32, wantsFolder: Bool) throws(SafeFile.Failure) -> Int32 {
        var current = descriptor
        var owned: Int32 = -1
        defer { if owned >= 0 { close(owned) } }
        for (index, part) in parts.enumerated() {
            let last = index == parts.count - 1
            let name = String(part)
            let fd = openat(current, name, last ? flags | O_NOFOLLOW : stories_o_path | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                throw failure(errno, last: name, in: current, wantsFolder: wantsFolder && last, relative: nil)
            }
            if last {
                return fd
            }
            if owned >= 0 { close(owned) }
            owned = fd
            current = fd
        }
        throw .missing
    }

    /// An open that failed, in the words of `SafeFile.Failure`. `folder`: where the failing
    /// part was looked for (the walk), to tell a link from a file in a folder's place.
    private func failure(_ code: Int32, last: String, in folder: Int32?, wantsFolder: Bool, relative: String?) -> SafeFile.Failure {
        switch code {
        case ELOOP, EXDEV: return .link
        case ENOTDIR:
            // The walk met something that is not a folder where one was wanted: a link is a link.
            if let folder {
                var info = stat()
                if fstatat(folder, last, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                    if (info.st_mode & S_IFMT) == S_IFLNK { return .link }
                    if wantsFolder { return .notFolder(SafeFile.kind(of: info.st_mode)) }
                }
            } else if wantsFolder, let relative {
                // openat2 on a last part that is no folder: say what it is.
                let fd = stories_open_beneath(descriptor, relative, stories_o_path | O_CLOEXEC | O_NOFOLLOW, 0)
                if fd >= 0 {
                    defer { close(fd) }
                    var info = stat()
                    if fstat(fd, &info) == 0 { return .notFolder(SafeFile.kind(of: info.st_mode)) }
                }
            }
            return .missing
        case ENOENT: return .missing
        case ENXIO: return .notRegular("a socket")
        case EACCES: return .cannotOpen("permission denied")
        default: return .cannotOpen(String(cString: strerror(code)))
        }
    }
}

/// The folder a person named, held open (`OpenFolder`) and opened again by its name only
/// when the one held was removed, or the name now names another folder (a deploy that
/// replaces a served folder, a folder deleted and made again): looked at no more often than
/// `recheckAfter` seconds. The name is the person's, as at the start (a link to a folder is
/// followed there, as when it was first opened); everything inside is still reached from
/// the descriptor, never by a path.
public final class NamedFolder: @unchecked Sendable {
    // `held` and `checked` are touched only under `lock`; everything else is immutable.
    public let path: String
    let recheckAfter: Double
    let openat2: Bool
    private let lock = NSLock()
    private var held: OpenFolder
    private var checked: UInt64

    public init(_ folder: OpenFolder, recheckAfter: Double = 1) {
        path = folder.path
        held = folder
        self.recheckAfter = max(0, recheckAfter)
        openat2 = folder.usesOpenat2 || !OpenFolder.kernelHasOpenat2
        checked = DispatchTime.now().uptimeNanoseconds
    }

    /// The folder as its name gives it now.
    public func current() -> OpenFolder {
        let now = DispatchTime.now().uptimeNanoseconds
        let (folder, due) = lock.withLock { () -> (OpenFolder, Bool) in
            let due = Double(now &- checked) / 1e9 >= recheckAfter
            if due { checked = now }
            return (held, due)
        }
        guard due, let mine = folder.status() else { return folder }
        var named = stat()
        guard stat(path, &named) == 0 else { return folder } // nothing there now: the held one says so
        let same = named.st_dev == mine.st_dev && named.st_ino == mine.st_ino
        guard !same, let fresh = try? OpenFolder.open(path, openat2: openat2) else { return folder }
        return lock.withLock {
            held = fresh
            return fresh
        }
    }
}
