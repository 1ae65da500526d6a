import StoriesCore
import Foundation

/// The one way the app replaces a file of its own: a temporary file beside it (opened
/// with `O_EXCL | O_NOFOLLOW`, so nothing planted there is followed or reused), written
/// whole, flushed to disk, then renamed over the old one. A crash at any point leaves
/// either the old file or the new one, whole.
public enum AtomicFile {
    /// Why a write did not happen, in words ("cannot write /x/seen.json: No space left on device").
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// Why, without the path ("No space left on device").
        public var reason: String

        public init(description: String, reason: String? = nil) {
            self.description = description
            self.reason = reason ?? description
        }
    }

    static func failure(_ what: String, _ path: String, errno code: Int32) -> Failure {
        let reason = String(cString: strerror(code))
        let description = "cannot \(what) \(SafeText.line(path)): \(reason)"
        // Writing the file itself failed: the reason alone (the path is said with it anyway).
        return Failure(description: description, reason: what == "write" || what == "replace" ? reason : description)
    }

    /// `pauseBeforeRename`: seconds between the fsync and the rename, only for the tests
    /// that kill a writer mid-write.
    public static func write(_ data: Data, to file: URL, mode: mode_t = 0o600, pauseBeforeRename: Double = 0) throws(Failure) {
        let directory = file.deletingLastPathComponent()
        if let code = makeFolders(directory.path) { throw failure("make the folder", directory.path, errno: code) }
        // The folder by its descriptor from here on: the temporary file and the rename stay
        // in the folder that was checked, whatever its path comes to mean meanwhile.
        let folder = Foundation.open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure("write into", directory.path, errno: errno) }
        defer { close(folder) }
        try write(data, in: folder, name: file.lastPathComponent, shownAs: file.path, mode: mode, pauseBeforeRename: pauseBeforeRename)
    }

    /// The same inside the folder open as `folder`: `name` is one part of a path.
    static func write(_ data: Data, in folder: Int32, name: String, shownAs shown: String, mode: mode_t,
                      pauseBeforeRename: Double = 0) throws(Failure) {
        let temporary = ".\(name).\(getpid()).tmp"
        unlinkat(folder, temporary, 0) // one left by this pid before (a pid is reused only after its process is gone)
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("write", shown, errno: errno) }
        let writeError = data.withUnsafeBytes { FileWrites.writeAll(fd, $0) } ?? 0
        let synced = writeError == 0 && fsync(fd) == 0
        let syncError = errno
        close(fd)
        if pauseBeforeRename > 0 { Thread.sleep(forTimeInterval: pauseBeforeRename) }
        guard writeError == 0 else {
            unlinkat(folder, temporary, 0)
            throw failure("write", shown, errno: writeError)
        }
        guard synced else {
            unlinkat(folder, temporary, 0)
            throw failure("write", shown, errno: syncError)
        }
        guard renameat(folder, temporary, folder, name) == 0 else {
            let code = errno
            unlinkat(folder, temporary, 0)
            throw failure("replace", shown, errno: code)
        }
    }

    /// `mkdir -p` with mode 0700, one component at a time so a failure has its own errno
    /// ("Not a directory" when a file is in the way); nil when the folder is there.
    static func makeFolders(_ path: String) -> Int32? {
        var info = stat()
        if stat(path, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFDIR ? nil : ENOTDIR }
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o700) != 0, errno != EEXIST { return errno }
        }
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? nil : ENOTDIR
    }

    /// A writer killed before its rename leaves `.<name>.<pid>.tmp` behind; the old file is
    /// whole, so the leftover is removed once its process is gone.
    public static func removeAbandonedTemporaryFiles(in directory: URL, prefix: String = ".") {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let parts = name.dropLast(4).split(separator: ".")
            guard let last = parts.last, let pid = Int32(last), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}
