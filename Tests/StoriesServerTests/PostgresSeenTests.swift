import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOSSL
import StoriesAssets
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 34, points 4, 5 and 6 on PostgreSQL (Debian's server, started by the test on
/// loopback in a folder of its own): migrations, replicas that wake each other's waits, and
/// a database that is full, read-only or gone.
@Suite(.ownThread) struct PostgresSeenTests {
    typealias Address = PostgresSeenDatabase.Address

    static func open(_ url: String) async throws -> PostgresSeenDatabase {
        try await PostgresSeenDatabase.open(try Address.parse(url))
    }

    @Test func anAddressIsCheckedAndItsPasswordNeverShown() throws {
        let address = try Address.parse("postgres://ayla:s3cret@db.example:6543/stories?sslmode=require", environment: [:])
        #expect(address == Address(host: "db.example", port: 6543, user: "ayla", password: "s3cret", database: "stories", tls: "require"))
        #expect(address.shown == "postgres://ayla@db.example:6543/stories")
        #expect(try Address.parse("postgresql://db/x", environment: ["PGPASSWORD": "pw", "USER": "bo"]).password == "pw")
        #expect(try Address.parse("postgresql://db/x", environment: ["USER": "bo"]).user == "bo")
        let refused: [(String, String)] = [
            ("mysql://db/x", "not a postgres:// address"),
            ("postgres:///x", "no host"),
            ("postgres://db", "no database name"),
            ("postgres://db/", "no database name"),
            ("postgres://db:0/x", "port 0 is not"),
            ("postgres://db/x?sslmode=maybe", "sslmode is one of"),
            ("postgres://db/x?options=-c%20x", "'options' is not understood"),
            ("postgres://db/" + String(repeating: "x", count: 1100), "longer than 1024"),
        ]
        for (text, said) in refused {
            #expect { try Address.parse(text, environment: [:]) } throws: { "\($0)".contains(said) && !"\($0)".contains("s3cret") }
        }
        // What each sslmode asks of the connections (the pool's and the listening one alike).
        func settings(_ mode: String) throws -> (required: Bool, verifies: Bool)? {
            try Address.parse("postgres://db/x?sslmode=\(mode)", environment: [:]).tlsSettings
                .map { ($0.required, $0.configuration.certificateVerification == .fullVerification) }
        }
        #expect(try settings("disable") == nil)
        #expect(try settings("prefer").map { !$0.required && !$0.verifies } == true)
        #expect(try settings("require").map { $0.required && !$0.verifies } == true)
        #expect(try settings("verify-full").map { $0.required && $0.verifies } == true)
        #expect(try Address.parse("postgres://db/x", environment: [:]).tls == "prefer")
    }

    /// The same steps as SQLite's, taken once however many replicas start together; a
    /// database of something else or of a newer stories is refused and left as it was.
    @Test func migrationsAreTakenOnceAndRefuseWhatIsNotTheirs() async throws {
        let postgres = try TestPostgres.shared()
        let name = try postgres.database()
        // Four replicas starting at once.
        let stores = try await withThrowingTaskGroup(of: PostgresSeenDatabase.self) { group in
            for _ in 0..<4 { group.addTask { try await Self.open(postgres.url(name)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for store in stores { #expect(try await store.schemaVersion() == SeenSchema.latest) }
        #expect(postgres.psql(name, "SELECT count(*) FROM stories_schema").output.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(postgres.psql(name, "SELECT data_type FROM information_schema.columns WHERE table_name = 'seen' AND column_name = 'seen_at'").output
            .contains("bigint"))
        for store in stores { await store.close() }

        let foreign = try postgres.database()
        postgres.psql(foreign, "CREATE TABLE seen (what TEXT)")
        await #expect { try await Self.open(postgres.url(foreign)) } throws: { "\($0)".contains("tables named seen of something else") }
        #expect(postgres.psql(foreign, "SELECT count(*) FROM pg_tables WHERE tablename = 'stories_schema'").output.hasPrefix("0"))

        postgres.psql(name, "UPDATE stories_schema SET version = 99")
        await #expect { try await Self.open(postgres.url(name)) } throws: { "\($0)".contains("schema version 99, newer than this server's") }

        await #expect { try await Self.open(postgres.url("nowhere")) } throws: { "\($0)".contains("there is no database 'nowhere'") }
        let closed = "postgres://postgres@127.0.0.1:\(freeLoopbackPort())/x?sslmode=disable"
        await #expect { try await Self.open(closed) } throws: { "\($0)".contains("cannot reach PostgreSQL at 127.0.0.1") }
    }

    /// `sslmode` against a server offering TLS with a certificate signed by itself: require
    /// and prefer talk TLS on every connection (the pool's and the listening one, as the
    /// server itself counts them), disable does not; verify-full refuses the certificate at
    /// start and says why, and takes it when `sslrootcert` names it.
    @Test func sslmodesMeetAServerThatOffersTLS() async throws {
        let postgres = try TestPostgres.shared()
        /// The store's connections to `name`, with TLS and without (once there are `atLeast`).
        func connections(_ name: String, atLeast: Int) async throws -> (tls: Int, plain: Int) {
            var counts = (tls: 0, plain: 0)
            await AsyncWait.until(15, every: 0.05) {
                let said = postgres.psql(name, """
                    SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) FROM pg_stat_ssl s
                    JOIN pg_stat_activity a USING (pid) WHERE a.datname = '\(name)' AND a.pid <> pg_backend_pid()
                    """).output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").compactMap { Int($0) }
                if said.count == 2 { counts = (said[0], said[1]) }
                return counts.tls + counts.plain >= atLeast
            }
            return counts
        }
        for mode in ["require", "prefer", "disable"] {
            let name = try postgres.database()
            let store = try await Self.open("postgres://postgres@127.0.0.1:\(postgres.port)/\(name)?sslmode=\(mode)")
            _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "ayla", item: "astronaut", at: 1_800_000_000)], tooltips: [])
            let counts = try await connections(name, atLeast: 2)
            if mode == "disable" {
                #expect(counts.tls == 0 && counts.plain >= 2, "sslmode=\(mode): \(counts)")
            } else {
                #expect(counts.tls >= 2 && counts.plain == 0, "sslmode=\(mode): \(counts)")
            }
            await store.close()
        }
        let name = try postgres.database()
        let verify = "postgres://postgres@127.0.0.1:\(postgres.port)/\(name)?sslmode=verify-full"
        await #expect { try await Self.open(verify) } throws: {
            "\($0)".contains("TLS with PostgreSQL at 127.0.0.1:\(postgres.port) failed: its certificate is not signed by an authority this machine trusts")
        }
        let store = try await Self.open(verify + "&sslrootcert=" + postgres.folder + "/data/server.crt")
        _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "ayla", item: "astronaut", at: 1_800_000_000)], tooltips: [])
        #expect(try await connections(name, atLeast: 2).tls >= 2)
        await store.close()
        // By the name localhost too: NIOSSL takes a certificate that names the address
        // connected to (127.0.0.1) whatever name led there.
        let byName = try await Self.open(verify.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:") + "&sslrootcert=" + postgres.folder + "/data/server.crt")
        await byName.close()
        // An address the certificate does not name (127.0.0.2, loopback too, where the test
        // server also listens): refused in the handshake, said as TLS and as a name.
        let elsewhere = verify.replacingOccurrences(of: "@127.0.0.1:", with: "@127.0.0.2:") + "&sslrootcert=" + postgres.folder + "/data/server.crt"
        await #expect { try await Self.open(elsewhere) } throws: {
            "\($0)".contains("TLS with PostgreSQL at 127.0.0.2:\(postgres.port) failed: its certificate does not name 127.0.0.2")
        }
        // A file that is not there, or holds no certificate, is said at start.
        await #expect { try await Self.open(verify + "&sslrootcert=/nowhere/ca.pem") } throws: {
            "\($0)".contains("sslrootcert /nowhere/ca.pem: ") && "\($0)".contains("postgres://postgres@127.0.0.1")
        }
        await #expect { try await Self.open(verify + "&sslrootcert=" + postgres.folder + "/log") } throws: {
            "\($0)".contains("no PEM certificate in it")
        }
        #expect(throws: SeenStoreFailure.self) { try Address.parse("postgres://db/x?sslmode=require&sslrootcert=/ca.pem", environment: [:]) }
    }

    /// Two replicas on one database: a GET waiting on one is answered as soon as the other
    /// records the viewer's batch (NOTIFY), and each sees what the other recorded.
    @Test(.timed) func aBatchOnOneReplicaWakesAWaitOnTheOther() async throws {
        let postgres = try TestPostgres.shared()
        let url = postgres.url(try postgres.database())
        let folder = try SeenServerTests.folder()
        let first = try await SeenServerTests.setup(["ayla", "bo"], folder: folder, database: try await Self.open(url))
        let second = try await SeenServerTests.setup(["ayla", "bo"], folder: folder, database: try await Self.open(url))
        let ayla = try #require(first.tokens["ayla"]), bo = try #require(first.tokens["bo"])
        try await first.server.application().test(.ahc()) { one in
            try await second.server.application().test(.ahc()) { two in
                let homeBefore = try await two.execute(uri: "/v1/home", method: .get, headers: SeenServerTests.auth(ayla))
                // Both wait on the second replica; both batches land on the first at once
                // (told to the others in one NOTIFY).
                async let aylaWaited = two.execute(uri: "/v1/seen?since=0&wait=20", method: .get, headers: SeenServerTests.auth(ayla))
                async let boWaited = two.execute(uri: "/v1/seen?since=0&wait=20", method: .get, headers: SeenServerTests.auth(bo))
                try await Self.eventually { second.server.seen?.heldPolls == 2 }
                async let aylaReceipt = one.execute(uri: "/v1/seen", method: .put, headers: SeenServerTests.auth(ayla),
                                                    body: SeenServerTests.batch([("ayla", "astronaut")], tooltips: ["tip-1"]))
                async let boReceipt = one.execute(uri: "/v1/seen", method: .put, headers: SeenServerTests.auth(bo),
                                                  body: SeenServerTests.batch([("mika", "coffee")]))
                #expect(try await aylaReceipt.status == .ok)
                #expect(try await boReceipt.status == .ok)
                // From the moment both batches are acknowledged (committed): how fast a
                // request is answered on a busy machine is the benchmark's to say, not this
                // test's (the whole suite runs beside it).
                let recorded = ContinuousClock.now
                for (answer, item, tooltips) in [(try await aylaWaited, "astronaut", ["tip-1"]), (try await boWaited, "coffee", [])] {
                    let late = ContinuousClock.now - recorded
                    #expect(late < .milliseconds(500), "answered \(late) after the other replica's batch was acknowledged")
                    let changes = try SeenServerTests.json(answer.body)
                    #expect((changes["seen"] as? [[String: Any]])?.compactMap { $0["item"] as? String } == [item])
                    #expect(changes["tooltips"] as? [String] == tooltips && changes["next"] as? Int == 1)
                }
                // The home on the second replica follows the first's batch at once.
                let home = try await two.execute(uri: "/v1/home", method: .get, headers: SeenServerTests.auth(ayla))
                #expect(home.status == .ok && homeBefore.status == .ok)
                #expect(home.headers[.eTag] != nil && home.headers[.eTag] != homeBefore.headers[.eTag])
            }
        }
    }

    /// Batches that arrive together are written together (fewer statements than batches),
    /// one a viewer in each group: every batch kept at its own step of its viewer's counter,
    /// nothing lost, a viewer's batches one after another.
    @Test func batchesArrivingTogetherAreWrittenTogetherAndNoneIsLost() async throws {
        let postgres = try TestPostgres.shared()
        let database = try await Self.open(postgres.url(try postgres.database()))
        let viewers = (0..<60).map { "w\($0)" }
        // Each viewer sends three batches at once: 180 batches.
        let counters = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
            for viewer in viewers {
                for round in 0..<3 {
                    group.addTask {
                        let seq = try await database.record(viewer: viewer, entries: [SeenEntry(story: "ayla", item: "item-\(round)", at: 1_800_000_000)],
                                                            tooltips: round == 0 ? ["tip"] : [])
                        return (viewer, seq)
                    }
                }
            }
            var out: [String: [Int64]] = [:]
            for try await (viewer, seq) in group { out[viewer, default: []].append(seq) }
            return out
        }
        for viewer in viewers {
            #expect(counters[viewer]?.sorted() == [1, 2, 3], "\(viewer): \(counters[viewer] ?? [])")
            let state = try await database.everything(viewer: viewer)
            #expect(state.counter == 3 && state.items["ayla"] == ["item-0", "item-1", "item-2"] && state.tooltips == ["tip"])
        }
        let counts = database.gatherer.counts
        #expect(counts.batches == 180)
        #expect(counts.groups < 180, "\(counts.groups) statements for 180 batches: none was gathered")
        await database.close()
    }

    /// Names told in one NOTIFY: joined by commas, none past PostgreSQL's limit, all of
    /// them in order; the anonymous viewer (the empty name) too.
    @Test func announcementsFitPostgreSQLsPayload() {
        let names = (0..<400).map { "viewer-\($0)-" + String(repeating: "x", count: 50) }
        let payloads = PostgresSeenDatabase.Announcer.payloads(names)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= PostgresSeenDatabase.Announcer.payloadBytes })
        #expect(payloads.flatMap { $0.split(separator: ",").map(String.init) } == names)
        #expect(PostgresSeenDatabase.Announcer.payloads([""]) == [""])
        #expect(PostgresSeenDatabase.Announcer.payloads([]) == [])
    }

    /// A full disk (PostgreSQL's own error, raised where a row would be written), a
    /// read-only database, a server that goes away: each a 503 that says why, nothing of
    /// the batch kept (one statement, one transaction), and batches taken again once back.
    @Test func aDatabaseFullReadOnlyOrGoneIs503AndTheServerRecovers() async throws {
        let postgres = try TestPostgres()
        defer { postgres.finish() }
        let name = try postgres.database()
        let setup = try await SeenServerTests.setup([], database: try await Self.open(postgres.url(name)))
        try await setup.server.application().test(.live) { client in
            _ = try await client.execute(uri: "/v1/seen", method: .put, body: SeenServerTests.batch([("ayla", "astronaut")]))
            func refused(_ said: String) async throws {
                let answer = try await client.execute(uri: "/v1/seen", method: .put,
                                                      body: SeenServerTests.batch([("ayla", "rocket"), ("mika", "coffee")], tooltips: ["tip-1"]))
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.headers[.retryAfter] == "2")
                #expect(String(buffer: answer.body).contains("the seen store cannot be used now: \(said)"), "\(String(buffer: answer.body))")
            }
            func state() async throws -> (items: Int, next: Int) {
                let state = try SeenServerTests.json(try await client.execute(uri: "/v1/seen", method: .get).body)
                return ((state["seen"] as? [Any])?.count ?? -1, state["next"] as? Int ?? -1)
            }
            postgres.psql(name, """
                CREATE FUNCTION full_disk() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = '53100'; END $$ LANGUAGE plpgsql;
                CREATE TRIGGER full_disk BEFORE INSERT ON seen FOR EACH ROW EXECUTE FUNCTION full_disk();
                """)
            try await refused("PostgreSQL's disk is full")
            #expect(try await state() == (1, 1), "neither the items nor the counter moved")
            postgres.psql(name, "DROP TRIGGER full_disk ON seen")

            // Read-only for every new session; the pool's sessions are ended so it opens new ones.
            postgres.psql("postgres", "ALTER DATABASE \(name) SET default_transaction_read_only = on")
            postgres.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
            try await Self.eventually { try await client.execute(uri: "/v1/seen", method: .put, body: SeenServerTests.batch([])).status == .serviceUnavailable }
            try await refused("the database is read-only")
            postgres.psql("postgres", "ALTER DATABASE \(name) SET default_transaction_read_only = off")
            postgres.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
            try await Self.eventually { try await client.execute(uri: "/v1/seen", method: .put, body: SeenServerTests.batch([])).status == .ok }

            // Gone (SIGKILL, as a machine lost), then back on the same port with its data.
            postgres.stop(kill: true)
            try await refused("cannot reach PostgreSQL at 127.0.0.1")
            // The bound the docs give: 4 s from the request (the batches queued behind both
            // writers: `GathererTests`).
            let sent = ContinuousClock.now
            let late = try await client.execute(uri: "/v1/seen", method: .put, body: SeenServerTests.batch([("ayla", "rocket")]))
            let took = ContinuousClock.now - sent
            #expect(late.status == .serviceUnavailable && took < .seconds(4), "\(late.status) after \(took)")
            #expect(postgres.restart())
            try await Self.eventually { try await client.execute(uri: "/v1/seen", method: .get).status == .ok }
            let back = try await client.execute(uri: "/v1/seen", method: .put, body: SeenServerTests.batch([("ayla", "rocket"), ("mika", "coffee")]))
            #expect(back.status == .ok)
            #expect(try await state().items == 3)
        }
        await setup.database.close()
    }

    /// Tries `check` until it holds, for up to 15 s.
    static func eventually(_ check: () async throws -> Bool) async throws {
        if try await !AsyncWait.until(15, every: 0.1, check) { Issue.record("did not come true within 15 s") }
    }
}
