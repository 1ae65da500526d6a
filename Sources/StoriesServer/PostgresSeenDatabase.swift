import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// The seen store in PostgreSQL (`--database postgres://…`), for several `stories serve`
/// replicas that share it (issue 34). PostgresNIO's client keeps a pool of connections; a
/// batch is one statement (so one transaction and one round trip), and the viewers whose
/// batches were recorded are told to the other replicas on the `stories_seen` channel —
/// gathered for 25 ms into one `pg_notify` (`Announcer`) — which wakes their waiting
/// `GET /v1/seen?wait=`.
///
/// The tables and their steps are `SeenSchema`'s, the same as SQLite's; replicas starting
/// together take turns at them under an advisory lock.
public final class PostgresSeenDatabase: SeenDatabase {
    public let address: Address
    public var place: String { address.shown }
    /// The host written to, and the pool of connections to it.
    let primary: Primary
    private var client: PostgresClient { primary.client }
    /// Who is told when a batch is recorded by any replica (the viewer's name; nil: anyone's
    /// may have been, while the listening connection was away).
    private let observers = Observers()
    /// The listening connection's task, started again on the new host when the one written
    /// to changes (its old connection may still be alive, to a host no longer written to).
    private let listening = Listening()

    /// The channel batches are announced on: viewers' names, joined by commas.
    static let channel = "stories_seen"
    /// Tells the other replicas whose batches this one recorded.
    private let announcer: Announcer
    /// Writes batches, together when they arrive together.
    let gatherer: Gatherer
    /// The advisory lock replicas take turns at the schema under ("st34").
    static let schemaLock: Int64 = 0x7374_3334

    private init(primary: Primary) {
        self.primary = primary
        address = primary.address
        let (observers, listening) = (observers, listening)
        let listen: @Sendable () -> Task<Void, Never> = {
            Task(executorPreference: PostgresStoreLoop.executor) { await Self.listen({ primary.listener }, observers) }
        }
        listening.replace(listen())
        primary.whenMoved { listening.replace(listen()) }
        gatherer = Gatherer(patience: Self.patience, timeout: { Self.timeout(primary.here) }, describe: { Self.reason($0, primary.here) }) { batches in
            do { return try await Self.write(batches, client: primary.client) } catch {
                primary.failed()
                throw error
            }
        }
        announcer = Announcer { payloads in
            // Best effort: a NOTIFY that fails leaves the waits to end at their time (and a
            // listening connection that was away wakes every wait when it is back).
            _ = try? await primary.client.query("SELECT pg_notify(\(Self.channel), payload) FROM unnest(\(payloads)::text[]) AS payload", logger: Self.quiet)
        }
    }

    deinit {
        _ = listening.stop()
    }

    /// `@unchecked Sendable`: `task` and `stopped` are touched only under `lock`.
    final class Listening: @unchecked Sendable {
        private let lock = NSLock()
        private var task: Task<Void, Never>?
        private var stopped = false

        /// `fresh` listens from now on; the task before is cancelled (after `stop`, `fresh` is).
        func replace(_ fresh: Task<Void, Never>) {
            let old: Task<Void, Never>? = lock.withLock {
                guard !stopped else { return fresh }
                defer { task = fresh }
                return task
            }
            old?.cancel()
        }

        /// Cancels the task listening now; it, to wait for.
        func stop() -> Task<Void, Never>? {
            let now: Task<Void, Never>? = lock.withLock {
                stopped = true
                return task
            }
            now?.cancel()
            return now
        }
    }

    /// Connects, and brings the tables to the latest version. A server that cannot be
    /// reached, refuses the user or is not a store of ours is said, with why.
    public static func open(_ address: Address) async throws(SeenStoreFailure) -> PostgresSeenDatabase {
        let address = try address.readingRootCertificates()
        // One connection first, to say exactly what is wrong (the pool would only retry);
        // with several hosts, the first that answers (and takes writes, when asked).
        var connections: [PostgresConnection.Configuration] = []
        do {
            for index in address.endpoints.indices { connections.append(try address.at(index).connectionConfiguration()) }
        } catch {
            throw SeenStoreFailure("seen store \(address.shown): \(reason(error, address))")
        }
        let found = await Primary.suitable(address, connections)
        guard let index = found.index else {
            if address.endpoints.count == 1 { throw SeenStoreFailure("seen store \(address.shown): \(found.why[0] ?? "cannot reach PostgreSQL")") }
            let why = address.endpoints.indices.map { "\(address.endpoints[$0].shown): \(found.why[$0] ?? "did not answer")" }
            throw SeenStoreFailure("seen store \(address.shown): no host to write to: \(why.joined(separator: "; "))")
        }
        let primary = Primary(address: address, index: index, connections: connections) { FileWrites.sayOnStandardError("stories serve: \($0)") }
        let database = PostgresSeenDatabase(primary: primary)
        do throws(SeenStoreFailure) {
            try await database.migrate()
        } catch {
            await database.close()
            throw SeenStoreFailure("seen store \(address.shown): \(error.description)")
        }
        return database
    }

    public func observe(_ handler: @escaping @Sendable (String?) -> Void) {
        observers.add(handler)
    }

    private func migrate() async throws(SeenStoreFailure) {
        try await run { () async throws -> Void in
            try await self.client.withTransaction(logger: Self.quiet) { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))", logger: Self.quiet)
                let tables = try await connection.query(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ('stories_schema', 'viewers', 'seen', 'tooltips')",
                    logger: Self.quiet).collect().map { try $0.decode(String.self) }
                if !tables.isEmpty, !tables.contains("stories_schema") {
                    throw SeenStoreFailure("the database has tables named \(tables.sorted().joined(separator: ", ")) of something else (no stories_schema table); give another database")
                }
                _ = try await connection.query("CREATE TABLE IF NOT EXISTS stories_schema (version INTEGER NOT NULL)", logger: Self.quiet)
                var version = try await connection.query("SELECT version FROM stories_schema", logger: Self.quiet)
                    .collect().first.map { try $0.decode(Int.self) } ?? 0
                guard version <= SeenSchema.latest else {
                    throw SeenStoreFailure("the store is at schema version \(version), newer than this server's \(SeenSchema.latest); run a newer stories")
                }
                while version < SeenSchema.latest {
                    for statement in SeenSchema.steps[version] {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet)
                    }
                    version += 1
                    _ = try await connection.query("DELETE FROM stories_schema", logger: Self.quiet)
                    _ = try await connection.query("INSERT INTO stories_schema (version) VALUES (\(version))", logger: Self.quiet)
                }
            }
        }
    }

    public func schemaVersion() async throws(SeenStoreFailure) -> Int {
        try await run { () async throws -> Int in
            try await self.client.query("SELECT version FROM stories_schema", logger: Self.quiet).collect().first.map { try $0.decode(Int.self) } ?? 0
        }
    }

    public func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64 {
        let seq = try await gatherer.record(Gatherer.Batch(viewer: viewer, entries: entries, tooltips: tooltips)).get()
        announcer.add(viewer)
        return seq
    }

    public func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenWire.Changes {
        try await run { () async throws -> SeenWire.Changes in
            // One statement, one round trip (a wake-up is one on every replica it wakes; three
            // made the pool the first bottleneck at 1 000 batches a second: `stories bench
            // hold`). The counter is read first: a batch is committed only after every one
            // before it (the viewer's row is locked while one is recorded), so everything up
            // to it is there. Rows come kind first: the counter ('c'), items ('i'), tooltips ('t').
            let rows = try await self.client.query("""
                WITH latest AS (SELECT COALESCE((SELECT seq FROM viewers WHERE name = \(viewer)), 0) AS seq),
                items AS (SELECT s.story, s.item, s.seen_at, s.seq FROM seen s, latest
                          WHERE s.viewer = \(viewer) AND s.seq > \(since) AND s.seq <= latest.seq ORDER BY s.seq LIMIT \(limit + 1))
                SELECT 'c', '', '', 0::int8, seq FROM latest
                UNION ALL SELECT 'i', story, item, seen_at, seq FROM items
                UNION ALL SELECT 't', t.tooltip, '', 0::int8, t.seq FROM tooltips t, latest
                          WHERE t.viewer = \(viewer) AND t.seq > \(since) AND t.seq <= latest.seq
                """, logger: Self.quiet).collect().map { try $0.decode((String, String, String, Int64, Int64).self) }
            var latest: Int64 = 0
            var items: [(story: String, item: String, at: Int64, seq: Int64)] = []
            var tooltips: [(String, Int64)] = []
            for row in rows {
                switch row.0 {
                case "c": latest = row.4
                case "i": items.append((row.1, row.2, row.3, row.4))
                default: tooltips.append((row.1, row.4))
                }
            }
            items.sort { $0.seq < $1.seq }
            var next = latest
            var more = false
            var kept = items
            if items.count > limit {
                // A batch is never split (as in SQLite's store).
                let cut = items[limit].seq
                kept = items.filter { $0.seq < cut }
                next = cut - 1
                more = true
            }
            let shown = tooltips.filter { $0.1 <= next }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
            return SeenWire.Changes(entries: kept.map { SeenWire.Entry(story: $0.story, item: $0.item, at: $0.at) }, tooltips: shown, next: next, more: more)
        }
    }

    public func counter(viewer: String) async throws(SeenStoreFailure) -> Int64 {
        try await run { () async throws -> Int64 in try await self.counter(viewer) }
    }

    private func counter(_ viewer: String) async throws -> Int64 {
        try await client.query("SELECT seq FROM viewers WHERE name = \(viewer)", logger: Self.quiet).collect().first.map { try $0.decode(Int64.self) } ?? 0
    }

    public func everything(viewer: String) async throws(SeenStoreFailure) -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>) {
        try await run { () async throws -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>) in
            // Up to the counter read first, so the home kept under it is exactly its state.
            let counter = try await self.counter(viewer)
            var items: [StoryID: Set<ItemID>] = [:]
            for row in try await self.client.query("SELECT story, item FROM seen WHERE viewer = \(viewer) AND seq <= \(counter)", logger: Self.quiet).collect() {
                let (story, item) = try row.decode((String, String).self)
                items[story, default: []].insert(item)
            }
            let tooltips = try await self.client.query("SELECT tooltip FROM tooltips WHERE viewer = \(viewer) AND seq <= \(counter)", logger: Self.quiet)
                .collect().map { try $0.decode(String.self) }
            return (counter, items, Set(tooltips))
        }
    }

    public func close() async {
        let listener = listening.stop()
        await primary.close()
        await listener?.value
    }

    /// Runs one statement as it is (tests).
    func execute(_ sql: String) async throws(SeenStoreFailure) {
        try await run { () async throws in _ = try await self.client.query(PostgresQuery(unsafeSQL: sql), logger: Self.quiet) }
    }
}
