import Foundation
import StoriesCore
import Testing
import StoriesTestSupport
@testable import StoriesServer

/// Issue 46, point 3: the 503 bound holds for every batch — also one queued behind both
/// writers while PostgreSQL does not answer. Before, a batch's time began when a writer took
/// it, so one waiting behind two stuck groups was answered after two patiences, not one.
@Suite struct GathererTests {
    @Test func everyBatchIsAnsweredWithinPatienceOfItsArrival() async {
        let writes = Counter()
        let timeout = SeenStoreFailure("no answer")
        let gatherer = PostgresSeenDatabase.Gatherer(patience: .seconds(1), timeout: { timeout }, describe: { "\($0)" }) { _ in
            writes.add()
            try await Fault.late(30) // a server that is gone; cancelled at the group's deadline
            return [:]
        }
        let answers = await withTaskGroup(of: (PostgresSeenDatabase.Gatherer.Outcome, Duration).self) { group in
            for n in 0..<6 {
                group.addTask {
                    let start = ContinuousClock.now
                    let batch = PostgresSeenDatabase.Gatherer.Batch(viewer: "ayla", entries: [SeenEntry(story: "ayla", item: "i\(n)", at: 0)], tooltips: [])
                    return (await gatherer.record(batch), ContinuousClock.now - start)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 6 && answers.allSatisfy { $0.0 == .failure(timeout) }, "\(answers)")
        // One patience and a margin for a loaded machine; the old way took two and three.
        #expect(answers.allSatisfy { $0.1 < .milliseconds(1600) }, "\(answers.map(\.1))")
        #expect(writes.value == 2, "the batches queued past their deadline are never written: \(writes.value)")
    }

    /// `@unchecked Sendable`: `count` only under `lock`.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
