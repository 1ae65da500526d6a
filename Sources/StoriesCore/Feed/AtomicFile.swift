import Foundation

/// The one way the app replaces a file of its own: a temporary file beside it (opened
/// with `O_EXCL | O_NOFOLLOW`, so nothing planted there is followed or reused), written
/// whole, flushed to disk, then renamed over the old one. A crash at any point leaves
/// either the old file or the new one, whole.
public enum AtomicFile {
    /// `pauseBeforeRename`: seconds between the fsync and the rename, only for the tests
    /// that kill a writer mid-write.
    public static func write(_ data: Data, to file: URL, mode: mode_t = 0o600, pauseBeforeRename: Double = 0) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        unlink(temporary.path) // one left by this pid before (a pid is reused only after its process is gone)
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path]) }
        let written = data.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        if pauseBeforeRename > 0 { Thread.sleep(forTimeInterval: pauseBeforeRename) }
        guard written == data.count, synced, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
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
