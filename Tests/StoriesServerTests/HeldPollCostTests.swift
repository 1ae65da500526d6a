import Foundation
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 51: what a held poll costs the store. A wait that runs out with nothing announced
/// asks the store once (when it arrives), not again at its end; long waits end spread out.
@Suite struct HeldPollCostTests {
    /// A store that counts the reads of changes. `@unchecked Sendable`: `reads` only under `lock`.
    final class Counting: SeenDatabase, @unchecked Sendable {
        let inner: any SeenDatabase
        private let lock = NSLock()
        private var reads = 0
        init(_ inner: any SeenDatabase) { self.inner = inner }
        var count: Int { lock.withLock { reads } }
        var place: String { inner.place }
        func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64 {
            try await inner.record(viewer: viewer, entries: entries, tooltips: tooltips)
        }
        func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenWire.Changes {
            lock.withLock { reads += 1 }
            return try await inner.changes(viewer: viewer, since: since, limit: limit)
        }
        func counter(viewer: String) async throws(SeenStoreFailure) -> Int64 { try await inner.counter(viewer: viewer) }
        func everything(viewer: String) async throws(SeenStoreFailure) -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>) {
            try await inner.everything(viewer: viewer)
        }
        func schemaVersion() async throws(SeenStoreFailure) -> Int { try await inner.schemaVersion() }
        func close() async { await inner.close() }
    }

    @Test func aQuietWaitAsksTheStoreOnceAndAWokenOneAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = Counting(try await SQLiteSeenDatabase.open(path: folder.appendingPathComponent("seen.sqlite").path))
        let api = SeenAPI(database: store, catalog: { ids in Dictionary(uniqueKeysWithValues: ids.map { ($0, ["1"]) }) })
        let ayla = Viewers.Viewer(name: "ayla")
        let quiet = await api.respond(method: "GET", query: ["since": "0", "wait": "0.3"], body: Data(), viewer: ayla)
        #expect(quiet.status == 200 && String(decoding: quiet.body, as: UTF8.self).contains(#""next":0"#))
        #expect(store.count == 1, "asked when the poll arrived, not again at its end: \(store.count)")
        // Woken by a batch: asked again, and the batch is in the answer.
        async let woken = api.respond(method: "GET", query: ["since": "0", "wait": "5"], body: Data(), viewer: ayla)
        let held = await AsyncWait.until(5) { api.heldPolls == 1 }
        #expect(held)
        let batch = await api.respond(method: "PUT", query: [:], body: Data(#"{"version":1,"seen":[{"story":"a","item":"1"}]}"#.utf8), viewer: ayla)
        #expect(batch.status == 200)
        let answer = await woken
        #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self).contains(#""item":"1""#) && store.count == 3)
        await store.close()
    }

    @Test func longWaitsEndInTheirLastFifth() {
        #expect(SeenAPI.spread(30, 0) == 24 && SeenAPI.spread(30, 1) == 30 && SeenAPI.spread(30, 0.5) == 27)
        #expect(SeenAPI.spread(5, 0) == 5 && SeenAPI.spread(0, 0.3) == 0)
        #expect(SeenAPI.spread(30, 7) == 30 && SeenAPI.spread(30, -1) == 24)
    }
}
