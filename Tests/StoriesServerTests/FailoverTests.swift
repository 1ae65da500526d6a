import Foundation
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 51, point 2: a store given a primary and its standby writes to the standby once it
/// is promoted.
@Suite(.ownThread) struct FailoverTests {
    typealias Address = PostgresSeenDatabase.Address

    @Test func anAddressMayNameSeveralHostsAsLibpqReadsIt() throws {
        let address = try Address.parse("postgres://ayla:pw@db1:5433,db2,[::1]:6000/stories?target_session_attrs=read-write&sslmode=disable", environment: [:])
        #expect(address.endpoints == [.init(host: "db1", port: 5433), .init(host: "db2", port: 5432), .init(host: "::1", port: 6000)])
        #expect(address.host == "db1" && address.port == 5433 && address.readWrite && address.password == "pw" && address.tls == "disable")
        #expect(address.shown == "postgres://ayla@db1:5433,db2:5432,[::1]:6000/stories?target_session_attrs=read-write")
        #expect(address.at(2).host == "::1" && address.at(2).port == 6000)
        #expect(try Address.parse("postgres://db1,db2/x", environment: [:]).readWrite == false)
        #expect(try Address.parse("postgres://db/x?target_session_attrs=primary", environment: [:]).readWrite)
        let single = try Address.parse("postgres://u@db/x", environment: [:])
        #expect(single.hosts.isEmpty && single.endpoints.count == 1 && single.shown == "postgres://u@db:5432/x")
        let refused: [(String, String)] = [
            ("postgres://db1,,db2/x", "an empty or unreadable host"),
            ("postgres://db1,/x", "an empty or unreadable host"),
            ("postgres://db1,db2:0/x", "port 0 is not"),
            ("postgres://" + (1...9).map { "h\($0)" }.joined(separator: ",") + "/x", "more than 8 hosts"),
            ("postgres://db1,db2/x?target_session_attrs=standby", "target_session_attrs is any, read-write or primary"),
            ("postgres://db1:abc/x", "port 'abc' is not a number"),
            ("postgres://db1:-5/x", "port '-5' is not a number"),
            ("postgres://db1:/x", "port '' is not a number"),
            ("postgres://db1,[::1]:x/x", "port 'x' is not a number"),
            ("postgres://::1:1/x", "an IPv6 address goes in brackets"),
        ]
        for (text, said) in refused {
            #expect { try Address.parse(text, environment: [:]) } throws: { "\($0)".contains(said) }
        }
    }

    /// The first host that answers is written to; with none, the start says why of each.
    @Test func theFirstHostThatAnswersIsWrittenTo() async throws {
        let primary = try TestPostgres.shared()
        let closed = freeLoopbackPort()
        let address = try Address.parse("postgres://postgres@127.0.0.1:\(closed),127.0.0.1:\(primary.port)/postgres?sslmode=disable", environment: [:])
        let store = try await PostgresSeenDatabase.open(address)
        #expect(store.primary.here.port == primary.port, "the first host that answers")
        await store.close()
        let other = freeLoopbackPort()
        let neither = try Address.parse("postgres://postgres@127.0.0.1:\(closed),127.0.0.1:\(other)/postgres?sslmode=disable", environment: [:])
        await #expect { try await PostgresSeenDatabase.open(neither) } throws: {
            "\($0)" == "seen store postgres://postgres@127.0.0.1:\(closed),127.0.0.1:\(other)/postgres: no host to write to: "
                + "127.0.0.1:\(closed): cannot reach PostgreSQL at 127.0.0.1:\(closed); 127.0.0.1:\(other): cannot reach PostgreSQL at 127.0.0.1:\(other)"
        }
    }

    @Test func aStoreFindsThePromotedStandby() async throws {
        let primary = try TestPostgres()
        defer { primary.finish() }
        let standby = try TestPostgres(standbyOf: primary)
        defer { standby.finish() }
        try #require(primary.requireSynchronousStandby())
        let name = try primary.database()
        let address = try PostgresSeenDatabase.Address.parse("postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(name)?sslmode=disable&target_session_attrs=read-write")
        #expect(address.endpoints.count == 2 && address.readWrite)
        let store = try await PostgresSeenDatabase.open(address)
        _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "ayla", item: "rocket", at: 1_000_000_000)], tooltips: ["one"])
        primary.stop(kill: true)
        _ = try? await store.record(viewer: "ayla", entries: [], tooltips: ["lost?"])
        #expect(standby.promote().status == 0)
        let recorded = await AsyncWait.until(30, every: 0.2) {
            (try? await store.record(viewer: "ayla", entries: [], tooltips: ["two"])) != nil
        }
        #expect(recorded && store.primary.changes == 1)
        let everything = try await store.everything(viewer: "ayla")
        #expect(everything.tooltips.isSuperset(of: ["one", "two"]))
        await store.close()
    }
}

/// Issue 51: PostgreSQL's changes in one statement answer as SQLite's store does, a page cut
/// between batches included.
@Suite(.ownThread) struct PostgresChangesTests {
    @Test func changesAnswerAsSQLitesDo() async throws {
        let postgres = try TestPostgres.shared()
        let pg = try await PostgresSeenDatabase.open(try PostgresSeenDatabase.Address.parse(postgres.url(try postgres.database())))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try await SQLiteSeenDatabase.open(path: folder.appendingPathComponent("seen.sqlite").path)
        let stores: [any SeenDatabase] = [pg, sqlite]
        for store in stores {
            _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "a", item: "1", at: 10), SeenEntry(story: "a", item: "2", at: 11)], tooltips: ["one"])
            _ = try await store.record(viewer: "bo", entries: [SeenEntry(story: "a", item: "1", at: 12)], tooltips: [])
            _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "b", item: "1", at: 13), SeenEntry(story: "b", item: "2", at: 14)], tooltips: ["two"])
            _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "c", item: "1", at: 15)], tooltips: ["three", "four"])
        }
        for (since, limit) in [(0, 100), (0, 3), (0, 2), (0, 1), (1, 2), (2, 10), (3, 10), (9, 10)] as [(Int64, Int)] {
            var answers: [SeenWire.Changes] = []
            for store in stores { answers.append(try await store.changes(viewer: "ayla", since: since, limit: limit)) }
            #expect(answers[0] == answers[1], "since \(since), limit \(limit): PostgreSQL \(answers[0]) against SQLite \(answers[1])")
        }
        #expect(try await pg.changes(viewer: "nobody", since: 0, limit: 10) == SeenWire.Changes(entries: [], tooltips: [], next: 0, more: false))
        await pg.close()
        await sqlite.close()
    }
}
