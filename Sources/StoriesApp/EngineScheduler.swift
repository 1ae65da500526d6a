import Dispatch
import StoriesCore

/// Work waiting on the scheduler; `cancel` stops it from running.
@MainActor
public final class ScheduledWork: Cancellable {
    public private(set) var isCancelled = false
    public func cancel() { isCancelled = true }
}

/// Time and deferred work for `AppEngine`: the main queue on the system clock in the app,
/// or `VirtualScheduler`, whose clock moves only when the replay says so.
@MainActor
public protocol EngineScheduler: AnyObject {
    func now() -> Moment
    /// Runs `work` on the main actor after `delay` seconds (0: after the current turn).
    @discardableResult
    func after(_ delay: Double, _ work: @escaping @MainActor () -> Void) -> ScheduledWork
}

/// The app's scheduler: Dispatch on the main queue, the system clock.
@MainActor
public final class MainQueueScheduler: EngineScheduler {
    private let clock: any Clock

    public init(clock: any Clock = SystemClock()) { self.clock = clock }

    public func now() -> Moment { clock.now() }

    @discardableResult
    public func after(_ delay: Double, _ work: @escaping @MainActor () -> Void) -> ScheduledWork {
        let token = ScheduledWork()
        let run: @Sendable () -> Void = {
            MainActor.assumeIsolated {
                if !token.isCancelled { work() }
            }
        }
        if delay <= 0 {
            DispatchQueue.main.async(execute: run)
        } else {
            DispatchQueue.main.asyncAfter(deadline: .now() + delay, execute: run)
        }
        return token
    }
}

/// A clock that stands still until `run(until:)` moves it from one piece of scheduled work
/// to the next, in time order (ties in the order they were scheduled). Nothing here reads
/// the system clock, so a replay on it is the same every time, frame for frame.
@MainActor
public final class VirtualScheduler: EngineScheduler {
    private struct Entry {
        var time: Double
        var order: Int
        var token: ScheduledWork
        var work: @MainActor () -> Void
    }

    private var current: Moment
    private var queue: [Entry] = []
    private var nextOrder = 0

    public init(start: Moment) { current = start }

    public func now() -> Moment { current }

    @discardableResult
    public func after(_ delay: Double, _ work: @escaping @MainActor () -> Void) -> ScheduledWork {
        let token = ScheduledWork()
        queue.append(Entry(time: current.uptime + max(0, delay), order: nextOrder, token: token, work: work))
        nextOrder += 1
        return token
    }

    /// Runs everything due up to `uptime` in order, moving the clock to each, and leaves
    /// the clock at `uptime` — or, after `limit` pieces of work (a story playing on for a
    /// virtual year is 10⁹ frames), at the last one run; false then.
    @discardableResult
    public func run(until uptime: Double, limit: Int = .max) -> Bool {
        var steps = 0
        while let index = nextIndex(), queue[index].time <= uptime + 1e-9 {
            guard steps < limit else { return false }
            let entry = queue.remove(at: index)
            advance(to: entry.time)
            entry.work()
            steps += 1
        }
        advance(to: uptime)
        return true
    }

    /// Runs the next piece of work alone (whenever it is due); false when there is none.
    @discardableResult
    public func runNext() -> Bool {
        guard let index = nextIndex() else { return false }
        let entry = queue.remove(at: index)
        advance(to: entry.time)
        entry.work()
        return true
    }

    /// When the next piece of work is due (uptime), nil when there is none.
    public var nextDue: Double? { nextIndex().map { queue[$0].time } }

    private func nextIndex() -> Int? {
        queue.removeAll { $0.token.isCancelled }
        return queue.indices.min { (queue[$0].time, queue[$0].order) < (queue[$1].time, queue[$1].order) }
    }

    private func advance(to uptime: Double) {
        if uptime > current.uptime { current = current.advanced(by: uptime - current.uptime) }
    }
}
