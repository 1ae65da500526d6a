import Foundation
import StoriesApp
import StoriesCore
import Testing

/// Memory stays flat however far a person travels (issue 17, point 1): the viewer pages of
/// stories far behind are let go and built again when the person comes back.
@MainActor
@Suite struct MemoryBoundsTests {
    @Test func pagesFarBehindAreLetGoAndBuiltAgainOnTheWayBack() throws {
        let d = AppDriver(width: 100, height: 30, source: SyntheticFeed(count: 120))
        d.wait(1)
        d.press(.key(.enter))
        d.wait(1)
        let first = try #require(d.state.viewer).storyIndex
        var most = 0
        for _ in 0..<90 {
            d.press(.key(.character("]")))
            d.wait(0.6)
            most = max(most, d.state.pages.count)
        }
        let viewer = try #require(d.state.viewer)
        #expect(viewer.storyIndex >= 80, "walked on: \(viewer.storyIndex)")
        #expect(most <= AppState.pagesKept, "at most \(AppState.pagesKept) stories' pages kept, saw \(most)")
        let firstID = try #require(d.state.store.summaries[safe: first]).id
        #expect(d.state.pages[firstID] == nil, "the first story's pages were let go")
        #expect(d.state.store.items[firstID] != nil, "its items are still known (seen state, the row)")

        // Back to the start: each story shows again, its pages built again on the way.
        for _ in 0..<viewer.storyIndex {
            d.press(.key(.character("[")))
            d.wait(0.6)
        }
        let back = try #require(d.state.viewer)
        #expect(back.storyIndex == first && !back.isWaiting)
        #expect(d.state.pages[firstID] != nil)
        #expect(d.state.pagesBuilding.isEmpty)
        #expect(d.text.contains(try #require(d.state.store.summaries[safe: first]).author.name))
    }
}
