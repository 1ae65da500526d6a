import Testing
@testable import StoriesCore

/// The one retry rule, in each of its uses: the app's, the server's listening connection's,
/// and a stalled page's.
@Suite struct BackoffTests {
    @Test func eachPolicyDoublesFromItsFirstWaitToItsCeiling() {
        #expect((1...7).map(Backoff.standard.delay(afterAttempt:)) == [1, 2, 4, 8, 16, 30, 30])
        #expect((1...7).map(Backoff.reconnect.delay(afterAttempt:)) == [0.25, 0.5, 1, 2, 4, 5, 5])
        #expect((1...6).map(StoryStore.stallBackoff(after:)) == [5, 10, 20, 40, 60, 60])
        // Bounded whatever the count: no overflow to infinity, never below the first wait.
        #expect(Backoff.standard.delay(afterAttempt: Int.max) == 30)
        #expect(Backoff.standard.delay(afterAttempt: -5) == 1)
        #expect(Backoff.delay(afterAttempt: 3) == Backoff.standard.delay(afterAttempt: 3))
    }
}
