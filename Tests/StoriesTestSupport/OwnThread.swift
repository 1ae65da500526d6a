import StoriesCore
import Testing

/// Runs each test of a suite with a `QueueExecutor` of its own as its task executor
/// preference, off Swift's cooperative pool (as wide as the machine has cores: two here).
///
/// - The end-to-end tests wait in real time (tmux, child processes) with blocking calls. On
///   the pool a handful of them at once took every thread for the whole run, and the async
///   tests in the same process waited up to a minute for one.
/// - The loopback server tests run Hummingbird; its connection tasks are child tasks of
///   the test, so they inherit the preference and answer while the pool is busy with the
///   hundreds of other tests started at the same moment.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(QueueExecutor(label: "test.\(test.name)")) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, off the cooperative pool (see `OwnThreadTrait`).
    public static var ownThread: Self { Self() }
}
