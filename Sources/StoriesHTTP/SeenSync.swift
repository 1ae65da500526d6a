import AsyncHTTPClient
import Dispatch
import Foundation
import NIOCore
import StoriesCore
import StoriesFeedIO

/// A viewer's seen state kept in step with `stories serve` (issue 34): `PUT /v1/seen` with
/// what the server does not have yet, `GET /v1/seen?since=&wait=` for what the viewer saw
/// on other terminals.
///
/// - What is to send is never a list of its own: it is what the app's seen state has and
///   the server is not known to have. The app's state is on disk (`SeenStore`), so what a
///   killed terminal or an absent server did not take is sent on the next run, from there.
/// - At most one batch (1000 items) a second; after a failure, again after 1, 2, 4 … 30 s;
///   a refused token stops sending, with a line that says so.
/// - The server holds each GET until something is recorded (at most 25 s): nothing is
///   asked over and over while nothing happens.
///
/// `@unchecked Sendable`: every mutable property is touched only on `queue`; the pulls
/// run on a thread of their own and hand what they learn to `queue`.
public final class SeenSync: SeenRemote, @unchecked Sendable {
    public let server: URL
    private let authorization: String?
    /// Threads of its own, not Dispatch's pool: a request waits on its thread, and a pool
    /// kept busy by other work (a test run's hundreds of tests) would hold the sync up.
    private let queue = Worker(name: "seen.sync")
    private let sender = Worker(name: "seen.send")
    /// What the server has (sent and taken, or heard from it).
    private var known = SeenState()
    /// The app's state, as last pushed.
    private var latest = SeenState()
    /// The first answer of the server's state came: sending starts then, so what it has is
    /// not sent again.
    private var ready = false
    private var sending = false
    private var timerArmed = false
    private var nextSend = DispatchTime.now()
    private var sendFailures = 0
    private var sendingStopped = false
    private var pullStopped = false
    /// `finish` was called: nothing more is sent or armed (its own last batch aside).
    private var finished = false
    private var problemSaid = false
    private var arrived: (@Sendable (SeenState) -> Void)?
    private var problem: (@Sendable (String?) -> Void)?
    private var changed: (@Sendable () -> Void)?
    /// How long the server may hold a GET (below any proxy's read timeout).
    let wait: Double
    /// The shortest time between two batches.
    let interval: Double

    /// In step with the server `feed` reads from, as the same viewer.
    public convenience init(feed: HTTPFeed, wait: Double = 25, interval: Double = 1) {
        self.init(server: feed.server, authorization: feed.authorization, wait: wait, interval: interval)
    }

    public init(server: URL, authorization: String?, wait: Double = 25, interval: Double = 1) {
        self.server = server
        self.authorization = authorization
        self.wait = max(0, min(wait, 30))
        self.interval = max(0.05, interval)
    }

    public func start(local: SeenState, arrived: @escaping @Sendable (SeenState) -> Void, problem: @escaping @Sendable (String?) -> Void,
                      changed: @escaping @Sendable () -> Void = {}) {
        queue.async { [self] in
            latest = local
            self.arrived = arrived
            self.problem = problem
            self.changed = changed
        }
        let thread = Thread { [self] in
            Thread.current.name = "seen.pull" // from inside, as `Worker` does; Linux takes 15 bytes at most
            pullForever()
        }
        thread.qualityOfService = .utility
        thread.start()
    }

    public func push(_ state: SeenState) {
        queue.async { [self] in
            latest = state
            sendWhenDue()
        }
    }

    public func finish(timeout: Double) {
        let done = DispatchSemaphore(value: 0)
        queue.async { [self] in
            pullStopped = true
            finished = true
            // Nothing more is told once a pull already on its way has told what it brought;
            // and whatever the callbacks hold (an engine that holds this) is let go, so this
            // and its threads can end.
            (arrived, problem, changed) = (nil, nil, nil)
            let missing = latest.subtracting(known)
            guard ready, !sendingStopped, !sending, !missing.isEmpty else { done.signal(); return }
            let batch = Self.batch(of: missing)
            sender.async { [self] in
                _ = put(batch, timeout: timeout)
                done.signal()
            }
        }
        _ = done.wait(timeout: .now() + max(0, min(timeout, 10)))
    }

    // MARK: - Sending

    /// Sends what the server lacks now, or arms one timer for when sending is next allowed
    /// (on `queue`).
    private func sendWhenDue() {
        guard ready, !sending, !sendingStopped, !timerArmed, !finished else { return }
        let missing = latest.subtracting(known)
        guard !missing.isEmpty else { return }
        if DispatchTime.now() < nextSend {
            timerArmed = true
            queue.asyncAfter(deadline: nextSend) { [self] in
                timerArmed = false
                sendWhenDue()
            }
            return
        }
        let batch = Self.batch(of: missing)
        sending = true
        sender.async { [self] in
            let result = put(batch, timeout: 15)
            queue.async { [self] in sent(batch, result) }
        }
    }

    /// At most a batch's worth, stories in order so a long queue goes out the same way each time.
    static func batch(of missing: SeenState) -> SeenWire.Batch {
        var entries: [SeenWire.Entry] = []
        outer: for story in missing.items.keys.sorted() {
            for item in (missing.items[story] ?? []).sorted() {
                guard entries.count < SeenWire.maxItems else { break outer }
                entries.append(SeenWire.Entry(story: story, item: item))
            }
        }
        return SeenWire.Batch(entries: entries, tooltips: Array(missing.tooltips.sorted().prefix(SeenWire.maxTooltips)))
    }

    enum Outcome: Equatable {
        case taken(SeenWire.Receipt)
        /// Worth trying again later (the network, a 5xx, a 429).
        case failed(String)
        /// The server will never take it (a 4xx): not sent again.
        case refused(Int, String)
    }

    /// What a PUT came to (on `queue`).
    private func sent(_ batch: SeenWire.Batch, _ outcome: Outcome) {
        sending = false
        switch outcome {
        case .taken(let receipt):
            // Left out as unknown, or kept: either way not sent again.
            known.merge(Self.state(batch.entries, tooltips: batch.tooltips))
            if receipt.recorded > 0 || !batch.tooltips.isEmpty { changed?() }
            sendFailures = 0
            nextSend = .now() + interval
            if problemSaid { problemSaid = false; problem?(nil) }
        case .failed(let reason):
            sendFailures += 1
            let delay = Backoff.delay(afterAttempt: sendFailures) // the one policy
            nextSend = .now() + delay
            problemSaid = true
            problem?("Seen state not synced with the server: \(reason); kept here, trying again in \(Int(delay)) s")
        case .refused(404, _), .refused(405, _):
            sendingStopped = true // no seen state kept there (see `pullForever`)
        case .refused(401, _):
            sendingStopped = true
            problemSaid = true
            problem?("The server refused this token: seen state stays on this machine (check STORIES_TOKEN)")
        case .refused(let status, let reason):
            // A batch this server will never take: marked as sent so it is not sent for ever.
            known.merge(Self.state(batch.entries, tooltips: batch.tooltips))
            nextSend = .now() + interval
            problemSaid = true
            problem?("The server refused seen state (\(status)): \(reason)")
        }
        sendWhenDue()
    }

    private func put(_ batch: SeenWire.Batch, timeout: Double) -> Outcome {
        let url = HTTPFeed.url(server, "/v1/seen")
        let authorization = authorization
        let body = SeenWire.batch(batch)
        let result = HTTPFeed.wait(timeout: timeout) { () async throws -> (Int, Data) in
            var request = HTTPClientRequest(url: url)
            request.method = .PUT
            request.headers.add(name: "Content-Type", value: "application/json")
            if let authorization { request.headers.add(name: "Authorization", value: authorization) }
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await HTTPFeed.client.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            let bytes = try await response.body.collect(upTo: SeenWire.maxBatchBytes * 4)
            return (Int(response.status.code), Data(bytes.readableBytesView))
        }
        switch result {
        case .success((200, let data)):
            guard let receipt = try? SeenWire.decodeReceipt(data, file: url) else { return .failed("the server's receipt is not one") }
            return .taken(receipt)
        case .success(let (status, data)):
            let reason = HTTPFeed.serverMessage(data) ?? "status \(status)"
            if status >= 500 || status == 429 || status == 408 { return .failed("the server answered \(status): \(reason)") }
            return .refused(status, reason)
        case .failure(let error):
            return .failed("cannot reach the server: \(HTTPFeed.describe(error, maxBytes: SeenWire.maxBatchBytes))")
        }
    }

    // MARK: - Pulling

    /// GET after GET on a thread of its own: each waits at the server until something new.
    private func pullForever() {
        var since: Int64 = 0
        var failures = 0
        while !queue.sync(execute: { [self] in pullStopped }) {
            switch pull(since: since, wait: ready(since) ? wait : 0) {
            case .success(let changes):
                failures = 0
                let news = Self.state(changes.entries, tooltips: changes.tooltips)
                since = changes.next
                // News is what this terminal has not seen itself.
                let (fresh, tell, moved) = queue.sync { [self] () -> (SeenState, (@Sendable (SeenState) -> Void)?, (@Sendable () -> Void)?) in
                    known.merge(news)
                    if !changes.more { ready = true }
                    if problemSaid, !sendingStopped, sendFailures == 0 { problemSaid = false; problem?(nil) }
                    sendWhenDue()
                    return (news.subtracting(latest), arrived, changed)
                }
                if !fresh.isEmpty {
                    tell?(fresh)
                    moved?()
                }
            case .failure(let refusal) where refusal.status == 404 || refusal.status == 405:
                // A server that keeps no seen state (`--database none`, or one from before
                // there were viewers): nothing to sync, nothing to say.
                queue.sync { [self] in
                    sendingStopped = true
                    pullStopped = true
                }
                return
            case .failure(let refusal) where refusal.status == 401:
                queue.sync { [self] in
                    sendingStopped = true
                    pullStopped = true
                    problemSaid = true
                    problem?("The server refused this token: seen state stays on this machine (check STORIES_TOKEN)")
                }
                return
            case .failure(let refusal):
                failures += 1
                let delay = Backoff.delay(afterAttempt: failures) // the one policy
                queue.sync { [self] in
                    // Sending goes on from what is known (the server dedups what it has).
                    ready = true
                    sendWhenDue()
                }
                if failures >= 2 {
                    queue.sync { [self] in problemSaid = true; problem?("Seen state from other terminals is not arriving: \(refusal.reason); trying again in \(Int(delay)) s") }
                }
                Thread.sleep(forTimeInterval: delay)
            }
        }
    }

    /// Whether the first answer came (the pulls before it do not wait).
    private func ready(_ since: Int64) -> Bool { queue.sync { [self] in ready } }

    struct Refusal: Error {
        var status: Int
        var reason: String
    }

    private func pull(since: Int64, wait: Double) -> Result<SeenWire.Changes, Refusal> {
        let url = HTTPFeed.url(server, "/v1/seen?since=\(since)&wait=\(Int(wait))")
        let authorization = authorization
        let result = HTTPFeed.wait(timeout: wait + 15) { () async throws -> (Int, Data) in
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            if let authorization { request.headers.add(name: "Authorization", value: authorization) }
            let response = try await HTTPFeed.client.execute(request, deadline: .now() + .milliseconds(Int64((wait + 15) * 1000)))
            let bytes = try await response.body.collect(upTo: SeenWire.maxChangesBytes)
            return (Int(response.status.code), Data(bytes.readableBytesView))
        }
        switch result {
        case .success((200, let data)):
            do { return .success(try SeenWire.decodeChanges(data, file: url)) } catch {
                return .failure(Refusal(status: 200, reason: error.description))
            }
        case .success(let (status, data)):
            return .failure(Refusal(status: status, reason: "the server answered \(status): \(HTTPFeed.serverMessage(data) ?? "")"))
        case .failure(let error):
            return .failure(Refusal(status: 0, reason: "cannot reach the server: \(HTTPFeed.describe(error, maxBytes: SeenWire.maxChangesBytes))"))
        }
    }

    static func state(_ entries: [SeenWire.Entry], tooltips: [String]) -> SeenState {
        var items: [StoryID: Set<ItemID>] = [:]
        for entry in entries { items[entry.story, default: []].insert(entry.item) }
        return SeenState(items: items, tooltips: Set(tooltips))
    }
}

/// A thread that runs jobs in order, each at its time: what `SeenSync` needs of a serial
/// queue, on a thread that is there whatever else the process is doing. The thread ends
/// once the worker is gone and no job is left (a job waiting for its time still runs).
final class Worker: Sendable {
    private let jobs = Jobs()

    init(name: String) {
        let jobs = jobs
        let thread = Thread {
            // Named from inside, by the thread itself: Foundation's setter names only the
            // running thread, and can miss one that runs before `start` has returned.
            Thread.current.name = name
            nameThisThread(name)
            jobs.run()
        }
        thread.qualityOfService = .utility
        thread.start()
    }

    deinit { jobs.end() }

    func async(_ job: @escaping () -> Void) { asyncAfter(deadline: .now(), job) }

    func asyncAfter(deadline: DispatchTime, _ job: @escaping () -> Void) { jobs.add(job, at: deadline) }

    /// Runs `job` on the thread and waits for it (never from the thread itself). Escaping:
    /// the thread may still hold the job for a moment after it has run.
    func sync<T>(execute job: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Box<T>()
        async {
            box.value = job()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { preconditionFailure("the job ran and set its result") }
        return value
    }

    /// A job's result, handed to the waiting thread (the semaphore orders the two).
    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }

    /// The jobs and the loop the thread runs; the thread holds these, not the worker, so
    /// the worker can go. `@unchecked Sendable`: `list`, `counter` and `ended` are touched
    /// only under `condition`.
    private final class Jobs: @unchecked Sendable {
        private let condition = NSCondition()
        private var list: [(at: DispatchTime, order: UInt64, job: () -> Void)] = []
        private var counter: UInt64 = 0
        private var ended = false

        func add(_ job: @escaping () -> Void, at deadline: DispatchTime) {
            condition.lock()
            counter &+= 1
            list.append((deadline, counter, job))
            condition.signal()
            condition.unlock()
        }

        func end() {
            condition.lock()
            ended = true
            condition.signal()
            condition.unlock()
        }

        func run() {
            while let job = next() { job() }
        }

        /// The next job when its time comes; nil once ended with none left.
        private func next() -> (() -> Void)? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                let now = DispatchTime.now()
                if let index = list.indices.min(by: { (list[$0].at, list[$0].order) < (list[$1].at, list[$1].order) }) {
                    if list[index].at <= now { return list.remove(at: index).job }
                    let wait = Double(list[index].at.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9
                    _ = condition.wait(until: Date(timeIntervalSinceNow: wait))
                } else if ended {
                    return nil
                } else {
                    condition.wait()
                }
            }
        }
    }
}
