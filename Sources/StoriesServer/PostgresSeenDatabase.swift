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
/// batch is one statement (so one transaction and one round trip), and every batch tells
/// the other replicas through `NOTIFY stories_seen, 'viewer'`, which wakes their waiting
/// `GET /v1/seen?wait=`.
///
/// The tables and their steps are `SeenSchema`'s, the same as SQLite's; replicas starting
/// together take turns at them under an advisory lock.
public final class PostgresSeenDatabase: SeenDatabase {
    /// What a `postgres://` address says, with the password kept apart from what is shown.
    public struct Address: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
        /// libpq's `sslmode`: disable, prefer (the default), require, verify-full.
        public var tls: String
        /// libpq's `sslrootcert`: a PEM file of the authorities a verify-full server's
        /// certificate may be signed by (nil: the system's).
        public var rootCertificates: String? = nil
        /// That file's certificates, once read (`readingRootCertificates`).
        var trusted: [NIOSSLCertificate]? = nil

        /// The address with `sslrootcert`'s file read (through `SafeFile`: a regular file,
        /// at most 1 MB; a link is followed, as an operator's own path may be one), or why
        /// it cannot be.
        func readingRootCertificates() throws(SeenStoreFailure) -> Address {
            guard let path = rootCertificates else { return self }
            let data: Data
            do { data = try SafeFile.read(path, maxBytes: 1 << 20, followLinks: true).0 } catch {
                throw SeenStoreFailure("seen store \(shown): sslrootcert \(SafeText.line(path)): \(SafeFile.describe(error, maxBytes: 1 << 20))")
            }
            guard let certificates = try? NIOSSLCertificate.fromPEMBytes([UInt8](data)), !certificates.isEmpty else {
                throw SeenStoreFailure("seen store \(shown): sslrootcert \(SafeText.line(path)): no PEM certificate in it")
            }
            var read = self
            read.trusted = certificates
            return read
        }

        /// The address as it may be printed: no password.
        public var shown: String { "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }

        /// `postgres://[user[:password]@]host[:port]/database[?sslmode=…]`; the password may
        /// also come from `PGPASSWORD`. Everything is bounded and checked before use.
        public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SeenStoreFailure) -> Address {
            func refuse(_ why: String) -> SeenStoreFailure { SeenStoreFailure("--database: \(why) (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)") }
            guard text.utf8.count <= 1024 else { throw refuse("the address is longer than 1024 bytes") }
            guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let parts = URLComponents(string: text) else {
                throw refuse("not a postgres:// address")
            }
            guard let host = parts.host, !host.isEmpty else { throw refuse("no host") }
            let port = parts.port ?? 5432
            guard (1...65535).contains(port) else { throw refuse("port \(port) is not 1…65535") }
            let database = String(parts.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty, !database.contains("/") else { throw refuse("no database name after the host") }
            let user = parts.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
            guard !user.isEmpty else { throw refuse("no user") }
            let password = parts.password ?? environment["PGPASSWORD"]
            var tls = "prefer"
            var rootCertificates: String?
            for item in parts.queryItems ?? [] {
                switch item.name {
                case "sslmode":
                    guard let mode = item.value, ["disable", "prefer", "require", "verify-full"].contains(mode) else {
                        throw refuse("sslmode is one of disable, prefer, require, verify-full")
                    }
                    tls = mode
                case "sslrootcert":
                    guard let path = item.value, !path.isEmpty, path.utf8.count <= 4096, !path.contains("\0") else {
                        throw refuse("sslrootcert is the path of a PEM file of certificates")
                    }
                    rootCertificates = path
                default:
                    throw refuse("'\(SafeText.line(String(item.name.prefix(32))))' is not understood (only sslmode and sslrootcert are)")
                }
            }
            if rootCertificates != nil, tls != "verify-full" {
                throw refuse("sslrootcert is used only with sslmode=verify-full")
            }
            return Address(host: host, port: port, user: user, password: password, database: database, tls: tls, rootCertificates: rootCertificates)
        }

        /// What `sslmode` asks for: nil for no TLS; else TLS with this configuration (the
        /// server's certificate checked only for verify-full), required or only preferred.
        var tlsSettings: (configuration: TLSConfiguration, required: Bool)? {
            guard tls != "disable" else { return nil }
            var configuration = TLSConfiguration.makeClientConfiguration()
            if tls != "verify-full" { configuration.certificateVerification = .none }
            if let trusted { configuration.trustRoots = .certificates(trusted) }
            return (configuration, tls != "prefer")
        }

        var configuration: PostgresClient.Configuration {
            let mode: PostgresClient.Configuration.TLS = switch tlsSettings {
            case nil: .disable
            case let settings?: settings.required ? .require(settings.configuration) : .prefer(settings.configuration)
            }
            var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.maximumConnections = 16
            configuration.options.minimumConnections = 1
            // No keep-alive query on idle connections: the pool set a timer after every use
            // of a connection and cancelled it at the next (a task and a sleep for each
            // statement). A connection that died while idle fails its next statement (a 503
            // the client sends again) and is replaced.
            configuration.options.keepAliveBehavior = nil
            return configuration
        }

        /// The same, for the one connection that listens.
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let mode: PostgresConnection.Configuration.TLS
            if let settings = tlsSettings {
                let context = try NIOSSLContext(configuration: settings.configuration)
                mode = settings.required ? .require(context) : .prefer(context)
            } else {
                mode = .disable
            }
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
            configuration.options.connectTimeout = .seconds(5)
            return configuration
        }
    }

    public let address: Address
    public var place: String { address.shown }
    private let client: PostgresClient
    private let running: Task<Void, Never>
    /// Who is told when a batch is recorded by any replica (the viewer's name; nil: anyone's
    /// may have been, while the listening connection was away).
    private let observers = Observers()
    private let listening: Task<Void, Never>

    /// The channel batches are announced on: viewers' names, joined by commas.
    static let channel = "stories_seen"
    /// Tells the other replicas whose batches this one recorded.
    private let announcer: Announcer
    /// Writes batches, together when they arrive together.
    let gatherer: Gatherer
    /// The advisory lock replicas take turns at the schema under ("st34").
    static let schemaLock: Int64 = 0x7374_3334

    /// `listener`: the listening connection's configuration, made once (its TLS context reads
    /// the system's certificates from disk, which the store's loop must not do again).
    private init(address: Address, listener: PostgresConnection.Configuration) {
        self.address = address
        client = PostgresClient(configuration: address.configuration, eventLoopGroup: PostgresStoreLoop.group)
        let client = client
        // The pool's background work runs on the stores' own event loop (PostgresStoreLoop).
        running = Task(executorPreference: PostgresStoreLoop.executor) { await client.run() }
        let (address, observers) = (address, observers)
        listening = Task(executorPreference: PostgresStoreLoop.executor) { await Self.listen(listener, observers) }
        gatherer = Gatherer(patience: Self.patience, timeout: Self.timeout(address), describe: { Self.reason($0, address) }) { batches in
            try await Self.write(batches, client: client)
        }
        announcer = Announcer { payloads in
            // Best effort: a NOTIFY that fails leaves the waits to end at their time (and a
            // listening connection that was away wakes every wait when it is back).
            _ = try? await client.query("SELECT pg_notify(\(Self.channel), payload) FROM unnest(\(payloads)::text[]) AS payload", logger: Self.quiet)
        }
    }

    deinit {
        running.cancel()
        listening.cancel()
    }

    /// Connects, and brings the tables to the latest version. A server that cannot be
    /// reached, refuses the user or is not a store of ours is said, with why.
    public static func open(_ address: Address) async throws(SeenStoreFailure) -> PostgresSeenDatabase {
        let address = try address.readingRootCertificates()
        // One connection first, to say exactly what is wrong (the pool would only retry).
        let listener: PostgresConnection.Configuration
        do {
            listener = try address.connectionConfiguration()
            let connection = try await PostgresConnection.connect(on: PostgresStoreLoop.group.next(), configuration: listener, id: 0, logger: quiet)
            try? await connection.close()
        } catch {
            throw SeenStoreFailure("seen store \(address.shown): \(reason(error, address))")
        }
        let database = PostgresSeenDatabase(address: address, listener: listener)
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

    /// Writes the batches of a group (one a viewer) in one statement, one transaction: each
    /// viewer's counter moves by one, and their items and tooltips are kept at it.
    static func write(_ batches: [Gatherer.Batch], client: PostgresClient) async throws -> [String: Int64] {
        let statement = RecordGroup(batches)
        // Two groups lock their viewers in the same order (by name), so they cannot
        // deadlock; should PostgreSQL still say so, the group is written again once.
        for attempt in 0..<2 {
            do {
                var counters: [String: Int64] = [:]
                for try await (name, seq) in try await client.execute(statement, logger: Self.quiet) { counters[name] = seq }
                return counters
            } catch let error as PSQLError where attempt == 0 && error.serverInfo?[.sqlState] == "40P01" {
                continue
            }
        }
        throw SeenStoreFailure("the batch was not recorded (PostgreSQL found a deadlock twice)")
    }

    /// The batches of a group as one statement. Prepared once on each connection:
    /// PostgreSQL parses and plans it once rather than for every group (a third of its work
    /// for a batch: `pgbench`, 1 700 against 2 500 a second). No NOTIFY in it: see
    /// `Announcer`.
    struct RecordGroup: PostgresPreparedStatement {
        static let name = "stories_record_group_1"
        static let sql = """
            WITH counters AS (
                INSERT INTO viewers AS v (name, seq)
                SELECT name, 1 FROM unnest($1::text[]) AS u(name) ORDER BY name
                ON CONFLICT (name) DO UPDATE SET seq = v.seq + 1 RETURNING name, seq
            ), items AS (
                INSERT INTO seen (viewer, story, item, seq, seen_at)
                SELECT u.viewer, u.story, u.item, c.seq, u.at
                FROM unnest($2::text[], $3::text[], $4::text[], $5::int8[]) AS u(viewer, story, item, at) JOIN counters c ON c.name = u.viewer
                ON CONFLICT DO NOTHING
            ), shown AS (
                INSERT INTO tooltips (viewer, tooltip, seq)
                SELECT u.viewer, u.tooltip, c.seq FROM unnest($6::text[], $7::text[]) AS u(viewer, tooltip) JOIN counters c ON c.name = u.viewer
                ON CONFLICT DO NOTHING
            )
            SELECT name, seq FROM counters
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .textArray, .textArray, .int8Array, .textArray, .textArray]
        typealias Row = (String, Int64)

        var viewers: [String] = []
        var itemViewers: [String] = [], stories: [String] = [], items: [String] = [], times: [Int64] = []
        var tooltipViewers: [String] = [], tooltips: [String] = []

        init(_ batches: [Gatherer.Batch]) {
            for batch in batches {
                viewers.append(batch.viewer)
                for entry in batch.entries {
                    itemViewers.append(batch.viewer)
                    stories.append(entry.story)
                    items.append(entry.item)
                    times.append(entry.at)
                }
                for tooltip in batch.tooltips {
                    tooltipViewers.append(batch.viewer)
                    tooltips.append(tooltip)
                }
            }
        }

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(viewers)
            bindings.append(itemViewers)
            bindings.append(stories)
            bindings.append(items)
            bindings.append(times)
            bindings.append(tooltipViewers)
            bindings.append(tooltips)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (String, Int64) {
            try row.decode((String, Int64).self)
        }
    }

    /// Batches that arrive while others are being written wait and go together, in one
    /// statement and one commit (one a viewer in each group; a viewer's next batch waits for
    /// the next group). Nothing waits on a clock: a batch that finds the store idle is
    /// written at once, and groups grow only while PostgreSQL is busy. Each commit costs
    /// PostgreSQL about the same however many batches it carries (a flush of the log, a
    /// wake-up of a backend), so under load most of that is shared.
    ///
    /// `@unchecked Sendable`: `pending` and `writing` are touched only under `lock`.
    final class Gatherer: @unchecked Sendable {
        struct Batch: Sendable {
            let viewer: String
            let entries: [SeenEntry]
            let tooltips: [String]
        }
        typealias Outcome = Result<Int64, SeenStoreFailure>
        private struct Waiting {
            let batch: Batch
            let continuation: CheckedContinuation<Outcome, Never>
        }
        /// Groups written at once (each on a connection of its own). One or two wrote the
        /// held minute alike (p99 6–9 ms); four made groups smaller and commits more. Two,
        /// so that one slow group does not hold every batch behind it.
        static let writers = 2
        /// The most items (and tooltips) in one group; a batch bigger alone goes alone.
        static let groupItems = 5000
        private let lock = NSLock()
        private var pending: [Waiting] = []
        private var writing = 0
        private var written = (groups: 0, batches: 0)
        /// Groups and batches written so far (tests).
        var counts: (groups: Int, batches: Int) { lock.withLock { written } }
        private let write: @Sendable ([Batch]) async throws -> [String: Int64]
        private let patience: Duration
        private let timeout: SeenStoreFailure
        private let describe: @Sendable (any Error) -> String

        init(patience: Duration, timeout: SeenStoreFailure, describe: @escaping @Sendable (any Error) -> String,
             write: @escaping @Sendable ([Batch]) async throws -> [String: Int64]) {
            self.patience = patience
            self.timeout = timeout
            self.describe = describe
            self.write = write
        }

        func record(_ batch: Batch) async -> Outcome {
            await withCheckedContinuation { continuation in
                let group: [Waiting]? = lock.withLock {
                    pending.append(Waiting(batch: batch, continuation: continuation))
                    return nextGroup()
                }
                if let group { start(group) }
            }
        }

        /// The next group, when a writer is free (under `lock`): the earliest batches, one a
        /// viewer, up to `groupItems`.
        private func nextGroup() -> [Waiting]? {
            guard writing < Self.writers, !pending.isEmpty else { return nil }
            var group: [Waiting] = [], left: [Waiting] = [], viewers = Set<String>(), items = 0
            for waiting in pending {
                let size = waiting.batch.entries.count + waiting.batch.tooltips.count
                if viewers.contains(waiting.batch.viewer) || (!group.isEmpty && items + size > Self.groupItems) {
                    left.append(waiting)
                } else {
                    viewers.insert(waiting.batch.viewer)
                    items += size
                    group.append(waiting)
                }
            }
            pending = left
            writing += 1
            written.groups += 1
            written.batches += group.count
            return group
        }

        /// Writes a group in a task of its own, within `patience`: past it, its batches are
        /// answered with `timeout`, its writer is free for the next group, and the task is
        /// cancelled and left to end when it will (a pool waiting for a server that is gone
        /// does not end at once). A group cut short was committed whole or not at all.
        private func start(_ group: [Waiting]) {
            let settled = TakenOnce(group)
            let task = Task(executorPreference: PostgresStoreLoop.executor) { [self] in
                let result: Result<[String: Int64], SeenStoreFailure>
                do { result = .success(try await write(group.map(\.batch))) } catch let failure as SeenStoreFailure {
                    result = .failure(failure)
                } catch {
                    result = .failure(SeenStoreFailure(describe(error)))
                }
                if let group = settled.take() {
                    Self.answer(group, result)
                    finished()
                }
            }
            let seconds = Int(patience.components.seconds)
            SeenSignals.timers.asyncAfter(deadline: .now() + .seconds(seconds)) { [self] in
                if let group = settled.take() {
                    Self.answer(group, .failure(timeout))
                    task.cancel()
                    finished()
                }
            }
        }

        /// A writer is free: the next groups start.
        private func finished() {
            var next: [[Waiting]] = []
            lock.withLock {
                writing -= 1
                while let group = nextGroup() { next.append(group) }
            }
            for group in next { start(group) }
        }

        /// Answers each batch of a group with its viewer's counter (or the failure).
        private static func answer(_ group: [Waiting], _ result: Result<[String: Int64], SeenStoreFailure>) {
            for each in group {
                each.continuation.resume(returning: result.flatMap { counters in
                    counters[each.batch.viewer].map { .success($0) }
                        ?? .failure(SeenStoreFailure("the batch was not recorded (no counter came back)"))
                })
            }
        }
    }

    public func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenWire.Changes {
        try await run { () async throws -> SeenWire.Changes in
            // The counter first: a batch is committed only after every one before it (the
            // viewer's row is locked while one is recorded), so everything up to it is there.
            let latest = try await self.counter(viewer)
            let rows = try await self.client.query("""
                SELECT story, item, seen_at, seq FROM seen WHERE viewer = \(viewer) AND seq > \(since) AND seq <= \(latest)
                ORDER BY seq LIMIT \(limit + 1)
                """, logger: Self.quiet).collect().map { try $0.decode((String, String, Int64, Int64).self) }
            var next = latest
            var more = false
            var kept = rows
            if rows.count > limit {
                // A batch is never split (as in SQLite's store).
                let cut = rows[limit].3
                kept = rows.filter { $0.3 < cut }
                next = cut - 1
                more = true
            }
            let tooltips = try await self.client.query("""
                SELECT tooltip FROM tooltips WHERE viewer = \(viewer) AND seq > \(since) AND seq <= \(next) ORDER BY seq
                """, logger: Self.quiet).collect().map { try $0.decode(String.self) }
            return SeenWire.Changes(entries: kept.map { SeenWire.Entry(story: $0.0, item: $0.1, at: $0.2) }, tooltips: tooltips, next: next, more: more)
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
        listening.cancel()
        running.cancel()
        await running.value
        await listening.value
    }

    /// Runs one statement as it is (tests).
    func execute(_ sql: String) async throws(SeenStoreFailure) {
        try await run { () async throws in _ = try await self.client.query(PostgresQuery(unsafeSQL: sql), logger: Self.quiet) }
    }

    // MARK: - Work and its failures

    /// The longest a piece of work may take: past it the request is answered 503 (the pool
    /// would otherwise wait for a server that is gone for as long as it keeps trying).
    static let patience = Duration.seconds(4)

    /// `work`, within `patience`, with PostgreSQL's errors said in words a person can act on.
    /// The work runs on the stores' own queue; past `patience` it is cancelled and left to
    /// end when it will (a pool waiting for a server that is gone does not end at once). A
    /// batch cut short was committed whole or not at all (one statement); the client sends
    /// it again either way.
    private func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws(SeenStoreFailure) -> T {
        try await Self.run(address, work)
    }

    /// What a request hears when PostgreSQL did not answer within `patience`.
    static func timeout(_ address: Address) -> SeenStoreFailure {
        SeenStoreFailure("cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port) (no answer within \(patience.components.seconds) s; is it running?)")
    }

    private static func run<T: Sendable>(_ address: Address, _ work: @escaping @Sendable () async throws -> T) async throws(SeenStoreFailure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, SeenStoreFailure>, Never>) in
            let once = TakenOnce(continuation)
            let task = Task(executorPreference: PostgresStoreLoop.executor) {
                // The result first, then the continuation taken: taken before an `await`, it
                // would be out of the timer's reach, and lost if the work threw.
                let result: Result<T, SeenStoreFailure>
                do { result = .success(try await work()) } catch let failure as SeenStoreFailure {
                    result = .failure(failure)
                } catch {
                    result = .failure(SeenStoreFailure(Self.reason(error, address)))
                }
                once.take()?.resume(returning: result)
            }
            SeenSignals.timers.asyncAfter(deadline: .now() + .seconds(Int(Self.patience.components.seconds))) {
                once.take()?.resume(returning: .failure(timeout(address)))
                task.cancel()
            }
        }
        return try result.get()
    }

    /// A value the first `take()` gets and every later one does not: a continuation (or a
    /// group's) resumed by whichever of the work and its timer ends first.
    /// `@unchecked Sendable`: `value` is touched only under `lock`.
    final class TakenOnce<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value?
        init(_ value: Value) { self.value = value }
        func take() -> Value? { lock.withLock { defer { value = nil }; return value } }
    }

    static func reason(_ error: any Error, _ address: Address) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError as? SeenStoreFailure { return inner.description }
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError { return reason(inner, address) }
        }
        guard let failure = error as? PSQLError else {
            if error is CancellationError { return "the work was cancelled (the server is stopping)" }
            // The pool gave up making connections (its error type is not public).
            if String(reflecting: type(of: error)).contains("ConnectionPoolError") {
                return "cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port)"
            }
            return SafeText.line(String(describing: error))
        }
        let state = failure.serverInfo?[.sqlState] ?? ""
        let message = SafeText.line(String((failure.serverInfo?[.message] ?? "").prefix(300)))
        switch failure.code {
        case .server:
            switch state {
            case "53100": return "PostgreSQL's disk is full"
            case "25006": return "the database is read-only"
            case "28P01", "28000": return "PostgreSQL refused the user '\(SafeText.line(address.user))' (\(message))"
            case "3D000": return "there is no database '\(SafeText.line(address.database))' (create it, or give another)"
            case "57P01", "57P02", "57P03": return "PostgreSQL is shutting down or starting up (\(message))"
            default: return "PostgreSQL said: \(message) (\(SafeText.line(state)))"
            }
        case .connectionError where failure.underlying is NIOSSLError || failure.underlying is NIOSSLExtraError
            || failure.underlying is BoringSSLError:
            return "TLS with PostgreSQL at \(SafeText.line(address.host)):\(address.port) failed: \(tlsReason(failure.underlying, address))"
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return "cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port)"
        case .sslUnsupported: return "PostgreSQL at \(SafeText.line(address.host)) does not speak TLS (sslmode=disable to go without)"
        case .poolClosed, .clientClosedConnection: return "the store is closed"
        case .queryCancelled: return "the work was cancelled"
        default: return "PostgreSQL: \(failure.code)"
        }
    }

    /// Why a TLS handshake failed, in words (OpenSSL's own name for it kept in brackets).
    static func tlsReason(_ error: (any Error)?, _ address: Address) -> String {
        let said = SafeText.line(String((error.map { String(describing: $0) } ?? "no reason given").prefix(300)))
        if said.contains("CERTIFICATE_VERIFY_FAILED") {
            let trusted = address.rootCertificates.map { "the certificates in \(SafeText.line($0))" } ?? "an authority this machine trusts (sslrootcert= names a file of others)"
            return "its certificate is not signed by \(trusted) [CERTIFICATE_VERIFY_FAILED]"
        }
        if said.contains("noCertificateToValidate") || said.contains("failedToValidateHostname") || said.contains("ERROR_HOSTNAME") {
            return "its certificate does not name \(SafeText.line(address.host)) [\(said)]"
        }
        return said
    }

    static let quiet: Logger = {
        var logger = Logger(label: "stories.seen.postgres")
        logger.logLevel = .critical
        return logger
    }()

    // MARK: - Batches recorded by any replica

    /// Listens on `stories_seen` on a connection of its own for as long as the store is
    /// open, and tells the observers whose batch it was. While the connection is away every
    /// waiting answer is woken once it is back (what came meanwhile was not heard).
    private static func listen(_ configuration: PostgresConnection.Configuration, _ observers: Observers) async {
        var delay = Duration.milliseconds(250)
        var id = 1
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(on: PostgresStoreLoop.group.next(), configuration: configuration, id: id, logger: quiet)
                id &+= 1
                do {
                    try await connection.listen(on: channel) { notifications in
                        observers.tell(nil)
                        delay = .milliseconds(250)
                        for try await notification in notifications {
                            for viewer in notification.payload.split(separator: ",", omittingEmptySubsequences: false) {
                                observers.tell(String(viewer))
                            }
                        }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
            observers.tell(nil)
        }
    }

    /// Tells the other replicas whose batches were recorded here, gathered for 25 ms into
    /// one NOTIFY. A NOTIFY inside each batch's statement made every batch
    /// commit one after another (PostgreSQL holds one lock for all of a database's
    /// notifying transactions until each has committed, so their commits cannot share a
    /// flush of the log): `pgbench` on the batch, 1 400 a second with it against 5 000
    /// without, at 32 connections. A batch is acknowledged once committed; the wake-up of
    /// waits on other replicas follows within `gather`. Armed only while there is something
    /// to tell: no timer runs when nothing is recorded.
    ///
    /// `@unchecked Sendable`: `pending` and `armed` are touched only under `lock`.
    final class Announcer: @unchecked Sendable {
        /// Every NOTIFY wakes the listening connection of every replica and the waits it
        /// names: gathered for 5 ms, the held minute's p99 was 14–31 ms; for 25 ms, 5–9 ms
        /// (both with the work on an event loop of NIO's shared group; PostgreSQL's CPU for a
        /// batch 0.48 → 0.35 ms). A wait on another replica hears of
        /// a batch up to 25 ms later, well inside the second the terminals promise.
        static let gather = DispatchTimeInterval.milliseconds(25)
        /// The most bytes of names in one NOTIFY (PostgreSQL takes up to 8 000).
        static let payloadBytes = 7000
        private let lock = NSLock()
        private var pending: Set<String> = []
        private var armed = false
        private let send: @Sendable ([String]) async -> Void

        init(send: @escaping @Sendable ([String]) async -> Void) { self.send = send }

        func add(_ viewer: String) {
            let arm: Bool = lock.withLock {
                pending.insert(viewer)
                defer { armed = true }
                return !armed
            }
            guard arm else { return }
            SeenSignals.timers.asyncAfter(deadline: .now() + Self.gather) { [self] in
                let viewers: [String] = lock.withLock {
                    defer { pending = []; armed = false }
                    return Array(pending)
                }
                let payloads = Self.payloads(viewers)
                let send = send
                Task(executorPreference: PostgresStoreLoop.executor) { await send(payloads) }
            }
        }

        /// Names joined by commas, no payload past `payloadBytes` (a name has no comma; the
        /// anonymous viewer of a server without viewers is the empty name).
        static func payloads(_ viewers: [String]) -> [String] {
            var out: [String] = [], chunk: [String] = [], bytes = 0
            for viewer in viewers {
                if !chunk.isEmpty, bytes + 1 + viewer.utf8.count > payloadBytes {
                    out.append(chunk.joined(separator: ","))
                    chunk = []
                    bytes = 0
                }
                bytes += viewer.utf8.count + (chunk.isEmpty ? 0 : 1)
                chunk.append(viewer)
            }
            if !chunk.isEmpty { out.append(chunk.joined(separator: ",")) }
            return out
        }
    }

    /// `@unchecked Sendable`: `handlers` is touched only under `lock`.
    final class Observers: @unchecked Sendable {
        private let lock = NSLock()
        private var handlers: [@Sendable (String?) -> Void] = []
        func add(_ handler: @escaping @Sendable (String?) -> Void) { lock.withLock { handlers.append(handler) } }
        func tell(_ viewer: String?) {
            for handler in lock.withLock({ handlers }) { handler(viewer) }
        }
    }
}

/// Where PostgreSQL stores' connections answer and their work runs: an event loop group of
/// their own, one thread.
/// - Not Swift's cooperative pool, which other work can keep busy for long (seen in the
///   full test run: two minutes).
/// - Not a serial queue: that wakes a second thread for every statement the loop answers
///   (the first version; the held minute's p99 was 28 ms, here 9–15 ms).
/// - Not NIO's shared group: every HTTP server in the process answers there, and in the
///   full test suite a wait heard of another replica's batch 2.2–2.7 s late.
/// None of the work blocks: PostgresNIO is asynchronous throughout.
enum PostgresStoreLoop {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let executor = EventLoopExecutor(group.next())
}

/// A Swift task executor that runs its jobs on one NIO event loop.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop
    init(_ loop: any EventLoop) { self.loop = loop }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
