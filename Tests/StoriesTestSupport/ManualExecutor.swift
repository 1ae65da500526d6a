import StoriesMedia

/// Decode work held until a test runs it: the scheduler's tests decide what finishes when.
/// Main-actor only, like the tests that drive it.
public final class ManualExecutor: ManualWork, @unchecked Sendable {
    // Only touched on the main actor (the pipeline and the tests that drive it).
    private var pending: [@Sendable () -> Void] = []

    public init() {}

    public var count: Int { pending.count }

    public func enqueue(_ work: @escaping @Sendable () -> Void) { pending.append(work) }

    /// Runs the oldest piece of work; false when there is none.
    @discardableResult
    public func runNext() -> Bool {
        guard !pending.isEmpty else { return false }
        pending.removeFirst()()
        return true
    }

    public func runAll() { while runNext() {} }
}
