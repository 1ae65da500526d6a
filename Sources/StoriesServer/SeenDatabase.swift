import Foundation
import Logging
import SQLiteNIO
import StoriesCore

/// One item a viewer has seen, and when (seconds since 1970, as the server counts them).
public struct SeenEntry: Sendable, Equatable, Hashable {
    public var story: String
    public var item: String
    public var at: Int64

    public init(story: String, item: String, at: Int64) {
        self.story = story
        self.item = item
        self.at = at
    }
}

/// What changed for a viewer after a point: the items and tooltips recorded since, the
/// point to ask from next, and whether more is waiting past it.
public struct SeenChanges: Sendable, Equatable {
    public var entries: [SeenEntry]
    public var tooltips: [String]
    public var next: Int64
    public var more: Bool
}

/// Why the seen store could not be used: said to the client as 503, and the client keeps
/// what it sent to send again.
public struct SeenStoreFailure: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Where viewers' seen state is kept. Each viewer has a counter that every recorded batch
/// moves on; `changes(since:)` answers with what came after a value of it, so a terminal
/// catches up by asking from the last `next` it was given (no clocks compared).
public protocol SeenDatabase: Sendable {
    /// Records a batch (items and tooltips already seen are left as they are: a batch sent
    /// twice changes nothing). Returns the viewer's counter after it.
    func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64
    /// What the viewer recorded after `since`, at most about `limit` items.
    func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenChanges
    /// The schema version the store is at (tests, `stories serve` at start).
    func schemaVersion() async throws(SeenStoreFailure) -> Int
    func close() async
}

/// The store's tables, one step a version; a store at version N runs steps N+1… at start,
/// each in a transaction with the version it reaches. Written once, never edited: a new
/// need is a new step.
enum SeenSchema {
    static let steps: [[String]] = [
        // 1: viewers with their counters, the items they have seen, the tooltips shown.
        [
            "CREATE TABLE viewers (name TEXT PRIMARY KEY, seq INTEGER NOT NULL)",
            "CREATE TABLE seen (viewer TEXT NOT NULL, story TEXT NOT NULL, item TEXT NOT NULL, seq INTEGER NOT NULL, seen_at INTEGER NOT NULL, PRIMARY KEY (viewer, story, item))",
            "CREATE INDEX seen_by_seq ON seen (viewer, seq)",
            "CREATE TABLE tooltips (viewer TEXT NOT NULL, tooltip TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (viewer, tooltip))",
        ],
    ]
    static var latest: Int { steps.count }
}

/// Runs one piece of async work at a time, in the order asked (a transaction on the one
/// connection must not interleave with another's statements).
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ work: @Sendable () async throws(SeenStoreFailure) -> T) async throws(SeenStoreFailure) -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await work()
    }
}

/// The seen store in one SQLite file (SQLiteNIO: the statements run on NIO's thread pool,
/// never on the threads that answer requests). WAL, so a reader never waits for the writer
/// and a process killed at any moment leaves the last committed batch in the file;
/// `synchronous = NORMAL`, which in WAL loses nothing a killed process committed (only a
/// power cut can take the last commits back).
public final class SQLiteSeenDatabase: SeenDatabase {
    private let connection: SQLiteConnection
    private let gate = SerialGate()
    public let path: String

    private init(connection: SQLiteConnection, path: String) {
        self.connection = connection
        self.path = path
    }

    /// Opens (making it if missing) and migrates the store at `path`. A path that is a link,
    /// a folder or anything but a file is refused before SQLite opens it.
    public static func open(path: String) async throws(SeenStoreFailure) -> SQLiteSeenDatabase {
        let shown = SafeText.line(path)
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw SeenStoreFailure("seen store \(shown): not a file (a link, a folder or a device is not opened)")
        }
        let connection: SQLiteConnection
        do {
            var logger = Logger(label: "stories.seen")
            logger.logLevel = .critical
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw SeenStoreFailure("seen store \(shown): cannot open: \(Self.reason(error))")
        }
        let database = SQLiteSeenDatabase(connection: connection, path: path)
        do throws(SeenStoreFailure) {
            try await database.prepare()
        } catch {
            await database.close()
            throw SeenStoreFailure("seen store \(shown): \(error.description)")
        }
        return database
    }

    private func prepare() async throws(SeenStoreFailure) {
        let mode = try await rows("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
        guard mode?.lowercased() == "wal" else { throw SeenStoreFailure("could not turn on write-ahead logging (\(mode ?? "no answer"))") }
        _ = try await rows("PRAGMA synchronous = NORMAL")
        _ = try await rows("PRAGMA busy_timeout = 5000")
        // Not a store of ours: refused, not changed.
        let tables = try await rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.column("name")?.string }
        if !tables.isEmpty, !tables.contains("stories_schema") {
            throw SeenStoreFailure("the file is an SQLite database of something else (no stories_schema table); give another --database")
        }
        _ = try await rows("CREATE TABLE IF NOT EXISTS stories_schema (version INTEGER NOT NULL)")
        var version = try await schemaVersion()
        guard version <= SeenSchema.latest else {
            throw SeenStoreFailure("the store is at schema version \(version), newer than this server's \(SeenSchema.latest); run a newer stories")
        }
        while version < SeenSchema.latest {
            let step = SeenSchema.steps[version]
            let next = version + 1
            try await transaction { () throws(SeenStoreFailure) in
                for statement in step { _ = try await self.rows(statement) }
                _ = try await self.rows("DELETE FROM stories_schema")
                _ = try await self.rows("INSERT INTO stories_schema (version) VALUES (?)", [.integer(next)])
            }
            version = next
        }
    }

    public func schemaVersion() async throws(SeenStoreFailure) -> Int {
        Int(try await rows("SELECT version FROM stories_schema").first?.column("version")?.integer ?? 0)
    }

    public func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64 {
        try await gate.run { () throws(SeenStoreFailure) -> Int64 in
            try await self.transaction { () throws(SeenStoreFailure) -> Int64 in
                _ = try await self.rows("INSERT INTO viewers (name, seq) VALUES (?, 0) ON CONFLICT (name) DO NOTHING", [.text(viewer)])
                let seq = try await self.rows("UPDATE viewers SET seq = seq + 1 WHERE name = ? RETURNING seq", [.text(viewer)])
                    .first?.column("seq")?.integer ?? 0
                let count = Int64(seq)
                // A few hundred rows a statement (SQLite's bound on parameters is far above).
                for chunk in stride(from: 0, to: entries.count, by: 200) {
                    let part = entries[chunk..<min(entries.count, chunk + 200)]
                    let values = Array(repeating: "(?, ?, ?, ?, ?)", count: part.count).joined(separator: ", ")
                    var binds: [SQLiteData] = []
                    binds.reserveCapacity(part.count * 5)
                    for entry in part {
                        binds += [.text(viewer), .text(entry.story), .text(entry.item), .integer(Int(count)), .integer(Int(entry.at))]
                    }
                    _ = try await self.rows("INSERT INTO seen (viewer, story, item, seq, seen_at) VALUES \(values) ON CONFLICT DO NOTHING", binds)
                }
                for tooltip in tooltips {
                    _ = try await self.rows("INSERT INTO tooltips (viewer, tooltip, seq) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                            [.text(viewer), .text(tooltip), .integer(Int(count))])
                }
                return count
            }
        }
    }

    public func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenChanges {
        try await gate.run { () throws(SeenStoreFailure) -> SeenChanges in
            let latest = Int64(try await self.rows("SELECT seq FROM viewers WHERE name = ?", [.text(viewer)]).first?.column("seq")?.integer ?? 0)
            let found = try await self.rows("SELECT story, item, seen_at, seq FROM seen WHERE viewer = ? AND seq > ? ORDER BY seq LIMIT ?",
                                            [.text(viewer), .integer(Int(since)), .integer(limit + 1)])
            var next = latest // below `since` when the store began again: the client goes on from here
            var more = false
            var rows = found
            if found.count > limit, let cut = found[limit].column("seq")?.integer {
                // A batch is never split: everything before the first batch left out (a
                // batch holds fewer items than `limit`, so something is always given).
                rows = found.filter { ($0.column("seq")?.integer ?? .max) < cut }
                next = Int64(cut) - 1
                more = true
            }
            let entries = rows.compactMap { row -> SeenEntry? in
                guard let story = row.column("story")?.string, let item = row.column("item")?.string else { return nil }
                return SeenEntry(story: story, item: item, at: Int64(row.column("seen_at")?.integer ?? 0))
            }
            let tooltips = try await self.rows("SELECT tooltip FROM tooltips WHERE viewer = ? AND seq > ? AND seq <= ? ORDER BY seq",
                                               [.text(viewer), .integer(Int(since)), .integer(Int(next))])
                .compactMap { $0.column("tooltip")?.string }
            return SeenChanges(entries: entries, tooltips: tooltips, next: next, more: more)
        }
    }

    public func close() async {
        try? await connection.close()
    }

    // MARK: - Statements

    private func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws(SeenStoreFailure) -> [SQLiteRow] {
        do { return try await connection.query(sql, binds) } catch { throw SeenStoreFailure(Self.reason(error)) }
    }

    /// `work` between BEGIN IMMEDIATE and COMMIT; rolled back when it fails.
    private func transaction<T>(_ work: () async throws(SeenStoreFailure) -> T) async throws(SeenStoreFailure) -> T {
        _ = try await rows("BEGIN IMMEDIATE")
        do {
            let result = try await work()
            _ = try await rows("COMMIT")
            return result
        } catch {
            _ = try? await rows("ROLLBACK")
            throw error
        }
    }

    /// SQLite's error in words a person can act on.
    static func reason(_ error: any Error) -> String {
        guard let failure = error as? SQLiteError else { return SafeText.line(String(describing: error)) }
        switch failure.reason {
        case .full: return "the disk is full"
        case .readOnly, .readonlyInRecovery, .readonlyCantLock, .readonlyInRollback, .readonlyBackingMoved, .readonlyDirectory:
            return "the database is read-only"
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath, .cantOpenUnfollowedSymlink, .permission:
            return "cannot open the file"
        case .ioError, .ioErrorFailedWrite, .ioErrorFailedSync, .ioErrorFailedRead, .ioErrorFailedDelete, .ioErrorFailedStat,
             .ioErrorFailedAccess:
            return "the file cannot be read or written (\(SafeText.line(failure.message)))"
        case .corrupt, .notADatabase: return "the file is not a working SQLite database"
        case .busy, .locked: return "the database is busy"
        default: return SafeText.line(failure.message)
        }
    }
}
