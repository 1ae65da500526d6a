import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLiteNIO
import StoriesAssets
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 34, points 1, 2, 4 and 6: viewers' seen state on the real server over loopback,
/// kept in a real SQLite file and in a real PostgreSQL server (the tests that do not depend
/// on SQLite's own ways run on both).
@Suite(.ownThread) struct SeenServerTests {
    struct Setup {
        let server: FeedServer
        let database: any SeenDatabase
        let tokens: [String: String]
        let folder: URL
    }

    enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A new empty store: an SQLite file in `folder`, or a new database on the test's
    /// PostgreSQL server.
    static func store(_ kind: Store, folder: URL) async throws -> any SeenDatabase {
        switch kind {
        case .sqlite: return try await SQLiteSeenDatabase.open(path: folder.appendingPathComponent("seen.sqlite").path)
        case .postgres:
            let postgres = try TestPostgres.shared()
            return try await PostgresSeenDatabase.open(try PostgresSeenDatabase.Address.parse(postgres.url(try postgres.database())))
        }
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seen-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A server of the demo feed with viewers `names` (none: open) and its store in `folder`.
    static func setup(_ names: [String] = ["ayla", "bo"], folder given: URL? = nil, store: Store = .sqlite, database givenDatabase: (any SeenDatabase)? = nil) async throws -> Setup {
        let folder = try given ?? Self.folder()
        var tokens: [String: String] = [:]
        var options = FeedServer.Options()
        options.port = 0
        if !names.isEmpty {
            let file = folder.appendingPathComponent("viewers.txt").path
            if !FileManager.default.fileExists(atPath: file) {
                for name in names { tokens[name] = try Viewers.add(name: name, to: file) }
            }
            options.viewers = try Viewers.load(file)
        }
        let database: any SeenDatabase
        if let givenDatabase { database = givenDatabase } else { database = try await Self.store(store, folder: folder) }
        let log = folder.appendingPathComponent("log.txt").path
        let server = try FeedServer(directory: try #require(DemoFeed.directory), options: options, logFile: log, seenDatabase: database)
        return Setup(server: server, database: database, tokens: tokens, folder: folder)
    }

    static func auth(_ token: String?) -> HTTPFields {
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        return fields
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    static func batch(_ pairs: [(String, String)], at: Int64? = nil, tooltips: [String] = []) -> ByteBuffer {
        ByteBuffer(data: SeenWire.batch(.init(entries: pairs.map { .init(story: $0.0, item: $0.1, at: at) }, tooltips: tooltips)))
    }

    @Test(arguments: Store.allCases) func aWrongOrMissingTokenIsOneAnswerThatNamesNoOne(store: Store) async throws {
        let setup = try await Self.setup(store: store)
        let ayla = try #require(setup.tokens["ayla"])
        try await setup.server.application().test(.live) { client in
            var bodies: Set<String> = []
            for (uri, token) in [("/v1/feed", nil), ("/v1/feed", "st_nobody"), ("/v1/seen", nil), ("/v1/seen", ayla + "0"),
                                 ("/v1/media/media/chelsea.jpg", "Basic x"), ("/v1/stories/ayla", String(ayla.dropLast()))] {
                let answer = try await client.execute(uri: uri, method: .get, headers: Self.auth(token))
                #expect(answer.status == .unauthorized, "\(uri) \(token ?? "no token")")
                #expect(answer.headers[.wwwAuthenticate] == #"Bearer realm="stories""#)
                bodies.insert(String(buffer: answer.body))
            }
            #expect(bodies.count == 1, "the same answer whatever was wrong: \(bodies)")
            #expect(bodies.first?.contains(#""status":401"#) == true && bodies.first?.contains("ayla") == false)
            // The right token: the feed, private to the viewer.
            let page = try await client.execute(uri: "/v1/feed?limit=2", method: .get, headers: Self.auth(ayla))
            #expect(page.status == .ok)
            #expect(page.headers[.cacheControl] == "private, no-cache")
            #expect(page.headers[.vary] == "Accept-Encoding, Authorization")
            let media = try await client.execute(uri: "/v1/media/media/chelsea.jpg", method: .get, headers: Self.auth(ayla))
            #expect(media.status == .ok && media.headers[.cacheControl] == "private, max-age=86400" && media.headers[.vary] == "Authorization")
        }
        // The token is in no log line.
        let log = try String(contentsOf: setup.folder.appendingPathComponent("log.txt"), encoding: .utf8)
        #expect(!log.contains(ayla.dropFirst(3).prefix(16)) && log.contains("401"), "\(log)")
    }

    @Test(arguments: Store.allCases) func oneViewerNeverSeesOrChangesAnothersState(store: Store) async throws {
        let setup = try await Self.setup(store: store)
        let ayla = try #require(setup.tokens["ayla"]), bo = try #require(setup.tokens["bo"])
        try await setup.server.application().test(.live) { client in
            let put = try await client.execute(uri: "/v1/seen", method: .put, headers: Self.auth(ayla),
                                               body: Self.batch([("ayla", "astronaut"), ("mika", "chelsea")], tooltips: ["tip-1"]))
            #expect(put.status == .ok)
            let receipt = try Self.json(put.body)
            #expect(receipt["recorded"] as? Int == 2 && receipt["next"] as? Int == 1)
            #expect(put.headers[.cacheControl] == "private, no-store")

            let mine = try Self.json(try await client.execute(uri: "/v1/seen?since=0", method: .get, headers: Self.auth(ayla)).body)
            #expect((mine["seen"] as? [[String: Any]])?.count == 2 && (mine["tooltips"] as? [String]) == ["tip-1"])
            // Bo sees nothing of Ayla's, whatever he asks; a body naming her changes only his.
            let theirs = try Self.json(try await client.execute(uri: "/v1/seen?since=0", method: .get, headers: Self.auth(bo)).body)
            #expect((theirs["seen"] as? [Any])?.isEmpty == true && theirs["next"] as? Int == 0)
            let forged = try await client.execute(uri: "/v1/seen?viewer=ayla", method: .put, headers: Self.auth(bo),
                                                  body: ByteBuffer(string: #"{"version":1,"viewer":"ayla","seen":[{"story":"ayla","item":"rocket"}]}"#))
            #expect(forged.status == .ok)
            let after = try Self.json(try await client.execute(uri: "/v1/seen?since=0", method: .get, headers: Self.auth(ayla)).body)
            let items = (after["seen"] as? [[String: Any]])?.compactMap { $0["item"] as? String } ?? []
            #expect(Set(items) == ["astronaut", "chelsea"], "Bo's batch is Bo's: \(items)")
        }
    }

    @Test(arguments: Store.allCases) func aBatchIsIdempotentCheckedAgainstTheFeedAndItsClockBounded(store: Store) async throws {
        let setup = try await Self.setup([], store: store)
        try await setup.server.application().test(.live) { client in
            let first = try await client.execute(uri: "/v1/seen", method: .put, body: Self.batch([("ayla", "astronaut"), ("ayla", "rocket")], at: 1_700_000_000))
            #expect(try Self.json(first.body)["next"] as? Int == 1)
            // Sent again (a retry whose answer was lost): nothing new for anyone.
            let again = try await client.execute(uri: "/v1/seen", method: .put, body: Self.batch([("ayla", "astronaut"), ("ayla", "rocket")], at: 1_800_000_000))
            #expect(again.status == .ok)
            let changes = try Self.json(try await client.execute(uri: "/v1/seen?since=1", method: .get).body)
            #expect((changes["seen"] as? [Any])?.isEmpty == true && changes["next"] as? Int == 2)
            let all = try Self.json(try await client.execute(uri: "/v1/seen", method: .get).body)
            let times = (all["seen"] as? [[String: Any]])?.compactMap { $0["at"] as? Int } ?? []
            #expect(times == [1_700_000_000, 1_700_000_000], "the first time an item was seen is kept: \(times)")

            // Unknown stories and items: left out, each said; the rest kept.
            let mixed = try await client.execute(uri: "/v1/seen", method: .put,
                                                 body: Self.batch([("nobody", "x"), ("mika", "no-such-item"), ("mika", "coffee")], at: 99_999_999_999))
            let receipt = try Self.json(mixed.body)
            #expect(receipt["recorded"] as? Int == 1)
            let reasons = (receipt["ignored"] as? [[String: Any]])?.compactMap { $0["reason"] as? String } ?? []
            #expect(reasons == ["no story 'nobody' in this feed", "story 'mika' has no item 'no-such-item'"])
            // A clock far in the future is taken as the server's now.
            let latest = try Self.json(try await client.execute(uri: "/v1/seen?since=2", method: .get).body)
            let at = (latest["seen"] as? [[String: Any]])?.first?["at"] as? Int ?? 0
            #expect(abs(at - Int(Date().timeIntervalSince1970)) < 60, "\(at)")
        }
    }

    @Test(arguments: Store.allCases) func malformedAndEnormousBatchesAreClearErrorsAndChangeNothing(store: Store) async throws {
        let setup = try await Self.setup([], store: store)
        try await setup.server.application().test(.live) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("{", .badRequest, "not valid JSON at line 1"),
                ("[]", .badRequest, "expected an object"),
                (#"{"version":1,"seen":[{"story":"../x","item":"a"}]}"#, .badRequest, "seen[0].story"),
                (#"{"version":1,"seen":[{"story":"ayla"}]}"#, .badRequest, "seen[0].item"),
                (#"{"version":1,"seen":[{"story":"ayla","item":"astronaut","at":-5}]}"#, .badRequest, "seen[0].at"),
                (#"{"version":1,"seen":[{"story":"ayla","item":"astronaut","at":1e300}]}"#, .badRequest, "seen[0].at"),
                (#"{"version":1,"seen":"all"}"#, .badRequest, "seen"),
                (#"{"version":1,"tooltips":[""]}"#, .badRequest, "tooltips[0]"),
                ("{\"version\":1,\"seen\":[" + Array(repeating: #"{"story":"ayla","item":"rocket"}"#, count: 1001).joined(separator: ",") + "]}", .contentTooLarge, "1001 items is more than the 1000"),
                (String(repeating: " ", count: SeenWire.maxBatchBytes + 10), .contentTooLarge, "a batch may be at most 512 KB"),
                (String(repeating: "[", count: 200), .badRequest, "nested more than"),
                // The version, checked as every document's: missing, another, not a number.
                (#"{"seen":[{"story":"ayla","item":"astronaut"}]}"#, .badRequest, "PUT /v1/seen: version: missing; this build reads version 1"),
                (#"{"version":2,"seen":[{"story":"ayla","item":"astronaut"}]}"#, .badRequest, "version: unsupported version 2; this build reads version 1"),
                (#"{"version":"1","seen":[{"story":"ayla","item":"astronaut"}]}"#, .badRequest, "version: expected a number, found a string"),
                (#"{"version":1.5,"seen":[{"story":"ayla","item":"astronaut"}]}"#, .badRequest, "version: unsupported version 1.5"),
            ]
            for (body, status, said) in cases {
                let answer = try await client.execute(uri: "/v1/seen", method: .put, body: ByteBuffer(string: body))
                #expect(answer.status == status, "\(body.prefix(60))")
                #expect(String(buffer: answer.body).contains(said), "\(body.prefix(60)): \(String(buffer: answer.body))")
            }
            let state = try Self.json(try await client.execute(uri: "/v1/seen", method: .get).body)
            #expect((state["seen"] as? [Any])?.isEmpty == true && state["next"] as? Int == 0)
            for query in ["since=-1", "since=abc", "since=99999999999999999999", "wait=-1", "wait=nan", "wait=inf"] {
                let answer = try await client.execute(uri: "/v1/seen?\(query)", method: .get)
                #expect(answer.status == .badRequest, "\(query)")
            }
            let deleted = try await client.execute(uri: "/v1/seen", method: .delete)
            #expect(deleted.status == .methodNotAllowed)
        }
    }

    @Test(.timed, arguments: Store.allCases) func aWaitingAskIsAnsweredAsSoonAsABatchComes(store: Store) async throws {
        let setup = try await Self.setup(["ayla", "bo"], store: store)
        let ayla = try #require(setup.tokens["ayla"]), bo = try #require(setup.tokens["bo"])
        // AsyncHTTPClient's pool: the waiting ask and the batches on connections of their own.
        try await setup.server.application().test(.ahc()) { client in
            async let waited = client.execute(uri: "/v1/seen?since=0&wait=20", method: .get, headers: Self.auth(ayla))
            let held = await AsyncWait.until(10) { setup.server.seen?.heldPolls == 1 }
            #expect(held, "Ayla's ask waits at the server")
            // Another viewer's batch wakes no one of Ayla's.
            _ = try await client.execute(uri: "/v1/seen", method: .put, headers: Self.auth(bo), body: Self.batch([("ayla", "rocket")]))
            let held2 = await AsyncWait.holds(for: 0.3) { setup.server.seen?.heldPolls == 1 }
            #expect(held2, "still waiting after Bo's batch")
            _ = try await client.execute(uri: "/v1/seen", method: .put, headers: Self.auth(ayla), body: Self.batch([("ayla", "astronaut")]))
            // From the batch's acknowledgement (it is committed then): how fast a request
            // is answered on a machine busy with the rest of the suite is the benchmark's.
            let recorded = ContinuousClock.now
            let answer = try await waited
            let late = ContinuousClock.now - recorded
            #expect(late < .milliseconds(500), "answered \(late) after the batch was acknowledged")
            let changes = try Self.json(answer.body)
            #expect((changes["seen"] as? [[String: Any]])?.compactMap { $0["item"] as? String } == ["astronaut"])
            // Nothing new: a short wait ends empty, with the same next.
            let start = ContinuousClock.now
            let empty = try Self.json(try await client.execute(uri: "/v1/seen?since=1&wait=0.3", method: .get, headers: Self.auth(ayla)).body)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect((empty["seen"] as? [Any])?.isEmpty == true && empty["next"] as? Int == 1)
        }
    }

    @Test func theStoreOutlivesTheServerAndRefusesWhatIsNotItsOwn() async throws {
        let folder = try Self.folder()
        var setup: Setup? = try await Self.setup(["ayla"], folder: folder)
        let ayla = try #require(setup?.tokens["ayla"])
        try await setup?.server.application().test(.live) { client in
            _ = try await client.execute(uri: "/v1/seen", method: .put, headers: Self.auth(ayla), body: Self.batch([("ayla", "astronaut")]))
        }
        #expect(try await setup?.database.schemaVersion() == SeenSchema.latest)
        await setup?.database.close()
        setup = nil
        let again = try await Self.setup(["ayla"], folder: folder)
        try await again.server.application().test(.live) { client in
            let state = try Self.json(try await client.execute(uri: "/v1/seen", method: .get, headers: Self.auth(ayla)).body)
            #expect((state["seen"] as? [[String: Any]])?.first?["item"] as? String == "astronaut")
        }
        await again.database.close()
        // WAL on, the version recorded.
        let wal = FileManager.default.fileExists(atPath: folder.appendingPathComponent("seen.sqlite-wal").path)
            || FileManager.default.fileExists(atPath: folder.appendingPathComponent("seen.sqlite").path)
        #expect(wal)

        // Not a file of ours: an SQLite database of something else, a link, a folder, junk.
        let other = folder.appendingPathComponent("other.sqlite").path
        let foreign = try await SQLiteSeenDatabase.open(path: other)
        await foreign.close()
        try FileManager.default.removeItem(atPath: other)
        let plain = try await SQLiteNIOHelper.make(other, "CREATE TABLE notes (text TEXT)")
        _ = plain
        await #expect { try await SQLiteSeenDatabase.open(path: other) } throws: { "\($0)".contains("an SQLite database of something else") }
        let junk = folder.appendingPathComponent("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: junk)
        await #expect { try await SQLiteSeenDatabase.open(path: junk.path) } throws: { "\($0)".contains("not a working SQLite database") }
        let link = folder.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.appendingPathComponent("seen.sqlite").path)
        await #expect { try await SQLiteSeenDatabase.open(path: link.path) } throws: { "\($0)".contains("not a file") }
        await #expect { try await SQLiteSeenDatabase.open(path: folder.path) } throws: { "\($0)".contains("not a file") }
    }

    /// A full disk (SQLite's own page limit, which fails as a full disk does), a read-only
    /// store, a store file deleted under the server: each a 503 that says why, nothing
    /// recorded, and the server takes batches again once the store can be written.
    @Test func aStoreThatCannotBeWrittenIs503AndTheServerRecovers() async throws {
        let setup = try await Self.setup([])
        let sqlite = try #require(setup.database as? SQLiteSeenDatabase)
        try await setup.server.application().test(.live) { client in
            _ = try await client.execute(uri: "/v1/seen", method: .put, body: Self.batch([("ayla", "astronaut")]))
            func refused(_ said: String) async throws {
                // With a hundred long tooltips: more than the free room of the pages there are.
                let tooltips = (0..<100).map { "tip-\($0)-" + String(repeating: "x", count: 100) }
                let answer = try await client.execute(uri: "/v1/seen", method: .put,
                                                      body: Self.batch([("ayla", "rocket"), ("mika", "coffee")], tooltips: tooltips))
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.headers[.retryAfter] == "2")
                #expect(String(buffer: answer.body).contains("the seen store cannot be used now: \(said)"), "\(String(buffer: answer.body))")
            }
            func recorded() async throws -> Int {
                let state = try Self.json(try await client.execute(uri: "/v1/seen", method: .get).body)
                #expect((state["tooltips"] as? [Any])?.isEmpty == true)
                return (state["seen"] as? [Any])?.count ?? -1
            }
            // SQLite takes a limit below the pages there are as the pages there are.
            try await sqlite.execute("PRAGMA max_page_count = 1")
            try await refused("the disk is full")
            try await sqlite.execute("PRAGMA max_page_count = 1073741823")
            #expect(try await recorded() == 1, "nothing of the refused batch was kept")
            try await sqlite.execute("PRAGMA query_only = ON")
            try await refused("the database is read-only")
            try await sqlite.execute("PRAGMA query_only = OFF")
            let back = try await client.execute(uri: "/v1/seen", method: .put, body: Self.batch([("ayla", "rocket"), ("mika", "coffee")]))
            #expect(back.status == .ok)
            #expect(try await recorded() == 3)

            // Moved away under the server: said, not written into a file no one reads; put
            // back, opened again with everything in it.
            let file = setup.folder.appendingPathComponent("seen.sqlite")
            let aside = setup.folder.appendingPathComponent("aside.sqlite")
            try FileManager.default.moveItem(at: file, to: aside)
            try await refused("the store file \(file.path) is gone")
            let asked = try await client.execute(uri: "/v1/seen", method: .get)
            #expect(asked.status == .serviceUnavailable)
            try FileManager.default.moveItem(at: aside, to: file)
            #expect(try await recorded() == 3)
        }
    }

}

/// Makes an SQLite file of someone else's (a table that is not ours).
enum SQLiteNIOHelper {
    static func make(_ path: String, _ statement: String) async throws -> Bool {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query(statement, [])
        try await connection.close()
        return true
    }
}
