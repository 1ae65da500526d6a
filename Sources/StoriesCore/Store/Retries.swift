import Foundation

/// The wait before the next try after `attempt` tries that failed for a reason that may
/// pass (a timeout, a refused connection, a 5xx): the first wait, doubled each try, up to
/// a ceiling. The one retry rule of the project: the app's (`standard`: 1, 2, 4, 8, 16,
/// then 30 s) for pages, the home, stories' items, media and seen sync; the server's
/// listening connection to PostgreSQL (`reconnect`: 0.25 s doubling to 5 s — a replica
/// that hears no NOTIFY misses other terminals' seen state, so it tries sooner); a page
/// that added nothing (`stall`: 5 s doubling to 60).
public struct Backoff: Equatable, Sendable {
    public var first: Double
    public var ceiling: Double

    public init(first: Double, ceiling: Double) {
        self.first = first
        self.ceiling = ceiling
    }

    public static let standard = Backoff(first: 1, ceiling: 30)
    public static let reconnect = Backoff(first: 0.25, ceiling: 5)
    /// A page that added nothing (`StoryStore.stallBackoff`): 5 s doubling to a minute.
    public static let stall = Backoff(first: 5, ceiling: 60)

    /// The wait after `attempt` tries that failed in a row (1 or more).
    public func delay(afterAttempt attempt: Int) -> Double {
        min(ceiling, first * pow(2, Double(min(max(0, attempt - 1), 16))))
    }

    public static var maximum: Double { standard.ceiling }

    public static func delay(afterAttempt attempt: Int) -> Double { standard.delay(afterAttempt: attempt) }
}

/// Things (media by location, stories by id) whose last try failed for a reason that may
/// pass, each with its tries so far and when it is due again. Kept in `AppState` and
/// changed only by the reducer: it decides when to ask again (at `due`, or at once when the
/// source answers something else), the runtime only asks.
public struct Retries<Key: Hashable & Sendable & Comparable>: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        /// Tries that failed in a row.
        public var attempt: Int
        /// When (uptime) it is asked for again.
        public var due: Double
        /// Why the last try failed, as the source said it.
        public var reason: String
    }

    public private(set) var entries: [Key: Entry] = [:]

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: Key) -> Entry? { entries[key] }

    /// Another try failed: the next one is due after the backoff for the tries so far.
    @discardableResult
    public mutating func failed(_ key: Key, reason: String, at now: Double) -> Entry {
        let attempt = (entries[key]?.attempt ?? 0) + 1
        let entry = Entry(attempt: attempt, due: now + Backoff.delay(afterAttempt: attempt), reason: reason)
        entries[key] = entry
        return entry
    }

    /// Asked for again (or left until the source answers again): not due until it fails
    /// once more; its tries so far still count.
    public mutating func asked(_ key: Key) {
        entries[key]?.due = .infinity
    }

    /// It arrived, or nobody wants it any more: nothing to retry.
    public mutating func remove(_ key: Key) { entries[key] = nil }

    /// Those due by `now`, in key order (the same order every run).
    public func due(at now: Double) -> [Key] {
        entries.filter { $0.value.due <= now }.keys.sorted()
    }

    /// Every key, in order.
    public var keys: [Key] { entries.keys.sorted() }

    /// The earliest time one is due (none while every one is asked for again).
    public var nextDue: Double? { entries.values.map(\.due).filter(\.isFinite).min() }
}
