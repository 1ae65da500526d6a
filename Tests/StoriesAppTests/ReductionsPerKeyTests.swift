import Foundation
import StoriesApp
import StoriesCore
import StoriesTestSupport
import Testing

/// Issue 28, point 7: what one key costs, all told — its `.input` reduction and every
/// action its effects send back in the same turn (the pipeline's news of the new preload
/// set, view models built). Counted through the real engine, on the demo feed.
@MainActor
@Suite struct ReductionsPerKeyTests {
    /// (reductions in the key's turn, reductions until the work it started is done).
    func cost(of key: InputEvent, in driver: AppDriver) -> (turn: Int, total: Int) {
        let before = driver.engine.reductions
        driver.engine.input(key)
        let turn = driver.engine.reductions - before
        driver.finishWork()
        return (turn, driver.engine.reductions - before)
    }

    @Test func aKeyInTheViewerCostsAFewReductions() {
        let driver = AppDriver(width: 80, height: 24)
        driver.press(.key(.enter))
        driver.finishWork()
        var costs: [(Int, Int)] = []
        for _ in 0..<4 {
            costs.append(cost(of: .key(.right), in: driver))
        }
        print("reductions per → in the viewer (turn, total):", costs)
        #expect(costs.allSatisfy { $0.0 <= 2 }, "the key and at most one batch of news in its turn: \(costs)")
        #expect(costs.allSatisfy { $0.1 <= 8 }, "and until its work is done: \(costs)")
    }
}
