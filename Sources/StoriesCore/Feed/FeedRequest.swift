import Foundation

/// A request in flight. `cancel()` is final: after it, the completion is never called, a
/// request still waiting out its latency never touches the source, and one the source is
/// working on is stopped through the handlers it gave `onCancel` (an HTTP source drops
/// the request and its connection).
public final class FeedRequest: @unchecked Sendable {
    // `lock` guards `cancelled` and `handlers`; any queue may cancel or register.
    private let lock = NSLock()
    private var cancelled = false
    private var handlers: [@Sendable () -> Void] = []

    public init() {}

    public func cancel() {
        let run: [@Sendable () -> Void] = lock.withLock {
            guard !cancelled else { return [] }
            cancelled = true
            defer { handlers = [] }
            return handlers
        }
        for handler in run { handler() }
    }

    public var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Runs `handler` when the request is cancelled: at once (on this thread) when it
    /// already is, else on the thread that cancels it, once.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if cancelled { return true }
            handlers.append(handler)
            return false
        }
        if now { handler() }
    }
}
