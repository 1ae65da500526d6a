import Foundation
import Hummingbird
import HummingbirdTesting
import StoriesAssets
import StoriesCore
@testable import StoriesHTTP
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 34, point 2: the app's side of seen state on a server — `SeenSync` against the real
/// server on loopback, as two terminals of one viewer.
@Suite(.ownThread) struct SeenSyncTests {
    /// What a sync said and what arrived through it.
    final class Heard: @unchecked Sendable {
        // `lock` guards both.
        private let lock = NSLock()
        private var states: [SeenState] = []
        private var lines: [String?] = []
        func arrived(_ state: SeenState) { lock.withLock { states.append(state) } }
        func said(_ line: String?) { lock.withLock { lines.append(line) } }
        var merged: SeenState { lock.withLock { states.reduce(into: SeenState()) { $0.merge($1) } } }
        var problems: [String?] { lock.withLock { lines } }
    }

    static func wait(_ what: String, timeout: Double, _ condition: () throws -> Bool) async throws {
        if try await !AsyncWait.until(timeout, condition) { Issue.record("timed out after \(timeout) s waiting for \(what)") }
    }

    /// The server's log lines (empty until it has one).
    static func log(_ folder: URL) -> [Substring] {
        ((try? String(contentsOf: folder.appendingPathComponent("log.txt"), encoding: .utf8)) ?? "").split(separator: "\n")
    }

    static func seen(_ pairs: [(String, String)], tooltips: Set<String> = []) -> SeenState {
        var items: [StoryID: Set<ItemID>] = [:]
        for (story, item) in pairs { items[story, default: []].insert(item) }
        return SeenState(items: items, tooltips: tooltips)
    }

    @Test(.timed) func whatOneTerminalSeesArrivesAtTheOtherWithinASecond() async throws {
        let setup = try await SeenServerTests.setup(["ayla"])
        let token = try #require(setup.tokens["ayla"])
        try await setup.server.application().test(.live) { client in
            let port = try #require(client.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let one = SeenSync(server: server, authorization: "Bearer " + token, wait: 5)
            let other = SeenSync(server: server, authorization: "Bearer " + token, wait: 5)
            let (heardOne, heardOther) = (Heard(), Heard())
            // The second terminal had seen something the server never heard of: it is sent.
            one.start(local: SeenState(), arrived: heardOne.arrived, problem: heardOne.said)
            other.start(local: Self.seen([("mika", "coffee")]), arrived: heardOther.arrived, problem: heardOther.said)
            try await Self.wait("the first terminal to hear of mika's coffee", timeout: 5) {
                heardOne.merged.isSeen(story: "mika", item: "coffee")
            }
            // Both have had their first answer and wait at the server again; one sees an item.
            try await Self.wait("both terminals' long polls held at the server", timeout: 5) {
                setup.server.seen?.heldPolls == 2
            }
            let watched = Date()
            one.push(Self.seen([("ayla", "astronaut")], tooltips: ["tip-home"]))
            try await Self.wait("the other terminal to hear of it", timeout: 3) {
                heardOther.merged.isSeen(story: "ayla", item: "astronaut")
            }
            let took = Date().timeIntervalSince(watched)
            #expect(took < 1, "arrived \(Int(took * 1000)) ms after it was seen")
            #expect(heardOther.merged.hasShownTooltip("tip-home"))
            // What a terminal saw itself does not come back to it as news of elsewhere, and
            // nothing went wrong to be said.
            let held = await AsyncWait.holds(for: 0.3) { !heardOne.merged.isSeen(story: "ayla", item: "astronaut") }
            #expect(held)
            #expect(heardOne.problems.isEmpty && heardOther.problems.isEmpty, "\(heardOne.problems) \(heardOther.problems)")
            one.finish(timeout: 1)
            other.finish(timeout: 1)
        }
    }

    @Test func aBurstOfItemsGoesOutAtMostOneBatchASecond() async throws {
        let setup = try await SeenServerTests.setup([])
        try await setup.server.application().test(.live) { client in
            let port = try #require(client.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let sync = SeenSync(server: server, authorization: nil, wait: 5)
            let heard = Heard()
            sync.start(local: SeenState(), arrived: heard.arrived, problem: heard.said)
            try await Self.wait("the first pull answered", timeout: 5) { Self.log(setup.folder).contains { $0.contains("GET /v1/seen") } }
            let items = ["astronaut", "ayla-t1", "rocket"].map { ("ayla", $0) } + ["chelsea", "mika-t1", "coffee"].map { ("mika", $0) }
            var state = SeenState()
            let start = Date()
            for (story, item) in items {
                state.markSeen(story: story, item: item)
                sync.push(state)
                await Pace.pause(0.2) // a person's pace through the items
            }
            // Every item reaches the store (waited for: the other suites can hold this
            // process up for a while)…
            var recorded = 0
            try await AsyncWait.until(60, every: 0.1) {
                recorded = try await setup.database.changes(viewer: "", since: 0, limit: 100).entries.count
                return recorded >= 6
            }
            let spent = Date().timeIntervalSince(start)
            #expect(recorded == 6, "every item reached the store")
            // …in no more batches than one a second over the time it took.
            let log = try String(contentsOf: setup.folder.appendingPathComponent("log.txt"), encoding: .utf8)
            let puts = log.split(separator: "\n").filter { $0.contains("PUT /v1/seen 200") }.count
            #expect(puts >= 1 && puts <= Int(spent.rounded(.up)) + 1, "\(puts) batches for six items over \(spent) s")
            sync.finish(timeout: 1)
        }
    }

    @Test func whileTheServerIsAwayNothingIsLostAndItIsSaid() async throws {
        let port = freeLoopbackPort()
        let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let sync = SeenSync(server: server, authorization: nil, wait: 5)
        let heard = Heard()
        sync.start(local: Self.seen([("ayla", "astronaut")]), arrived: heard.arrived, problem: heard.said)
        sync.push(Self.seen([("ayla", "astronaut"), ("ayla", "rocket")]))
        try await Self.wait("a line that says the server is away", timeout: 10) { heard.problems.contains { $0?.contains("cannot reach the server") == true } }

        // The server comes (on that port): what was seen while it was away reaches it.
        let folder = try SeenServerTests.folder()
        let database = try await SQLiteSeenDatabase.open(path: folder.appendingPathComponent("seen.sqlite").path)
        var options = FeedServer.Options()
        options.port = port
        let feedServer = try FeedServer(directory: try #require(DemoFeed.directory), options: options,
                                        logFile: folder.appendingPathComponent("log").path, seenDatabase: database)
        // A child task, so it runs on this test's own thread (an unstructured task would
        // take the cooperative pool, which the other suites can keep busy for minutes).
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await feedServer.application().runService() }
            var recorded: [SeenWire.Entry] = []
            try await AsyncWait.until(40, every: 0.1) {
                recorded = try await database.changes(viewer: "", since: 0, limit: 10).entries
                return recorded.count >= 2
            }
            #expect(Set(recorded.map(\.item)) == ["astronaut", "rocket"])
            try await Self.wait("the line taken back once it works", timeout: 10) { heard.problems.last == .some(nil) }
            sync.finish(timeout: 1)
            group.cancelAll()
        }
        await database.close()
    }

    /// A store that cannot be written (here: read-only) is a 503: the client keeps what it
    /// has, says so, and sends it once the store takes batches again.
    @Test func aStoreThatSays503KeepsTheBatchUntilItCanBeWritten() async throws {
        let setup = try await SeenServerTests.setup([])
        let sqlite = try #require(setup.database as? SQLiteSeenDatabase)
        try await sqlite.execute("PRAGMA query_only = ON")
        try await setup.server.application().test(.live) { client in
            let port = try #require(client.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let sync = SeenSync(server: server, authorization: nil, wait: 5)
            let heard = Heard()
            sync.start(local: Self.seen([]), arrived: heard.arrived, problem: heard.said)
            sync.push(Self.seen([("ayla", "astronaut"), ("mika", "coffee")], tooltips: ["tip-1"]))
            try await Self.wait("a 503 in the log", timeout: 10) {
                ((try? String(contentsOf: setup.folder.appendingPathComponent("log.txt"), encoding: .utf8)) ?? "").contains("PUT /v1/seen 503")
            }
            #expect(try await setup.database.changes(viewer: "", since: 0, limit: 10).entries.isEmpty)
            try await sqlite.execute("PRAGMA query_only = OFF")
            var recorded: SeenWire.Changes?
            try await AsyncWait.until(40, every: 0.1) {
                recorded = try await setup.database.changes(viewer: "", since: 0, limit: 10)
                return recorded?.entries.count ?? 0 >= 2
            }
            #expect(Set(recorded?.entries.map(\.item) ?? []) == ["astronaut", "coffee"] && recorded?.tooltips == ["tip-1"],
                    "the batch refused with 503 arrived once the store could be written")
            sync.finish(timeout: 1)
        }
    }

    @Test func aRefusedTokenStopsSyncingWithOneLine() async throws {
        let setup = try await SeenServerTests.setup(["ayla"])
        try await setup.server.application().test(.live) { client in
            let port = try #require(client.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let sync = SeenSync(server: server, authorization: "Bearer st_not-a-token", wait: 5)
            let heard = Heard()
            sync.start(local: Self.seen([("ayla", "astronaut")]), arrived: heard.arrived, problem: heard.said)
            try await Self.wait("the refusal said", timeout: 5) { heard.problems.contains { $0?.contains("refused this token") == true } }
            // A retry would come within a second and a half.
            let held2 = await AsyncWait.holds(for: 1.5) { Self.log(setup.folder).filter { $0.contains("/v1/seen") }.count <= 1 }
            #expect(held2,
                    "asked once, not again and again: \(Self.log(setup.folder))")
            #expect(Self.log(setup.folder).filter { $0.contains("/v1/seen") }.count == 1)
            sync.finish(timeout: 1)
        }
    }

    /// The threads a sync runs on end once it has finished and is let go (a test run makes
    /// dozens; a terminal that syncs again makes a new one).
    @Test func aFinishedSyncIsLetGoWithItsThreads() async throws {
        // Nothing listens on the port: the pull fails, waits a second and sees the end.
        let port = freeLoopbackPort()
        weak var gone: SeenSync?
        do {
            let sync = SeenSync(server: try #require(URL(string: "http://127.0.0.1:\(port)")), authorization: nil, wait: 1)
            let engine = EngineStandIn()
            engine.sync = sync // the app's engine holds the sync, and the callbacks the engine
            sync.start(local: Self.seen([("ayla", "astronaut")]), arrived: { [engine] in engine.heard($0) }, problem: { [engine] in engine.said($0) })
            await Pace.pause(0.2) // finished while its pull is under way
            sync.finish(timeout: 0.2)
            engine.sync = nil
            gone = sync
        }
        try await Self.wait("the finished sync let go", timeout: 10) { gone == nil }
    }

    /// What an engine is to a sync: it holds the sync, and the sync's callbacks hold it.
    final class EngineStandIn: @unchecked Sendable {
        // Touched by the test alone, before and after the sync runs.
        var sync: SeenSync?
        func heard(_ state: SeenState) {}
        func said(_ line: String?) {}
    }

    /// A worker's thread ends when the worker is gone and its jobs have run.
    @Test func aWorkerThreadEndsWhenTheWorkerIsGone() async throws {
        let name = "w-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        func running() -> Bool {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.contains { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true }
        }
        let ran = Ran()
        do {
            let worker = Worker(name: name)
            worker.asyncAfter(deadline: .now() + .milliseconds(300)) { ran.mark() } // timing: the worker's own API under test
            #expect(worker.sync { 7 } == 7)
            // Bounds for a loaded run (a full suite has kept this test waiting minutes): the
            // conditions are what is checked, not how soon.
            try await Self.wait("the worker's thread named in /proc", timeout: 30) { running() }
            // Kept until here: after its last use the worker may go at once, and its thread
            // with it once the job due at 300 ms has run — before a loaded machine looked.
            withExtendedLifetime(worker) {}
        }
        try await Self.wait("the job due after the worker went", timeout: 30) { ran.marked }
        try await Self.wait("the worker's thread ended", timeout: 30) { !running() }
    }

    /// `lock` guards `done`.
    final class Ran: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func mark() { lock.withLock { done = true } }
        var marked: Bool { lock.withLock { done } }
    }
}
