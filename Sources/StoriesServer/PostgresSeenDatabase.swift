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
}
