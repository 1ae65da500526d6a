import StoriesCore
import Dispatch
import Foundation

/// What a photo folder learnt about its files, kept under `$XDG_CACHE_HOME/stories/folders/`
/// (never in the user's folder): capture time and caption from the headers, and the
/// BlurHash worked out in the background the first time a photo or video is seen.
/// One small JSON file per story folder, read when that story is first needed; an entry
/// counts only while the file's size and modification time are what they were.
///
/// A cache file that cannot be read is set aside (`….corrupt`) with a line on the
/// feed-problems line and built again. Writes are batched on a utility queue and atomic.
public final class PhotoFolderCache: @unchecked Sendable {
    // @unchecked Sendable: `folders`, `dirty`, `writeScheduled`, `warnings`, `pendingPreviews`
    // and `closing` are touched only
    // under `lock`; everything else is immutable.

    /// What is known about one file.
    public struct Entry: Equatable, Sendable {
        public var size: Int
        /// Modification time in nanoseconds since 1970: with `size`, the entry's key.
        public var modified: Int64
        /// Whether the header was read (captured and caption are what it said).
        public var read: Bool?
        public var captured: Double?
        /// The camera's day ("2023-05-01"), when the header gave one.
        public var day: String?
        public var caption: String?
        public var blurhash: String?
        /// True once a preview was tried and the file gave none (not tried again).
        public var noPreview: Bool?
        /// A GIF of more than one frame (nil: not a GIF, or read before GIFs were told apart).
        public var animated: Bool?

        public init(size: Int, modified: Int64) {
            self.size = size
            self.modified = modified
        }
    }

    /// A BlurHash for an open file (the app's decoder makes it; tests give their own).
    public typealias Previewer = @Sendable (_ file: SafeFile.Opened) -> String?

    /// This feed's cache folder.
    public let directory: URL
    let feed: String
    let previewer: Previewer?
    let writeDelay: DispatchTimeInterval
    private let lock = NSLock()
    private var folders: [String: [String: Entry]] = [:]
    private var dirty: Set<String> = []
    private var writeScheduled = false
    private var warnings: [FeedWarning] = []
    private var pendingPreviews: Set<String> = []
    private var closing = false
    private let writes = DispatchQueue(label: "stories.folder-cache", qos: .utility)
    private let previews = DispatchQueue(label: "stories.folder-previews", qos: .background)
    /// The largest cache file read: a folder's most entries (20 000) with the longest
    /// captions (2 000 bytes) fit, so nothing this cache writes is refused when read back.
    static let maxFileBytes = 64 << 20
    /// The most entries kept for one folder (a folder lists at most `PhotoFolder.maxEntries`).
    static let maxEntries = PhotoFolder.maxEntries

    public init(feed: URL, root: URL, previewer: Previewer? = nil, writeDelay: DispatchTimeInterval = .milliseconds(300)) {
        self.feed = feed.standardizedFileURL.path
        directory = root.appendingPathComponent("folders/" + Self.hash(self.feed))
        self.previewer = previewer
        self.writeDelay = writeDelay
    }

    /// `$XDG_CACHE_HOME/stories` or `~/.cache/stories` (nil with neither set).
    public static func standardRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("stories")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/stories")
    }

    /// The cache file of one story folder ("" for the loose files at the top).
    public func file(for folder: String) -> URL {
        directory.appendingPathComponent(Self.hash(folder) + ".json")
    }

    // MARK: - Entries

    /// The entry for `name` in `folder` while the file is as it was (size, time).
    public func entry(folder: String, name: String, size: Int, modified: Int64) -> Entry? {
        lock.withLock {
            guard let entry = loadedLocked(folder)[name], entry.size == size, entry.modified == modified else { return nil }
            return entry
        }
    }

    /// Keeps `entry` and writes the folder's file soon.
    public func store(_ entry: Entry, folder: String, name: String) {
        update(folder: folder, name: name, size: entry.size, modified: entry.modified) { $0 = entry }
    }

    /// Changes the entry for `name` under one hold of the lock (a preview and a header read
    /// of the same file cannot undo each other): `change` gets the entry kept for the file
    /// as it is now (size, time), or a new one.
    public func update(folder: String, name: String, size: Int, modified: Int64, _ change: (inout Entry) -> Void) {
        lock.withLock {
            let known = loadedLocked(folder)[name]
            var entry = known.flatMap { $0.size == size && $0.modified == modified ? $0 : nil } ?? Entry(size: size, modified: modified)
            change(&entry)
            guard known != entry, known != nil || (folders[folder]?.count ?? 0) < Self.maxEntries else { return }
            folders[folder, default: [:]][name] = entry // in place: no copy of the folder's entries
            dirty.insert(folder)
            scheduleWriteLocked()
        }
    }

    /// Drops the entries of files no longer in the folder (`names`: what its listing has now).
    public func prune(folder: String, keeping names: Set<String>) {
        lock.withLock {
            let entries = loadedLocked(folder)
            guard entries.keys.contains(where: { !names.contains($0) }) else { return }
            folders[folder] = entries.filter { names.contains($0.key) }
            dirty.insert(folder)
            scheduleWriteLocked()
        }
    }

    /// Lines for the feed-problems line (a cache file set aside), each said once.
    public func takeWarnings() -> [FeedWarning] {
        lock.withLock {
            defer { warnings.removeAll() }
            return warnings
        }
    }

    /// Writes what is pending now and waits for it, and drops previews not yet begun
    /// (before the process ends: the next run works them out).
    public func flush() {
        lock.withLock { closing = true }
        writes.sync { writePending(final: true) }
    }

    /// Waits for every preview asked for so far (tests).
    public func waitForPreviews() {
        previews.sync {}
    }

    // MARK: - Previews

    /// Works out the BlurHash of each file that has none yet, one at a time on a
    /// background queue; the next load of the story carries them.
    /// Each file is opened from `open` (the folder's descriptor) when its turn comes, and
    /// its preview kept only when it is still the file listed (size and time, on the open file).
    public func requestPreviews(folder: String, in open: OpenFolder, files: [(name: String, size: Int, modified: Int64)]) {
        guard let previewer else { return }
        for file in files {
            let key = folder + "/" + file.name
            let wanted = lock.withLock { () -> Bool in
                let known = loadedLocked(folder)[file.name]
                let current = known.map { $0.size == file.size && $0.modified == file.modified } ?? false
                if current, let known, known.blurhash != nil || known.noPreview == true { return false }
                return pendingPreviews.insert(key).inserted
            }
            guard wanted else { continue }
            previews.async { [self] in
                guard !lock.withLock({ closing }) else { return }
                // The file may have changed since it was listed: a preview only of the same file.
                let opened = try? open.open(file.name)
                let same = opened.map { Int($0.identity.size) == file.size && $0.identity.modified == file.modified } ?? false
                let preview = same ? opened.flatMap(previewer) : nil
                lock.withLock { _ = pendingPreviews.remove(key) }
                guard same else { return }
                update(folder: folder, name: file.name, size: file.size, modified: file.modified) { entry in
                    if let preview { entry.blurhash = preview } else { entry.noPreview = true }
                }
            }
        }
    }

    // MARK: - Files

    /// The folder's entries, read from its file the first time (under `lock`).
    private func loadedLocked(_ folder: String) -> [String: Entry] {
        if let entries = folders[folder] { return entries }
        let entries = read(folder)
        folders[folder] = entries
        return entries
    }

    private func read(_ folder: String) -> [String: Entry] {
        let url = file(for: folder)
        let data: Data
        do { data = try SafeFile.read(url.path, maxBytes: Self.maxFileBytes).0 } catch .missing { return [:] } catch {
            setAside(url, reason: SafeFile.describe(error, maxBytes: Self.maxFileBytes))
            return [:]
        }
        guard let document = try? JSONValue.parse(data, file: url.path), document["version"] == 1,
              let files = document["files"]?.objectValue else {
            setAside(url, reason: "not a cache file this version can read")
            return [:]
        }
        // Two paths with the same hash: the other one's file is not this folder's.
        guard document["feed"]?.stringValue == feed, document["folder"]?.stringValue == folder else { return [:] }
        var entries: [String: Entry] = [:]
        for (name, value) in files.prefix(Self.maxEntries) {
            if let entry = Entry(json: value).flatMap(Self.checked) { entries[name] = entry }
        }
        return entries
    }

    /// An entry from a file on disk, with every value bounded (the file is outside input
    /// like any other); nil when it cannot be one this cache wrote.
    static func checked(_ entry: Entry) -> Entry? {
        guard entry.size >= 0 else { return nil }
        var result = entry
        if let captured = entry.captured, !(captured.isFinite && abs(captured) < 1e11) { result.captured = nil }
        result.caption = entry.caption.map { SafeText.line($0, maxColumns: PhotoMetadata.maxCaptionBytes / 2) }
        if let day = entry.day, PhotoFolder.dayParts(day) == nil { result.day = nil }
        if let hash = entry.blurhash, !(6...120).contains(hash.utf8.count) || !hash.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 }) {
            result.blurhash = nil
        }
        return result
    }

    private func setAside(_ url: URL, reason: String) {
        let aside = url.appendingPathExtension("corrupt")
        unlink(aside.path)
        let moved = rename(url.path, aside.path) == 0
        warnings.append(FeedWarning("folder cache \(SafeText.line(url.path)): \(SafeText.line(reason)); "
                                    + (moved ? "set aside as \(SafeText.line(aside.lastPathComponent)) and built again" : "not used")))
    }

    private func scheduleWriteLocked() {
        // After `flush` nothing more is written: a preview that finishes late is for next time.
        guard !writeScheduled, !closing else { return }
        writeScheduled = true
        writes.asyncAfter(deadline: .now() + writeDelay) { [self] in writePending() }
    }

    /// `final`: the last write, from `flush`; any other write after `flush` is skipped.
    private func writePending(final: Bool = false) {
        let batch: [(String, [String: Entry])] = lock.withLock {
            writeScheduled = false
            if closing && !final { return [] }
            defer { dirty.removeAll() }
            return dirty.compactMap { folder in folders[folder].map { (folder, $0) } }
        }
        guard !batch.isEmpty else { return }
        AtomicFile.removeAbandonedTemporaryFiles(in: directory)
        for (folder, entries) in batch {
            let document: JSONValue = .object(["version": 1, "feed": .string(feed), "folder": .string(folder),
                                               "files": .object(entries.mapValues(\.json))])
            // A cache that cannot be written is only slower next time; one larger than this
            // cache reads back is not written at all (it would only be set aside).
            let data = document.data()
            if data.count <= Self.maxFileBytes { try? AtomicFile.write(data, to: file(for: folder)) }
        }
    }

    /// A file time in nanoseconds since 1970 (the cache's key, with the size).
    public static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// A file name for a path (the seen store's FNV-1a).
    static func hash(_ text: String) -> String { SeenStore.hash(text) }
}
