import Foundation
import StoriesApp
import StoriesAssets
import StoriesCore
import Testing

/// Memory stays flat however far a person travels (issue 17, point 1): the viewer item models of
/// stories far behind are let go and built again when the person comes back.
@MainActor
@Suite struct MemoryBoundsTests {
    @Test func itemModelsFarBehindAreLetGoAndBuiltAgainOnTheWayBack() throws {
        let d = AppDriver(width: 100, height: 30, source: SyntheticFeed(count: 120))
        d.wait(1)
        d.press(.key(.enter))
        d.wait(1)
        let first = try #require(d.state.viewer).storyIndex
        var most = 0
        for _ in 0..<90 {
            d.press(.key(.character("]")))
            d.wait(0.6)
            most = max(most, d.state.viewModels.items.count)
        }
        let viewer = try #require(d.state.viewer)
        #expect(viewer.storyIndex >= 80, "walked on: \(viewer.storyIndex)")
        #expect(most <= ViewModelState.storiesKept, "at most \(ViewModelState.storiesKept) stories' item models kept, saw \(most)")
        let firstID = try #require(d.state.feed.store.summaries[safe: first]).id
        #expect(d.state.viewModels.items[firstID] == nil, "the first story's item models were let go")
        #expect(d.state.feed.store.items[firstID] != nil, "its items are still known (seen state, the row)")

        // Back to the start: each story shows again, its item models built again on the way.
        for _ in 0..<viewer.storyIndex {
            d.press(.key(.character("[")))
            d.wait(0.6)
        }
        let back = try #require(d.state.viewer)
        #expect(back.storyIndex == first && !back.isWaiting)
        #expect(d.state.viewModels.items[firstID] != nil)
        #expect(d.state.viewModels.building.isEmpty)
        #expect(d.text.contains(try #require(d.state.feed.store.summaries[safe: first]).author.name))
    }
}

/// The adaptive preload window (issue 17, point 2) through the real engine: the reducer
/// learns the pace from the person's own inputs and the fetch time from the pipeline, and
/// the planner's window follows.
@MainActor
@Suite struct AdaptivePreloadTests {
    @Test func aFastTapperIsPreparedDeeperAndTheOverlaySaysSo() throws {
        let photo = try Data(contentsOf: try #require(DemoFeed.directory).appendingPathComponent("media/coffee.jpg"))
        let feed = SyntheticFeed(count: 30, photos: [.init(data: photo, width: 400, height: 600, blurhash: nil)])
        let d = AppDriver(width: 100, height: 30, source: feed, network: AppDriver.network(latency: 0.3))
        d.wait(3)
        d.press(.key(.enter))
        d.wait(2)
        #expect(PreloadPlanner.window(d.state.media.pace) == .standard, "nothing learned yet")
        #expect(d.state.media.pace.fetchSeconds.map { abs($0 - 0.3) < 0.01 } == true, "fetches timed on the app's clock: \(String(describing: d.state.media.pace.fetchSeconds))")
        for _ in 0..<4 {
            d.press(.key(.right))
            d.wait(0.15)
        }
        #expect(d.state.media.pace.steps.count == 4)
        #expect(d.state.media.pace.interval.map { abs($0 - 0.15) < 0.02 } == true)
        let window = PreloadPlanner.window(d.state.media.pace)
        #expect(window.ahead >= 3, "a 150 ms tapper behind a 300 ms network gets more than two ahead: \(window)")
        d.press(.key(.character("i")))
        #expect(d.text.contains("150 ms a step"), "\(d.text)")
    }
}
