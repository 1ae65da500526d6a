import Foundation
import Testing
@testable import StoriesCore

/// The adaptive preload window (issue 17, point 2): learned from the person's last
/// navigations and the measured fetch time.
@Suite struct NavigationPaceTests {
    @Test func untilThePaceIsKnownTheWindowIsTheStandardOne() {
        var pace = NavigationPace()
        #expect(PreloadPlanner.window(pace) == .standard)
        pace.record(.item, at: 0)
        pace.record(.item, at: 1.5)
        #expect(pace.interval == nil, "two navigations are not a pace")
        #expect(PreloadPlanner.window(pace) == .standard)
    }

    @Test func aFastTapperGetsADeeperWindowInTheStory() {
        var pace = NavigationPace()
        for step in 0..<8 { pace.record(.item, at: Double(step) * 0.15) }
        pace.recordFetch(seconds: 0.35)
        #expect(pace.interval == 0.15)
        #expect(pace.lead == 4, "0.35 s of fetch at 0.15 s a tap: three taps come meanwhile, plus one")
        let window = PreloadPlanner.window(pace)
        #expect(window.ahead == 4)
        #expect(window.nextStories == 1 && window.itemsPerNextStory == 1, "a tapper is not a swiper")
        #expect(!window.backwards, "eight steps, all forward")
    }

    @Test func aBrowsingTapperKeepsTwoAhead() {
        var pace = NavigationPace()
        for step in 0..<8 { pace.record(.item, at: Double(step) * 1.5) }
        pace.recordFetch(seconds: 0.33)
        #expect(pace.lead == 2)
        #expect(PreloadPlanner.window(pace).ahead == 2)
    }

    @Test func aSwiperGetsTheNextStoriesFirstItemsAndNoDeeperThanTheyGo() {
        var pace = NavigationPace()
        var time = 0.0
        // Two taps, then a swipe, every 150 ms.
        for _ in 0..<4 {
            for step in [NavigationPace.Step.item, .item, .story] {
                pace.record(step, at: time)
                time += 0.15
            }
        }
        pace.recordFetch(seconds: 0.35)
        #expect(pace.usualTaps == 2)
        #expect(abs(pace.storyShare - 3.0 / 8) < 0.01, "\(pace.storyShare)")
        var window = PreloadPlanner.window(pace)
        #expect(window.nextStories == 3 && window.itemsPerNextStory == 3, "\(window)")
        #expect(window.ahead == 2, "just arrived: as deep as they usually go")
        pace.record(.item, at: time)
        window = PreloadPlanner.window(pace)
        #expect(window.ahead == 1, "one tap in: one more")
        pace.record(.item, at: time + 0.15)
        #expect(PreloadPlanner.window(pace).ahead == 1, "never less than one")
    }

    @Test func aBackStepBringsTheStoryBeforeBack() {
        var pace = NavigationPace()
        for step in 0..<8 { pace.record(.item, at: Double(step)) }
        #expect(!PreloadPlanner.window(pace).backwards)
        pace.record(.back, at: 9)
        #expect(PreloadPlanner.window(pace).backwards)
    }

    @Test func outsideNumbersAreBounded() {
        var pace = NavigationPace()
        pace.recordFetch(seconds: .infinity)
        pace.recordFetch(seconds: -1)
        #expect(pace.fetchSeconds == nil)
        pace.recordFetch(seconds: 1e9)
        #expect(pace.fetchSeconds == 10)
        for step in 0..<20 { pace.record(.item, at: Double(step) * 1e-6) }
        pace.record(.item, at: .nan)
        #expect(pace.times.count == NavigationPace.remembered)
        #expect(pace.lead == 6, "at most six ahead however fast")
    }
}
