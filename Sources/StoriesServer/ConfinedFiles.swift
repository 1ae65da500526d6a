import StoriesFeedIO
import Dispatch
import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

/// Reads files inside one folder and nowhere else: the one way the server opens a file.
///
/// A relative path is checked segment by segment (no empty, `.` or `..` segment, no
/// hidden names, no NUL or control characters, no backslash), then opened from the
/// folder's own descriptor (`OpenFolder`: `openat2` beneath it with no link followed
/// anywhere on the way, or a walk one part at a time), and must be a regular file (never a
/// FIFO or a device) within the size limit — all checked on the open descriptor, which is
/// the one that is read: nothing is opened again by path, so a folder swapped for a link
/// while requests are served cannot send a byte from outside. Small files are kept in a
/// small cache keyed by path and checked against the open file (inode, size, modification
/// time), so a changed file is read again and gets a new ETag — at most `recheckAfter`
/// seconds (1 by default) after it changed: the checks cost more than the answer itself
/// under load.
public final class ConfinedFiles: @unchecked Sendable {
    // `cache`, `cachedBytes`, `checked` and `checkedBytes` are guarded by `lock`; everything
    // else is immutable.
    public let root: String
    let folder: NamedFolder
    private let lock = NSLock()
    private var cache: [String: Entry] = [:]
    private var cachedBytes = 0
    /// Files up to this size are kept in memory (the demo's media all fit).
    static let cacheableFileBytes = 4 << 20
    static let cacheBudget = 64 << 20

    /// A file found inside the folder: a small one is in memory with a tag from its bytes;
    /// a large one (over `cacheableFileBytes`) stays on disk, open on the descriptor its
    /// checks were made on, its tag made from its inode, size and modification time, and
    /// only the bytes asked for are read, from that descriptor.
    public struct File: Sendable {
        public var etag: String
        public var size: Int
        /// A small file's bytes, once: `buffer` is what goes on the wire (slices of it share its
        /// storage, nothing is copied per answer) and `memory` the same storage seen as `Data`.
        let memory: Data?
        let buffer: ByteBuffer?
        let opened: SafeFile.Opened?
        /// The file's first bytes (what it is, by its content), read once.
        public let start: [UInt8]

        /// The whole file (from memory when it is small, as documents always are).
        public func contents() throws(Failure) -> Data {
            if let memory { return memory }
            return try bytes(in: 0..<size)
        }

        /// The open file a large one is read from (nil for a small one, which is in memory).
        public var open: SafeFile.Opened? { opened }

        /// The bytes in `range` (within `0..<size`), read from the descriptor that was checked.
        public func bytes(in range: Range<Int>) throws(Failure) -> Data {
            if let memory { return memory.subdata(in: range) }
            guard let opened else { throw .unreadable("the file is not open") }
            let data: Data
            do { data = try opened.read(at: range.lowerBound, count: range.count) } catch { throw ConfinedFiles.failure(error) }
            guard data.count == range.count else { throw .unreadable("the file changed while it was served") }
            return data
        }
    }

    private struct Entry {
        var identity: Identity
        var file: File
    }

    typealias Identity = SafeFile.Identity

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notFound
        case forbidden(String)
        case tooLarge(Int)
        case unreadable(String)

        public var description: String {
            switch self {
            case .notFound: "no such file"
            case .forbidden(let why): why
            case .tooLarge(let bytes): "\(bytes) bytes is more than this server sends"
            case .unreadable(let why): "cannot read: \(why)"
            }
        }
    }

    /// A file checked less than this many seconds ago is served from memory without
    /// looking at the disk again (0: every read checks).
    public let recheckAfter: Double
    private var checked: [String: (at: UInt64, file: File)] = [:]
    private var checkedBytes = 0

    public convenience init(root: URL, recheckAfter: Double = 1, openat2: Bool = true) throws(FeedError) {
        let folder: OpenFolder
        do { folder = try OpenFolder.open(root.path, openat2: openat2) } catch {
            throw FeedError(file: SafeText.line(root.path), reason: error == .missing ? "no such folder" : error.description)
        }
        self.init(folder: NamedFolder(folder, recheckAfter: recheckAfter), recheckAfter: recheckAfter)
    }

    /// Over a folder already open.
    public init(folder: NamedFolder, recheckAfter: Double = 1) {
        self.folder = folder
        root = URL(fileURLWithPath: folder.path).standardizedFileURL.path
        self.recheckAfter = max(0, recheckAfter)
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Checks a path relative to the root (already percent-decoded): nil when it may be served.
    public static func problem(with relative: String) -> String? { FeedPath.problem(with: relative) }

    /// The file at `relative` (checked with `problem(with:)` first), at most `maxBytes`;
    /// `fresh` looks at the disk even within the recheck window (for what is built from the
    /// files a fresh look found changed: never a new page from an old file).
    public func read(_ relative: String, maxBytes: Int, fresh: Bool = false) throws(Failure) -> File {
        if !fresh, let file = kept(relative, maxBytes: maxBytes) { return file }
        let looked = Self.now() // the window runs from the look, not from the end of the read
        let file = try readFromDisk(relative, maxBytes: maxBytes)
        // A large file is open: it is never kept (each answer opens and checks it again).
        if recheckAfter > 0, file.memory != nil {
            lock.withLock {
                // Bounded in entries and in bytes (large files hold no bytes here).
                let size = file.memory?.count ?? 0
                // Cleared with the file cache (they hold the same files): one budget for both.
                if checked.count >= 4096 || checkedBytes + size > Self.cacheBudget {
                    checked.removeAll(); checkedBytes = 0
                    cache.removeAll(); cachedBytes = 0
                }
                if let old = checked[relative] { checkedBytes -= old.file.memory?.count ?? 0 }
                checked[relative] = (looked, file)
                checkedBytes += size
            }
        }
        return file
    }

    /// The file at `relative` when it is kept in memory and was checked within
    /// `recheckAfter` — never the disk, so callers on threads that must not block may ask.
    public func kept(_ relative: String, maxBytes: Int) -> File? {
        guard recheckAfter > 0, let recent = lock.withLock({ checked[relative] }),
              Double(Self.now() &- recent.at) / 1e9 < recheckAfter, recent.file.size <= maxBytes else { return nil }
        return recent.file
    }

    private func readFromDisk(_ relative: String, maxBytes: Int) throws(Failure) -> File {
        if let why = Self.problem(with: relative) { throw .forbidden(why) }
        // From the folder's descriptor, no link followed on the way: what is not there, or
        // is reached only through a link, is as if it were not there (the answer must not
        // tell what exists elsewhere).
        let opened: SafeFile.Opened
        do { opened = try folder.current().open(relative) } catch { throw Self.failure(error) }
        let size = opened.size
        guard size <= maxBytes else { throw .tooLarge(size) }
        let identity = opened.identity
        if size > Self.cacheableFileBytes {
            let start = (try? opened.read(at: 0, count: 12)).map { [UInt8]($0) } ?? []
            return File(etag: Self.tag(identity), size: size, memory: nil, buffer: nil, opened: opened, start: start)
        }
        lock.lock()
        let cached = cache[relative]
        lock.unlock()
        if let cached, cached.identity == identity { return cached.file }
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        var result = 0
        // The closure says how many bytes it wrote, never less than none (a read error is
        // kept aside and said below).
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { space in
            result = opened.read(at: 0, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<size]))
            return max(0, result)
        }
        guard result == size else {
            throw result < 0 ? .unreadable(String(cString: strerror(Int32(-result)))) : .unreadable("the file changed while it was read")
        }
        let bytes = Data(buffer: buffer, byteTransferStrategy: .noCopy)
        let file = File(etag: ETag.strong(for: bytes), size: size, memory: bytes, buffer: buffer, opened: nil,
                        start: buffer.getBytes(at: buffer.readerIndex, length: min(12, size)) ?? [])
        do {
            lock.lock()
            if let old = cache[relative] { cachedBytes -= old.file.size }
            if cachedBytes + size > Self.cacheBudget {
                cache.removeAll(); cachedBytes = 0
                checked.removeAll(); checkedBytes = 0 // one budget for both: no file kept twice over it
            }
            cache[relative] = Entry(identity: identity, file: file)
            cachedBytes += size
            lock.unlock()
        }
        return file
    }

    /// A large file's tag, from which version of it this is.
    static func tag(_ identity: Identity) -> String {
        "\"s" + ETag.hex(identity.inode) + ETag.hex(UInt64(bitPattern: identity.size)) + ETag.hex(UInt64(bitPattern: identity.modified)) + "\""
    }

    /// What the one safe open said, as an answer: what is not there (or was swapped for a
    /// link since the checks) is not found; what is not a file is refused.
    static func failure(_ failure: SafeFile.Failure) -> Failure {
        switch failure {
        case .missing, .link: .notFound
        case .notRegular, .notFolder: .forbidden("not a regular file")
        case .tooLarge(let size): .tooLarge(size)
        case .cannotOpen(let why), .unreadable(let why), .notPrivate(let why): .unreadable(why)
        }
    }
}
