@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// What a photo folder keeps under the cache folder: used while a file is unchanged, read
/// again once it changes, set aside when it is damaged, bounded when it is hostile.
@Suite struct PhotoFolderCacheTests {
    let utc = TimeZone(identifier: "UTC") ?? .current

    /// A folder with one story ("Trip": two photos with EXIF captions) and its own cache root.
    func makeFolder() throws -> (root: URL, folder: URL, cacheRoot: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-cache-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Trip"), withIntermediateDirectories: true)
        try photo("2024:06:02 09:00:00", caption: "Morning AAA").write(to: folder.appendingPathComponent("Trip/a.jpg"))
        try photo("2024:06:02 10:00:00", caption: "Noon").write(to: folder.appendingPathComponent("Trip/b.jpg"))
        return (root, folder, root.appendingPathComponent("cache"))
    }

    func photo(_ taken: String, caption: String) -> Data {
        PhotoMetadataTests.jpeg(littleEndian: true, ifd0: [(0x010E, .ascii(caption))], exif: [(0x9003, .ascii(taken))])
    }

    /// A counter the previewer bumps (it runs on the cache's queue).
    final class Calls: @unchecked Sendable {
        // @unchecked Sendable: `paths` is touched only under `lock`.
        private let lock = NSLock()
        private var paths: [String] = []
        func add(_ path: String) { lock.withLock { paths.append(path) } }
        var all: [String] { lock.withLock { paths } }
    }

    func cache(_ folder: URL, _ root: URL, calls: Calls? = nil, hash: String? = "LEHV6nWB2yk8pyo0adR*.7kCMdnj") -> PhotoFolderCache {
        PhotoFolderCache(feed: folder, root: root, previewer: { file in
            calls?.add("\(file.identity.inode)")
            return hash
        }, writeDelay: .milliseconds(1))
    }

    /// A cache that has seen "Trip" once, its previews done and its file written.
    func filledCache(_ folder: URL, _ root: URL) throws -> PhotoFolderCache {
        let filled = cache(folder, root)
        _ = try PhotoFolder(directory: folder, timeZone: utc, cache: filled).story(id: "Trip")
        filled.waitForPreviews()
        filled.flush()
        return filled
    }

    /// Rewrites a file with other bytes of the same size and puts its modification time
    /// back to the nanosecond: the cache cannot tell, so what it kept is what comes back.
    func replaceKeepingTime(_ url: URL, with data: Data) throws {
        var info = stat()
        #expect(lstat(url.path, &info) == 0)
        try data.write(to: url)
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    }

    @Test func whatTheHeadersSaidIsKeptAndUsedWhileTheFileIsUnchanged() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = cache(folder, cacheRoot)
        let before = try everything(in: folder)
        let story = try PhotoFolder(directory: folder, timeZone: utc, cache: first).story(id: "Trip").story
        #expect(story.items.map(\.caption) == ["Morning AAA", "Noon"])
        first.waitForPreviews()
        first.flush()
        let files = try FileManager.default.contentsOfDirectory(atPath: first.directory.path)
        #expect(files.filter { $0.hasSuffix(".json") }.count == 1, "one file, for the story's folder (the top has no loose photos): \(files)")
        #expect(try everything(in: folder) == before, "nothing written into the folder")

        // Same size, same time, other words: a second run takes the kept caption (no read).
        let a = folder.appendingPathComponent("Trip/a.jpg")
        try replaceKeepingTime(a, with: photo("2024:06:02 09:00:00", caption: "Morning BBB"))
        let second = try PhotoFolder(directory: folder, timeZone: utc, cache: cache(folder, cacheRoot)).story(id: "Trip").story
        #expect(second.items.first?.caption == "Morning AAA", "a hit reads nothing")

        // A real change moves the time: the entry is stale and the header is read again.
        try photo("2024:06:02 11:00:00", caption: "Evening").write(to: a)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_800_000_000)], ofItemAtPath: a.path)
        let third = try PhotoFolder(directory: folder, timeZone: utc, cache: cache(folder, cacheRoot)).story(id: "Trip").story
        #expect(third.items.map(\.caption) == ["Noon", "Evening"], "read again, and in its new place by capture time")
    }

    @Test func blurHashesAreWorkedOutOnceInTheBackgroundAndCarriedNextTime() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let calls = Calls()
        let kept = cache(folder, cacheRoot, calls: calls)
        let feed = try PhotoFolder(directory: folder, timeZone: utc, cache: kept)
        let first = try feed.story(id: "Trip").story
        #expect(first.items.allSatisfy { $0.content.media?.blurhash == nil }, "the first load does not wait for them")
        kept.waitForPreviews()
        #expect(calls.all.count == 2)
        let second = try feed.story(id: "Trip").story
        #expect(second.items.allSatisfy { $0.content.media?.blurhash == "LEHV6nWB2yk8pyo0adR*.7kCMdnj" })
        _ = try feed.story(id: "Trip")
        kept.waitForPreviews()
        #expect(calls.all.count == 2, "worked out once: \(calls.all)")
        kept.flush()

        // The next run has them from disk, without working anything out.
        let again = Calls()
        let next = cache(folder, cacheRoot, calls: again)
        let story = try PhotoFolder(directory: folder, timeZone: utc, cache: next).story(id: "Trip").story
        next.waitForPreviews()
        #expect(story.items.allSatisfy { $0.content.media?.blurhash != nil } && again.all.isEmpty)
    }

    @Test func aFileWithoutAPreviewIsNotTriedAgain() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let calls = Calls()
        let kept = cache(folder, cacheRoot, calls: calls, hash: nil)
        let feed = try PhotoFolder(directory: folder, timeZone: utc, cache: kept)
        _ = try feed.story(id: "Trip")
        kept.waitForPreviews()
        _ = try feed.story(id: "Trip")
        kept.waitForPreviews()
        #expect(calls.all.count == 2, "\(calls.all)")
    }

    /// Issue 27, point 4: a cache file larger than the cache ever writes is set aside
    /// without being read (a sparse file of 64 MB and a byte).
    @Test func aCacheFileLargerThanItIsEverWrittenIsSetAsideUnread() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = cache(folder, cacheRoot)
        let file = cache.file(for: "Trip")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("{".utf8)))
        #expect(truncate(file.path, off_t(PhotoFolderCache.maxFileBytes + 1)) == 0)
        #expect(cache.entry(folder: "Trip", name: "a.jpg", size: 1, modified: 1) == nil)
        let said = cache.takeWarnings().map(\.message)
        #expect(said.count == 1 && said[0].contains("more than the 64 MB allowed here") && said[0].contains("set aside"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: file.path) && FileManager.default.fileExists(atPath: file.path + ".corrupt"))
    }

    @Test func aDamagedCacheFileIsSetAsideSaidAndBuiltAgain() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try filledCache(folder, cacheRoot)
        let file = first.file(for: "Trip")
        for damage in [Data("{\"version\":1,\"feed\":".utf8), Data([0xFF, 0xFE, 0x00]), Data("{\"version\":2,\"feed\":\"x\",\"folder\":\"Trip\",\"files\":{}}".utf8)] {
            try damage.write(to: file)
            let second = cache(folder, cacheRoot)
            let load = try PhotoFolder(directory: folder, timeZone: utc, cache: second).story(id: "Trip")
            #expect(load.story.items.map(\.caption) == ["Morning AAA", "Noon"], "the folder is read as if there were no cache")
            let warning = load.warnings.first { $0.message.contains("folder cache") }
            #expect(warning?.message.contains("set aside as") == true, "\(load.warnings)")
            #expect(try Data(contentsOf: file.appendingPathExtension("corrupt")) == damage)
            second.flush()
            #expect(FileManager.default.fileExists(atPath: file.path), "built again")
        }
        // A link where the cache file goes is not followed.
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/etc/passwd")
        let linked = cache(folder, cacheRoot)
        let load = try PhotoFolder(directory: folder, timeZone: utc, cache: linked).story(id: "Trip")
        #expect(load.warnings.contains { $0.message.contains("symbolic link") })
    }

    @Test func aHostileCacheFileIsBoundedAndMadePrintable() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let probe = cache(folder, cacheRoot)
        let a = folder.appendingPathComponent("Trip/a.jpg")
        var info = stat()
        #expect(lstat(a.path, &info) == 0)
        let entry: [String: Any] = ["size": Int(info.st_size), "modified": PhotoFolderCache.nanoseconds(info.st_mtim), "read": true,
                                    "captured": 1e300, "caption": "\u{1B}]52;c;aGk=\u{07}" + String(repeating: "x", count: 50_000),
                                    "blurhash": "\u{1B}[2J not a hash"]
        let document: [String: Any] = ["version": 1, "feed": folder.standardizedFileURL.path, "folder": "Trip",
                                       "files": ["a.jpg": entry, "b.jpg": ["size": -5, "modified": 0]]]
        try FileManager.default.createDirectory(at: probe.directory, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: document).write(to: probe.file(for: "Trip"))
        let hostile = cache(folder, cacheRoot)
        let story = try PhotoFolder(directory: folder, timeZone: utc, cache: hostile).story(id: "Trip").story
        hostile.flush() // its own write of what it read again, before the next document goes there
        let item = try #require(story.items.first { $0.id == "a.jpg" })
        #expect(item.caption.map { !$0.contains("\u{1B}") && $0.utf8.count <= 2000 } == true)
        #expect(item.content.media?.blurhash == nil, "not a hash: dropped")
        #expect(item.createdAt.map { abs($0.timeIntervalSince1970) < 1e11 } ?? true, "an absurd time is dropped")
        #expect(story.items.first { $0.id == "b.jpg" }?.caption == "Noon", "an entry that cannot be one is read again")

        // Another folder's document under this name (a hash collision) is not used.
        let other: [String: Any] = ["version": 1, "feed": "/somewhere/else", "folder": "Trip",
                                    "files": ["a.jpg": ["size": Int(info.st_size), "modified": PhotoFolderCache.nanoseconds(info.st_mtim),
                                                        "read": true, "caption": "Not mine"]]]
        try JSONSerialization.data(withJSONObject: other).write(to: probe.file(for: "Trip"))
        let fresh = try PhotoFolder(directory: folder, timeZone: utc, cache: cache(folder, cacheRoot)).story(id: "Trip").story
        #expect(fresh.items.first { $0.id == "a.jpg" }?.caption == "Morning AAA")
    }

    /// Every path under `root` with its size and modification time.
    func everything(in root: URL) throws -> [String] {
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.sorted().map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            return "\(path) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0)"
        }
    }

    @Test func entriesOfFilesThatWentAwayAreDropped() throws {
        let (root, folder, cacheRoot) = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try filledCache(folder, cacheRoot)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Trip/b.jpg"))
        let second = cache(folder, cacheRoot)
        _ = try PhotoFolder(directory: folder, timeZone: utc, cache: second).story(id: "Trip")
        second.flush()
        let document = try JSONValue.parse(Data(contentsOf: second.file(for: "Trip")), file: "cache")
        #expect(document["files"]?.objectValue?.keys.sorted() == ["a.jpg"])
    }

    @Test func theCacheFolderFollowsXDG() {
        #expect(PhotoFolderCache.standardRoot(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"])?.path == "/c/stories")
        #expect(PhotoFolderCache.standardRoot(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/h"])?.path == "/h/.cache/stories")
        #expect(PhotoFolderCache.standardRoot(environment: [:]) == nil)
    }
}
