import StoriesFeedIO
import Foundation
import StoriesCore

/// An HTTP cache on disk (`$XDG_CACHE_HOME/stories/http/`, else `~/.cache/stories/http/`):
/// one file per URL holding a small header (the URL, the ETag, when it was fetched) and the
/// body. Written atomically (a temporary file renamed into place), bounded in size (the
/// least recently fetched or revalidated entries go first), and a file that does not parse
/// is set aside as `*.corrupt` and treated as missing, never trusted. A 304 only touches
/// the file's modification time, which counts as its fetch time from then on.
public final class HTTPCache: @unchecked Sendable {
    // Writes and evictions in this process are serialised by `lock`; other viewers of the
    // same user may share the folder, which is why every write is a rename of a whole file.
    public let directory: URL
    public let budget: Int
    private let lock = NSLock()
    /// The folder's size as this process last knew it (nil: not counted yet): the folder is
    /// listed again only when a store would pass the budget, not on every store.
    private var knownSize: Int?

    public struct Entry: Equatable, Sendable {
        public var etag: String?
        public var fetched: Date
        public var body: Data
    }

    static let magic = "stories-http-cache 1"
    /// The largest body an entry is written with (a video the app takes is at most 64 MB),
    /// and at most a quarter of the budget; the five header lines are at most 4 KB each.
    static let maxBodyBytes = 64 << 20
    static let maxHeaderBytes = 5 * 4097

    /// The largest file this cache writes: a file larger than that was not written by it
    /// (damaged, grown, planted) and is set aside without being read.
    var maxFileBytes: Int { min(budget / 4, Self.maxBodyBytes) + Self.maxHeaderBytes }

    public init(directory: URL, budget: Int = 256 << 20) {
        self.directory = directory
        self.budget = budget
    }

    /// The default folder, from the environment.
    public static func standardDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        PhotoFolderCache.standardRoot(environment: environment)?.appendingPathComponent("http")
    }

    func file(for url: String) -> URL {
        directory.appendingPathComponent(Self.key(url))
    }

    /// A file name from the URL: two FNV-1a hashes in hex (the URL itself is in the header).
    static func key(_ url: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x84222325cbf29ce4
        for byte in url.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01B3 &+ 0x9E37_79B9
        }
        return String(a, radix: 16) + String(b, radix: 16)
    }

    public func entry(for url: String) -> Entry? {
        let path = file(for: url)
        let data: Data, modified: Date
        do { (data, modified) = try SafeFile.read(path.path, maxBytes: maxFileBytes) } catch {
            // Larger than anything written here, a link, a FIFO: never read, set aside.
            if error != .missing { setAside(path) }
            return nil
        }
        guard var entry = Self.decode(data, url: url) else {
            // Not ours, or damaged: set aside, never read again.
            setAside(path)
            return nil
        }
        // A revalidation since the write moved the modification time on (`touch`).
        if modified > entry.fetched, modified <= Date().addingTimeInterval(60) { entry.fetched = modified }
        return entry
    }

    /// A damaged entry moved out of the way as `….corrupt` (counted in the budget, and
    /// evicted with the oldest).
    private func setAside(_ path: URL) {
        lock.withLock { _ = rename(path.path, path.appendingPathExtension("corrupt").path) }
    }

    public func store(_ entry: Entry, for url: String) {
        guard entry.body.count <= min(budget / 4, Self.maxBodyBytes), url.utf8.count <= 4000 else { return }
        var data = Data("\(Self.magic)\n\(SafeText.line(url))\n\(entry.etag.flatMap(Self.usableTag) ?? "")\n\(entry.fetched.timeIntervalSince1970)\n\(entry.body.count)\n".utf8)
        data.append(entry.body)
        lock.withLock {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let before = knownSize ?? folderSize()
                let target = file(for: url)
                let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
                try data.write(to: temporary)
                // The modification time is the fetch time (what `touch` moves on later).
                Self.setModified(temporary.path, to: entry.fetched)
                if rename(temporary.path, target.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
                knownSize = before + data.count
                if before + data.count > budget { evictIfNeeded() }
            } catch {
                // A cache that cannot be written is only slower.
            }
        }
    }

    /// Refreshes an entry's fetch time (a 304 said it is still current): the file's
    /// modification time is set, the body is not written again.
    public func touch(_ url: String, at date: Date) {
        lock.withLock { Self.setModified(file(for: url).path, to: date) }
    }

    static func setModified(_ path: String, to date: Date) {
        let time = min(max(date.timeIntervalSince1970, 0), 1e11) // a date from anywhere, bounded
        let seconds = time.rounded(.down)
        let stamp = timespec(tv_sec: Int(seconds), tv_nsec: min(999_999_999, Int((time - seconds) * 1e9)))
        var times = [stamp, stamp]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// The bytes of the folder's files (one listing).
    private func folderSize() -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        return files.reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }

    /// Lists the folder and removes the least recently fetched entries until it is within
    /// the budget (files of other viewers of the same user included); only when the size
    /// this process knows of says it is over.
    private func evictIfNeeded() {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { url -> (URL, Int, Date)? in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            let modified = values.contentModificationDate ?? .distantPast
            // A temporary file left by a process that stopped between write and rename.
            if url.lastPathComponent.hasPrefix("."), url.pathExtension == "tmp", Date().timeIntervalSince(modified) > 60 {
                try? FileManager.default.removeItem(at: url)
                return nil
            }
            return (url, values.fileSize ?? 0, modified)
        }
        var total = entries.reduce(0) { $0 + $1.1 }
        defer { knownSize = total }
        guard total > budget else { return }
        entries.sort { $0.2 < $1.2 }
        for (url, size, _) in entries where total > budget {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }

    static func decode(_ data: Data, url: String) -> Entry? {
        // Five header lines, then exactly the body's length.
        var lines: [Substring] = []
        var index = data.startIndex
        while lines.count < 5 {
            guard let newline = data[index...].firstIndex(of: 0x0A), newline - index <= 4096 else { return nil }
            lines.append(Substring(String(decoding: data[index..<newline], as: UTF8.self)))
            index = newline + 1
        }
        guard lines[0] == magic, lines[1] == SafeText.line(url),
              let seconds = Double(lines[3]), seconds.isFinite, let length = Int(lines[4]), length == data.count - (index - data.startIndex)
        else { return nil }
        // A fetch time in the future (a damaged file, a clock set back) would keep the entry
        // fresh for ever: it counts as long ago, so the next use asks the server.
        let fetched = seconds >= 0 && seconds <= Date().timeIntervalSince1970 + 60 ? seconds : 0
        return Entry(etag: usableTag(String(lines[2])), fetched: Date(timeIntervalSince1970: fetched),
                     body: data.subdata(in: index..<data.endIndex))
    }

    /// An entity tag as it may be sent back in `If-None-Match`: 1 to 256 visible ASCII
    /// characters (RFC 9110's `entity-tag`, which has no spaces or controls). A server's tag
    /// that is anything else is not kept, so a lying server cannot make every later request
    /// of that address fail on a header the client refuses to send.
    static func usableTag(_ tag: String) -> String? {
        let bytes = tag.utf8
        guard !bytes.isEmpty, bytes.count <= 256, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return tag
    }
}
