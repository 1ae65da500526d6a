@testable import StoriesFeedIO
import StoriesCore
import StoriesTestSupport
import Testing

@Suite(.ownThread) struct OwnThreadTests {
    @Test func aTestRunsOnItsOwnQueueNotThePool() {
        #expect(QueueExecutor.current == "test.aTestRunsOnItsOwnQueueNotThePool()")
    }
}
