import Foundation
import ServiceLifecycle
import StoriesCore

/// `PUT /v1/seen` and `GET /v1/seen?since=&wait=` (issue 34): a viewer's seen state, kept in
/// a `SeenDatabase`. The viewer is who the request's token names, never anything in the
/// request's body or path, so no viewer can read or change another's.
///
/// - PUT records a batch (`SeenWire.Batch`): idempotent (what is already seen stays as it
///   was), items of stories or items the feed does not have are left out and listed in the
///   receipt, a time in the future is taken as the server's now.
/// - GET answers what was recorded after `since` (a value of `next` from an earlier
///   answer); with `wait` (seconds, at most 30) and nothing new, it answers when something
///   is recorded or the wait is over — so a terminal catches up within moments of another's
///   watching, and waits without asking over and over.
public struct SeenAPI: Sendable {
    public let database: any SeenDatabase
    /// Which items each of these stories has (a story the feed does not have is left out).
    let catalog: @Sendable ([StoryID]) async -> [StoryID: Set<ItemID>]
    let signals = SeenSignals()
    /// Homes worked out, by viewer, counter and template tag.
    let homes = HomeMemo()
    /// The clock times are bounded by (seconds since 1970).
    let now: @Sendable () -> Int64

    /// The longest a GET may wait for something new.
    public static let longestWait = 30.0
    /// Seen times before this (2001) are taken as this.
    static let earliest: Int64 = 978_307_200

    /// The long polls held open in this process now, every viewer's together (what a test
    /// waits for; what a replica holds).
    public var heldPolls: Int { signals.waitingCount }

    public init(database: any SeenDatabase, catalog: @escaping @Sendable ([StoryID]) async -> [StoryID: Set<ItemID>],
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.database = database
        self.catalog = catalog
        self.now = now
        // Batches other replicas record wake this one's waits too.
        database.observe { [signals] viewer in
            if let viewer { signals.notify(viewer) } else { signals.wakeAll() }
        }
    }

    public func respond(method: String, query: [String: String], body: Data, viewer: Viewers.Viewer) async -> APIResponse {
        switch method {
        case "PUT", "POST": return await record(body, viewer: viewer)
        case "GET", "HEAD": return await changes(query, viewer: viewer, head: method == "HEAD")
        default:
            return Self.answer(405, FeedWire.error("only GET and PUT are answered on /v1/seen", status: 405), extra: [("Allow", "GET, HEAD, PUT")])
        }
    }

    private func record(_ body: Data, viewer: Viewers.Viewer) async -> APIResponse {
        let batch: SeenWire.Batch
        do { batch = try SeenWire.decodeBatch(body) } catch {
            let status = body.count > SeenWire.maxBatchBytes || error.reason.contains("more than the") ? 413 : 400
            return Self.answer(status, FeedWire.error(error.description, status: status))
        }
        let clock = now()
        var kept: [SeenEntry] = []
        var ignored: [SeenWire.Ignored] = []
        let known = await catalog(Array(Set(batch.entries.map(\.story))))
        for entry in batch.entries {
            guard let items = known[entry.story] else {
                ignored.append(.init(story: entry.story, item: entry.item, reason: "no story '\(entry.story)' in this feed"))
                continue
            }
            guard items.contains(entry.item) else {
                ignored.append(.init(story: entry.story, item: entry.item, reason: "story '\(entry.story)' has no item '\(SafeText.line(String(entry.item.prefix(64))))'"))
                continue
            }
            // A clock ahead of the server's (or before 2001) is not believed.
            let at = min(clock, max(Self.earliest, entry.at ?? clock))
            kept.append(SeenEntry(story: entry.story, item: entry.item, at: at))
        }
        do {
            let next = try await database.record(viewer: viewer.name, entries: kept, tooltips: batch.tooltips)
            signals.notify(viewer.name)
            let receipt = SeenWire.Receipt(next: next, recorded: kept.count, ignored: ignored)
            return Self.answer(200, SeenWire.receipt(receipt))
        } catch {
            return Self.unavailable(error)
        }
    }

    private func changes(_ query: [String: String], viewer: Viewers.Viewer, head: Bool) async -> APIResponse {
        var since: Int64 = 0
        if let text = query["since"] {
            guard text.utf8.count <= 16, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(text) else {
                return Self.answer(400, FeedWire.error("since must be a whole number (the next of an earlier answer)", status: 400))
            }
            since = value
        }
        var wait = 0.0
        if let text = query["wait"] {
            guard let value = Double(text), value.isFinite, value >= 0 else {
                return Self.answer(400, FeedWire.error("wait must be a number of seconds from 0 to \(Int(Self.longestWait))", status: 400))
            }
            wait = min(value, Self.longestWait)
        }
        // A long wait ends at a random moment in its last fifth: polls that began together
        // (every terminal after a restart) come back spread out, not all in the same second
        // (`stories bench hold`: 10 000 renewals at once made a minute's p99 2 s).
        wait = Self.spread(wait, Double.random(in: 0...1))
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        do {
            while true {
                let ticket = signals.ticket(viewer.name)
                let found = try await database.changes(viewer: viewer.name, since: since, limit: SeenWire.maxChanges)
                // Something new, or a `since` past what there is (a store started again
                // empty): answered at once, and `next` says where to go on from.
                // A server stopping answers at once (it waits for answers in flight).
                if !found.entries.isEmpty || !found.tooltips.isEmpty || found.next != since || ContinuousClock.now >= deadline
                    || Task.isShuttingDownGracefully {
                    let body = SeenWire.changes(found)
                    return Self.answer(200, head ? Data() : body, length: body.count)
                }
                await withGracefulShutdownHandler {
                    await signals.wait(viewer.name, after: ticket, until: deadline)
                } onGracefulShutdown: { [signals] in
                    signals.wakeAll()
                }
                // The wait ran out with nothing recorded or announced for this viewer since the
                // store was asked, or the client closed its side (the task is cancelled; one
                // that only half-closed still reads this): nothing new, said without asking the
                // store again (half of what waiting viewers cost PostgreSQL; a NOTIFY late past
                // the deadline is seen by the next poll, which asks the store first).
                if (ContinuousClock.now >= deadline || Task.isCancelled), signals.ticket(viewer.name) == ticket, !Task.isShuttingDownGracefully {
                    let body = SeenWire.changes(SeenWire.Changes(entries: [], tooltips: [], next: since, more: false))
                    return Self.answer(200, head ? Data() : body, length: body.count)
                }
            }
        } catch {
            return Self.unavailable(error)
        }
    }

    /// How long a wait of `wait` seconds lasts, `random` from 0 to 1: a wait of 10 s or more
    /// ends in its last fifth.
    static func spread(_ wait: Double, _ random: Double) -> Double {
        wait >= 10 ? wait * (0.8 + 0.2 * min(1, max(0, random))) : wait
    }

    /// `GET /v1/home` for one viewer: `home.json` worked out from their seen state
    /// (`ViewerHome`), kept while neither their counter nor the file moves, so an unchanged
    /// home is a 304 without reading their state. Its tag is the bytes' own, so it differs
    /// from viewer to viewer. A store that cannot be read gives the home of a viewer who has
    /// seen nothing yet (the feed goes on; `/v1/seen` says what is wrong).
    func home(_ api: FeedAPI, viewer: Viewers.Viewer, request: APIRequest) async -> APIResponse? {
        guard let template = api.homeTemplate() else { return nil }
        let counter = (try? await database.counter(viewer: viewer.name)) ?? -1
        let key = "\(viewer.name)|\(counter)|\(template.etag)"
        if counter >= 0, let kept = homes.get(key) {
            return api.document(kept.body, request, head: request.method == "HEAD", etag: kept.tag)
        }
        let state = try? await database.everything(viewer: viewer.name)
        let seen = ViewerHome.Seen(items: state?.items ?? [:], tooltips: state?.tooltips ?? [])
        let items = await catalog(ViewerHome.stories(in: template.bytes))
        guard let body = ViewerHome.personalize(template.bytes, seen: seen, items: items) else { return nil }
        let tag = ETag.strong(for: body)
        if let state { homes.set("\(viewer.name)|\(state.counter)|\(template.etag)", body: body, tag: tag) }
        return api.document(body, request, head: request.method == "HEAD", etag: tag)
    }

    /// The store cannot be used: 503, with when to try again; the client keeps its batch.
    static func unavailable(_ failure: SeenStoreFailure) -> APIResponse {
        let reason = "the seen store cannot be used now: \(failure.description)"
        var response = answer(503, FeedWire.error(reason, status: 503), extra: [("Retry-After", "2")])
        response.note = reason // and in the access log's line
        return response
    }

    /// A seen answer: private to the viewer and never kept by a cache.
    static func answer(_ status: Int, _ body: Data, length: Int? = nil, extra: [(String, String)] = []) -> APIResponse {
        APIResponse(status: status,
                    headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "private, no-store"),
                              ("Content-Length", String(length ?? body.count))] + extra,
                    body: body)
    }
}

/// Wakes the GETs waiting on a viewer when a batch of theirs is recorded (in this process).
/// `@unchecked Sendable`: `generations` and `waiting` are touched only under `lock`.
final class SeenSignals: @unchecked Sendable {
    static let timers = DispatchQueue(label: "stories.seen.timers")
    private let lock = NSLock()
    private var generations: [String: UInt64] = [:]
    private var waiting: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]

    /// The GETs waiting now, every viewer's.
    var waitingCount: Int { lock.withLock { waiting.values.reduce(0) { $0 + $1.count } } }

    /// Where the viewer's signals are now: a wait `after` it returns at once if a batch came since.
    func ticket(_ viewer: String) -> UInt64 { lock.withLock { generations[viewer] ?? 0 } }

    func notify(_ viewer: String) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            generations[viewer, default: 0] &+= 1
            // The count of viewers' generations is bounded by the viewers there are (a
            // server without a viewers file has one).
            return Array((waiting.removeValue(forKey: viewer) ?? [:]).values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Every wait ends now (the server is stopping).
    func wakeAll() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            defer { waiting.removeAll() }
            return waiting.values.flatMap(\.values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns when the viewer's generation passes `ticket`, at `deadline`, or when the task
    /// is cancelled (the client went away).
    func wait(_ viewer: String, after ticket: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await wait(viewer, id, after: ticket, until: deadline)
        } onCancel: {
            resume(viewer, id)
        }
    }

    private func wait(_ viewer: String, _ id: UUID, after ticket: UInt64, until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                // Cancelled before the wait was put down: `onCancel` found nothing to resume.
                if (generations[viewer] ?? 0) != ticket || Task.isCancelled { return true }
                waiting[viewer, default: [:]][id] = continuation
                return false
            }
            if now { continuation.resume(); return }
            // A Dispatch timer, not a task: the wait ends on time however busy Swift's
            // cooperative pool is.
            let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
            let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
            Self.timers.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, 3_600_000_000_000)))) { self.resume(viewer, id) }
        }
    }

    private func resume(_ viewer: String, _ id: UUID) {
        let continuation: CheckedContinuation<Void, Never>? = lock.withLock {
            let found = waiting[viewer]?.removeValue(forKey: id)
            if waiting[viewer]?.isEmpty == true { waiting[viewer] = nil }
            return found
        }
        continuation?.resume()
    }
}

/// Homes worked out for viewers, at most a few thousand (emptied when full).
/// `@unchecked Sendable`: `kept` is touched only under `lock`.
final class HomeMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String: (body: Data, tag: String)] = [:]

    func get(_ key: String) -> (body: Data, tag: String)? { lock.withLock { kept[key] } }

    func set(_ key: String, body: Data, tag: String) {
        lock.withLock {
            if kept.count >= 4096 { kept.removeAll() }
            kept[key] = (body, tag)
        }
    }
}
