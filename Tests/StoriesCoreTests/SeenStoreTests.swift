@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

@Suite struct SeenStoreTests {
    let state: URL = FileManager.default.temporaryDirectory.appendingPathComponent("seen-store-\(UUID())")

    func store(delay: DispatchTimeInterval = .milliseconds(0), feed: String = "/feeds/demo") -> SeenStore {
        SeenStore(feedKey: feed, environment: ["XDG_STATE_HOME": state.path], delay: delay)
    }

    func seen(_ pairs: [(String, String)]) -> SeenState {
        var s = SeenState()
        for (story, item) in pairs { s.markSeen(story: story, item: item) }
        return s
    }

    @Test func aMissingFileIsACleanStartAndWhatIsSavedLoadsBack() {
        let store = store()
        #expect(store.load().state == SeenState())
        #expect(store.load().warning == nil)
        store.save(seen([("ayla", "a1"), ("ayla", "a2"), ("mika", "m1")]))
        store.flush()
        #expect(store.lastError == nil)
        #expect(self.store().load().state == seen([("ayla", "a1"), ("ayla", "a2"), ("mika", "m1")]))
        #expect(store.file.path.hasPrefix(state.appendingPathComponent("stories").path))
        // No temporary file is left behind.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.file.deletingLastPathComponent().path)) ?? []
        #expect(names == [store.file.lastPathComponent])
    }

    @Test func eachFeedHasItsOwnFile() {
        #expect(store(feed: "/a").file != store(feed: "/b").file)
        #expect(store(feed: "/a").file == store(feed: "/a").file)
    }

    @Test func theLocationFollowsXDGThenHome() {
        #expect(SeenStore.directory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]).path == "/x/state/stories")
        #expect(SeenStore.directory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"]).path == "/home/u/.local/state/stories")
        #expect(SeenStore.directory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/stories")
    }

    @Test func changesWithinTheDelayBecomeOneWrite() throws {
        let store = store(delay: .seconds(30))
        store.save(seen([("a", "1")]))
        store.save(seen([("a", "1"), ("a", "2")]))
        #expect(!FileManager.default.fileExists(atPath: store.file.path), "nothing written before the delay")
        store.flush()
        #expect(self.store().load().state == seen([("a", "1"), ("a", "2")]), "the latest state, once")
    }

    @Test func aFailedWriteKeepsTheLastGoodFile() throws {
        let store = store()
        store.save(seen([("a", "1")]))
        store.flush()
        let good = try Data(contentsOf: store.file)
        // A directory where the temporary file goes: opening it for writing fails, even
        // for root, so the write fails before the rename.
        let folder = store.file.deletingLastPathComponent()
        let blocker = folder.appendingPathComponent(".\(store.file.lastPathComponent).\(getpid()).tmp")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: blocker) }
        store.save(seen([("a", "1"), ("b", "2")]))
        store.flush()
        #expect(store.lastError != nil)
        #expect(try Data(contentsOf: store.file) == good, "the last good file is untouched")
        #expect(self.store().load().state == seen([("a", "1")]))
    }

    @Test func aCorruptFileIsMovedAsideAndTheAppStartsClean() throws {
        let store = store()
        try FileManager.default.createDirectory(at: store.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"version\": 1, \"seen\": [oops".utf8).write(to: store.file)
        let loaded = store.load()
        #expect(loaded.state == SeenState())
        let warning = try #require(loaded.warning)
        #expect(warning.message.hasPrefix("seen state \(store.file.path) could not be read; starting clean (moved it to "))
        #expect(!FileManager.default.fileExists(atPath: store.file.path))
        let names = try FileManager.default.contentsOfDirectory(atPath: store.file.deletingLastPathComponent().path)
        #expect(names.contains { $0.hasPrefix(store.file.lastPathComponent + ".corrupt-") })
        // A future version is not silently overwritten either.
        try Data(#"{"version": 2, "feed": "x", "seen": {}}"#.utf8).write(to: store.file)
        #expect(store.load().warning != nil)
    }

    /// Issue 27, point 4: a seen state larger than it is ever written is set aside without
    /// being read (a sparse file: reading it would take 65 MB of memory and time).
    @Test func aFileLargerThanItIsEverWrittenIsSetAsideUnread() throws {
        let store = store()
        try FileManager.default.createDirectory(at: store.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: store.file.path, contents: Data("{".utf8)))
        #expect(truncate(store.file.path, off_t(SeenStore.maxFileBytes + 1)) == 0)
        let loaded = store.load()
        #expect(loaded.state == SeenState())
        let warning = try #require(loaded.warning)
        #expect(warning.message.contains("is \(SeenStore.maxFileBytes + 1) bytes, more than the 64 MB it is ever written with; starting clean (moved it to "), "\(warning.message)")
        #expect(!FileManager.default.fileExists(atPath: store.file.path))
    }

    /// A state folder that cannot be written is told once, in words that say why; the
    /// reducer puts it on the problems line once a run.
    @Test func aFolderThatCannotBeWrittenIsToldOnceAndSaidOnce() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("seen-blocked-\(UUID().uuidString)")
        try Data("a file where the state folder should be".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let store = SeenStore(feedKey: "f", environment: ["XDG_STATE_HOME": blocker.path], delay: .milliseconds(1))
        final class Told: @unchecked Sendable {
            // @unchecked Sendable: `reasons` is touched only under `lock`.
            let lock = NSLock()
            var reasons: [String] = []
        }
        let told = Told()
        store.onWriteFailure = { reason in told.lock.withLock { told.reasons.append(reason) } }
        store.save(SeenState(items: ["s": ["a"]]))
        store.flush()
        store.save(SeenState(items: ["s": ["a", "b"]]))
        store.flush()
        let reasons = told.lock.withLock { told.reasons }
        #expect(reasons.count == 1 && reasons.first?.hasSuffix("/stories: Not a directory") == true, "\(reasons)")
        #expect(store.lastError != nil)

        let now = Moment(uptime: 100, date: Date(timeIntervalSince1970: 1_795_197_600))
        var app = AppState(title: "Test", now: now)
        let failure = WriteFailure(.seenState, path: store.file.path, reason: reasons.first ?? "")
        _ = AppReducer.reduce(&app, .writeFailed(failure), at: now)
        _ = AppReducer.reduce(&app, .writeFailed(failure), at: now)
        #expect(app.feed.warnings.filter { $0.message.hasPrefix("What you watch is not kept for next time: seen state ") }.count == 1)
        #expect(app.chrome.failedWrites == [failure] && app.chrome.notice == "⚠ " + failure.line)
    }

    /// A seen file that cannot be opened the safe way (here a link) is said with why and left
    /// where it is; only one that opens and is not a seen state is moved aside.
    @Test func aFileThatCannotBeOpenedIsSaidAndLeft() throws {
        let target = state.appendingPathComponent("elsewhere.json")
        try FileManager.default.createDirectory(at: state.appendingPathComponent("stories"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        try Data("{}".utf8).write(to: target)
        let linked = store()
        try FileManager.default.createSymbolicLink(atPath: linked.file.path, withDestinationPath: target.path)
        let loaded = linked.load()
        #expect(loaded.warning?.message.contains("is a symbolic link, which is not followed; starting clean, the file is left as it is") == true,
                "\(String(describing: loaded.warning))")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: linked.file.path)) == target.path, "left where it is")
    }
}
