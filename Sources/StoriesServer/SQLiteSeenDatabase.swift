import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import StoriesCore
import StoriesFeedIO

/// The seen store in one SQLite file (SQLiteNIO: the statements run on NIO's thread pool,
/// never on the threads that answer requests). WAL, so a reader never waits for the writer
/// and a process killed at any moment leaves the last committed batch in the file;
/// `synchronous = NORMAL`, which in WAL loses nothing a killed process committed (only a
/// power cut can take the last commits back).
///
/// Before each use the file at the path is checked to be the one open: a store moved or
/// deleted under the server is said (503) rather than written into a file no one will
/// read again, and one put back is opened again.
///
/// `@unchecked Sendable`: `connection` and `identity` are touched only inside `gate.run`,
/// which runs one piece of work at a time.
public final class SQLiteSeenDatabase: SeenDatabase, @unchecked Sendable {
    private var connection: SQLiteConnection?
    /// The device and inode of the file `connection` has open.
    private var identity: (dev_t, ino_t)?
    private let gate = SerialGate()
    public let path: String
    public var place: String { path }
    static var executor: QueueExecutor { SeenStoreExecution.executor }
    /// SQLite's blocking calls run here, on threads of the store's own: NIO's shared pool
    /// may be busy with anyone's blocking work.
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    private init(path: String) {
        self.path = path
    }

    /// A store let go without `close`: its connection is closed on SQLite's thread pool (the
    /// work holds the connection until it is done).
    deinit {
        if let connection { _ = connection.close() as EventLoopFuture<Void> }
    }

    /// Opens (making it if missing) and migrates the store at `path`. A path that is a link,
    /// a folder or anything but a file is refused before SQLite opens it, and so is a file
    /// another user could change (`SafeFile.checkPrivate`).
    public static func open(path: String) async throws(SeenStoreFailure) -> SQLiteSeenDatabase {
        let database = SQLiteSeenDatabase(path: path)
        do throws(SeenStoreFailure) {
            try await database.gate.run { () throws(SeenStoreFailure) in try await database.connect() }
        } catch {
            throw SeenStoreFailure("seen store \(SafeText.line(path)): \(error.description)")
        }
        return database
    }

    /// The file at the path now (nil: nothing there); a link or anything but a file is refused.
    private func fileAtPath() throws(SeenStoreFailure) -> (dev_t, ino_t)? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SeenStoreFailure("not a file (a link, a folder or a device is not opened)")
        }
        // Who has seen what, and (through it) what the home shows each viewer: refused when
        // another user could change it.
        do throws(SafeFile.Failure) {
            try SafeFile.checkPrivate(owner: UInt32(status.st_uid), permissions: UInt32(status.st_mode & 0o7777), path: path)
        } catch {
            throw SeenStoreFailure(error.description)
        }
        return (status.st_dev, status.st_ino)
    }

    /// Opens the file and brings its tables to the latest version (inside the gate).
    private func connect() async throws(SeenStoreFailure) {
        if try fileAtPath() == nil {
            // Made here, mode 0600, so that whatever the umask SQLite (which gives its
            // journal files the store's mode) never makes a store the next start refuses.
            let fd = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { Glibc.close(fd) }
        }
        do {
            var logger = Logger(label: "stories.seen")
            logger.logLevel = .critical
            connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: Self.pool, logger: logger,
                                                         on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            throw SeenStoreFailure("cannot open: \(Self.reason(error))")
        }
        do throws(SeenStoreFailure) {
            try await prepare()
            identity = try fileAtPath()
        } catch {
            await disconnect()
            throw error
        }
    }

    private func disconnect() async {
        // The future's close: it runs whatever becomes of the task that waits for it.
        try? await connection?.close().get()
        connection = nil
        identity = nil
    }

    /// Inside the gate, before each use: the file open is still the one at the path.
    private func ensureOpen() async throws(SeenStoreFailure) {
        let now = try fileAtPath()
        if let identity, let now, identity == now, connection != nil { return }
        if connection != nil { await disconnect() }
        guard now != nil else {
            throw SeenStoreFailure("the store file \(SafeText.line(path)) is gone (moved or deleted); put it back, or start the server again to begin a new one")
        }
        try await connect()
    }

    /// Runs `work` in the gate on an open store; a store that fails in a way another
    /// connection may not (an I/O error, a closed handle) is opened again next time. The
    /// work runs to its end even when the request that asked goes away (a transaction cut
    /// between BEGIN and COMMIT would stay open on the connection).
    private func using<T: Sendable>(_ work: @Sendable @escaping () async throws(SeenStoreFailure) -> T) async throws(SeenStoreFailure) -> T {
        let result = await Task(executorPreference: Self.executor) { () async -> Result<T, SeenStoreFailure> in
            do throws(SeenStoreFailure) {
                return .success(try await self.gate.run { () throws(SeenStoreFailure) -> T in
                    try await self.ensureOpen()
                    do throws(SeenStoreFailure) { return try await work() } catch {
                        if error.reopen { await self.disconnect() }
                        throw error
                    }
                })
            } catch {
                return .failure(error)
            }
        }.value
        return try result.get()
    }

    /// Runs one statement as it is (tests: PRAGMA max_page_count for a full disk, query_only
    /// for a read-only one).
    func execute(_ sql: String) async throws(SeenStoreFailure) {
        try await using { () throws(SeenStoreFailure) in _ = try await self.rows(sql) }
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
        var version = try await self.version()
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
        try await using { () throws(SeenStoreFailure) -> Int in try await self.version() }
    }

    private func version() async throws(SeenStoreFailure) -> Int {
        Int(try await rows("SELECT version FROM stories_schema").first?.column("version")?.integer ?? 0)
    }

    public func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64 {
        try await using { () throws(SeenStoreFailure) -> Int64 in
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

    public func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenWire.Changes {
        try await using { () throws(SeenStoreFailure) -> SeenWire.Changes in
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
            let entries = rows.compactMap { row -> SeenWire.Entry? in
                guard let story = row.column("story")?.string, let item = row.column("item")?.string else { return nil }
                return SeenWire.Entry(story: story, item: item, at: Int64(row.column("seen_at")?.integer ?? 0))
            }
            let tooltips = try await self.rows("SELECT tooltip FROM tooltips WHERE viewer = ? AND seq > ? AND seq <= ? ORDER BY seq",
                                               [.text(viewer), .integer(Int(since)), .integer(Int(next))])
                .compactMap { $0.column("tooltip")?.string }
            return SeenWire.Changes(entries: entries, tooltips: tooltips, next: next, more: more)
        }
    }

    public func counter(viewer: String) async throws(SeenStoreFailure) -> Int64 {
        try await using { () throws(SeenStoreFailure) -> Int64 in
            Int64(try await self.rows("SELECT seq FROM viewers WHERE name = ?", [.text(viewer)]).first?.column("seq")?.integer ?? 0)
        }
    }

    public func everything(viewer: String) async throws(SeenStoreFailure) -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>) {
        try await using { () throws(SeenStoreFailure) -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>) in
            let counter = Int64(try await self.rows("SELECT seq FROM viewers WHERE name = ?", [.text(viewer)]).first?.column("seq")?.integer ?? 0)
            var items: [StoryID: Set<ItemID>] = [:]
            for row in try await self.rows("SELECT story, item FROM seen WHERE viewer = ?", [.text(viewer)]) {
                if let story = row.column("story")?.string, let item = row.column("item")?.string { items[story, default: []].insert(item) }
            }
            let tooltips = Set(try await self.rows("SELECT tooltip FROM tooltips WHERE viewer = ?", [.text(viewer)]).compactMap { $0.column("tooltip")?.string })
            return (counter, items, tooltips)
        }
    }

    public func close() async {
        try? await gate.run { () async in await self.disconnect() }
    }

    // MARK: - Statements

    private func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws(SeenStoreFailure) -> [SQLiteRow] {
        guard let connection else { throw SeenStoreFailure("the store is closed", reopen: true) }
        do { return try await connection.query(sql, binds) } catch {
            throw SeenStoreFailure(Self.reason(error), reopen: Self.worthReopening(error))
        }
    }

    /// Errors another connection to the same file may not meet.
    static func worthReopening(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        guard let failure = error as? SQLiteError else { return true }
        switch failure.reason {
        case .misuse, .ioError, .cantOpen, .ioErrorFailedWrite, .ioErrorFailedRead, .ioErrorFailedSync, .ioErrorFailedStat, .ioErrorFailedAccess:
            return true
        default:
            return false
        }
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
