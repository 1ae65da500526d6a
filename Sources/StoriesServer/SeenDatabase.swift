import Foundation
import StoriesCore
import StoriesFeedIO

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

/// Why the seen store could not be used: said to the client as 503, and the client keeps
/// what it sent to send again.
public struct SeenStoreFailure: Error, CustomStringConvertible, Equatable {
    public let description: String
    /// The connection is worth opening again before the next use.
    let reopen: Bool
    public init(_ description: String) {
        self.description = description
        reopen = false
    }
    init(_ description: String, reopen: Bool) {
        self.description = description
        self.reopen = reopen
    }
}

/// Where viewers' seen state is kept. Each viewer has a counter that every recorded batch
/// moves on; `changes(since:)` answers with what came after a value of it, so a terminal
/// catches up by asking from the last `next` it was given (no clocks compared).
public protocol SeenDatabase: Sendable {
    /// Records a batch (items and tooltips already seen are left as they are: a batch sent
    /// twice changes nothing). Returns the viewer's counter after it.
    func record(viewer: String, entries: [SeenEntry], tooltips: [String]) async throws(SeenStoreFailure) -> Int64
    /// What the viewer recorded after `since`, at most about `limit` items.
    func changes(viewer: String, since: Int64, limit: Int) async throws(SeenStoreFailure) -> SeenWire.Changes
    /// The viewer's counter: it moves with every batch (a home worked out at one value of
    /// it is the same until it moves).
    func counter(viewer: String) async throws(SeenStoreFailure) -> Int64
    /// Everything the viewer has seen, and the tooltips they were shown.
    func everything(viewer: String) async throws(SeenStoreFailure) -> (counter: Int64, items: [StoryID: Set<ItemID>], tooltips: Set<String>)
    /// The schema version the store is at (tests, `stories serve` at start).
    func schemaVersion() async throws(SeenStoreFailure) -> Int
    func close() async
    /// Where the state is kept, as it may be printed (a path; an address without password).
    var place: String { get }
    /// `handler` is told the viewer whose batch any server sharing the store recorded (nil:
    /// anyone's may have been, unheard). A store only this process writes tells nothing: the
    /// API wakes its own waits.
    func observe(_ handler: @escaping @Sendable (String?) -> Void)
}

extension SeenDatabase {
    public func observe(_ handler: @escaping @Sendable (String?) -> Void) {}

    /// Whether the store answers a read now (within its own patience): what
    /// `GET /v1/health` says as the database's state.
    public func usable() async -> Bool { (try? await schemaVersion()) != nil }
}

/// Where SQLite stores' async work runs: a queue of their own (an unstructured task would
/// otherwise take Swift's cooperative pool, which other work can keep busy for long — seen
/// in the full test run: two minutes). PostgreSQL's runs on `PostgresStoreLoop`.
enum SeenStoreExecution {
    static let executor = QueueExecutor(label: "stories.seen.store")
}

/// The store's tables, one step a version; a store at version N runs steps N+1… at start,
/// each in a transaction with the version it reaches. Written once, never edited: a new
/// need is a new step. The same statements for SQLite and PostgreSQL: BIGINT is SQLite's
/// INTEGER and PostgreSQL's 64 bits (its INTEGER has 32, too few for seconds past 2038).
enum SeenSchema {
    static let steps: [[String]] = [
        // 1: viewers with their counters, the items they have seen, the tooltips shown.
        [
            "CREATE TABLE viewers (name TEXT PRIMARY KEY, seq BIGINT NOT NULL)",
            "CREATE TABLE seen (viewer TEXT NOT NULL, story TEXT NOT NULL, item TEXT NOT NULL, seq BIGINT NOT NULL, seen_at BIGINT NOT NULL, PRIMARY KEY (viewer, story, item))",
            "CREATE INDEX seen_by_seq ON seen (viewer, seq)",
            "CREATE TABLE tooltips (viewer TEXT NOT NULL, tooltip TEXT NOT NULL, seq BIGINT NOT NULL, PRIMARY KEY (viewer, tooltip))",
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
