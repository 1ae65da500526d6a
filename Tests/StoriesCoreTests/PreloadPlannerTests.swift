import Foundation
import Testing
@testable import StoriesCore

/// The three layers, as pure functions of state.
@Suite struct PreloadPlannerTests {
    /// Stories of four items: photo, photo, text, photo.
    static func story(_ id: String) -> Story {
        let items = (0..<4).map { n -> StoryItem in
            n == 2 ? StoryItem(id: "\(id)-\(n)", content: .text("t", background: RGB(0, 0, 0)))
                : StoryItem(id: "\(id)-\(n)", content: .image(Media(location: "\(id)/\(n).jpg", blurhash: "x")))
        }
        return Story(id: id, author: Author(name: id.uppercased()), items: items)
    }

    static let stories = (0..<12).map { story("s\($0)") }

    func harness(preload: PreloadPolicy = .on) -> ReducerHarness {
        var h = ReducerHarness(started: ())
        h.state.preloadPolicy = preload
        h.send(.pageLoaded(FeedPage(stories: Self.stories.map(StorySummary.init), nextCursor: nil)))
        return h
    }

    func loaded(_ h: inout ReducerHarness, _ ids: [String]) {
        for id in ids { h.send(.storyLoaded(StoryLoad(story: Self.stories[Int(id.dropFirst())!]))) }
    }

    @Test func whenThePageArrivesTheFirstFiveStoriesItemsAreLoaded() {
        let h = harness()
        #expect(h.work == (0..<5).map { .loadStory("s\($0)") })
        let off = harness(preload: .off)
        #expect(off.work.isEmpty, "off: nothing is loaded before it is opened")
    }

    @Test func theFeedLayerPreparesTheFirstUnseenItemOfFiveStoriesFromTheSelection() {
        var h = harness()
        loaded(&h, ["s0", "s1", "s2", "s3", "s4"])
        h.state.seen.markSeen(story: "s1", item: "s1-0")
        let targets = PreloadPlanner.targets(h.state)
        #expect(targets.map(\.item) == ["s0-0", "s1-1", "s2-0", "s3-0", "s4-0"])
        #expect(targets.allSatisfy { $0.priority == .feed })
        // The row moves on: the layer follows the selection.
        h.send(.select(6))
        #expect(h.work == [.loadStory("s6"), .loadStory("s7"), .loadStory("s8"), .loadStory("s9"), .loadStory("s10")])
    }

    @Test func inAStoryTheWindowIsTwoAheadAndOneBackThenTheNeighbours() {
        var h = harness()
        loaded(&h, (0..<6).map { "s\($0)" })
        h.send(.select(2))
        h.send(.open)
        h.send(.nextItem)                       // s2, item 1
        let targets = PreloadPlanner.targets(h.state)
        let byPriority = Dictionary(grouping: targets, by: \.priority).mapValues { $0.map(\.item) }
        #expect(byPriority[.visible] == ["s2-1"])
        #expect(byPriority[.window] == ["s2-3", "s2-0"], "item 2 is text: nothing to prepare")
        #expect(byPriority[.adjacent] == ["s3-0", "s1-0"])
        #expect(byPriority[.feed] == nil, "in the viewer the next stories take the feed layer's place")
        #expect(targets.map(\.priority) == targets.map(\.priority).sorted(), "most urgent first")
        #expect(Set(targets.map(\.item)).count == targets.count, "each item once")
    }

    @Test func neighboursItemsAreLoadedWhileAStoryIsShown() {
        var h = harness()
        loaded(&h, ["s0", "s1", "s2", "s3", "s4"])
        h.send(.select(4))
        loaded(&h, ["s5", "s6", "s7", "s8"])
        h.send(.open)
        h.send(.nextStory)                      // s5: its neighbour s6 is loaded, s4 too
        h.send(.nextStory)                      // s6: s7 and s5 loaded already
        #expect(PreloadPlanner.storiesToLoad(h.state) == ["s6", "s7", "s5"])
        #expect(!h.work.contains(.loadStory("s10")), "in the viewer the feed layer does not run ahead of the person")
        h.send(.nextStory)                      // s7: the story after it, s8, is loaded; s9 is not needed yet
        #expect(PreloadPlanner.storiesToLoad(h.state) == ["s7", "s8", "s6"])
    }

    @Test func offPreparesOnlyWhatIsShown() {
        var h = harness(preload: .off)
        h.send(.select(3))
        h.send(.open)
        #expect(h.work == [.loadStory("s3")])
        loaded(&h, ["s3"])
        #expect(PreloadPlanner.targets(h.state).map(\.item) == ["s3-0"])
        #expect(PreloadPlanner.storiesToLoad(h.state) == ["s3"])
    }

    @Test func aWaitingViewerHasNothingVisibleToPrepare() {
        var h = harness(preload: .off)
        h.send(.open)
        #expect(h.state.row.opening == "s0")
        #expect(PreloadPlanner.targets(h.state).isEmpty)
        #expect(PreloadPlanner.storiesToLoad(h.state) == ["s0"])
    }
}
