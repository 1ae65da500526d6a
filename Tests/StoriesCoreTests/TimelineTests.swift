import Testing
@testable import StoriesCore

@Suite struct TimelineTests {
    @Test(arguments: Easing.allCases)
    func everyCurveRunsFromZeroToOneAndStaysInside(_ easing: Easing) {
        #expect(easing(0) == 0)
        #expect(easing(1) == 1)
        #expect(easing(-3) == 0 && easing(4) == 1, "clamped outside 0…1")
        var previous = 0.0
        for step in 1...100 {
            let value = easing(Double(step) / 100)
            #expect(value >= previous - 1e-12, "never goes back")
            previous = value
        }
    }

    @Test func easeOutIsAheadOfLinearAndEaseInBehind() {
        #expect(Easing.easeOut(0.25) > 0.25)
        #expect(Easing.easeIn(0.25) < 0.25)
        #expect(abs(Easing.easeInOut(0.5) - 0.5) < 1e-12)
    }

    @Test func stepsAreChainedByTheirBeginTimes() {
        // "b" begins when "a" is half done, independent of when any frame is drawn.
        let timeline = Timeline(start: 10, steps: [
            .init("a", duration: 0.2, easing: .linear),
            .init("b", begin: 0.1, duration: 0.3, easing: .linear, from: 1, to: 0),
        ])
        #expect(timeline.end == 10.4)
        #expect(timeline.value("a", at: 9) == 0, "before the start: the from value")
        #expect(abs(timeline.value("a", at: 10.1)! - 0.5) < 1e-9)
        #expect(timeline.value("b", at: 10.1) == 1, "b has not begun")
        #expect(abs(timeline.value("b", at: 10.25)! - 0.5) < 1e-9)
        #expect(timeline.value("a", at: 10.3) == 1, "a holds its end value")
        #expect(!timeline.isFinished(at: 10.39))
        #expect(timeline.isFinished(at: 10.4))
        #expect(timeline.value("missing", at: 10.1) == nil)
    }

    @Test func aZeroLengthStepJumpsAtItsBeginTime() {
        let timeline = Timeline(start: 0, steps: [.init("cut", begin: 0.5, duration: 0)])
        #expect(timeline.value("cut", at: 0.49) == 0)
        #expect(timeline.value("cut", at: 0.5) == 1)
    }

    @Test func aPartialZoomTakesItsShareOfTheFullDuration() {
        let viewer = ViewerState(storyIndex: 0, itemIndex: 0, startedAt: 0)
        let back = Transition.zoom(viewer, from: 0.6, to: 1, fullDuration: 0.25, at: 5)
        #expect(abs(back.timeline.end - (5 + 0.1)) < 1e-9, "0.4 of the way takes 0.4 of 250 ms")
        #expect(back.zoom(at: 5).scale == 0.6)
        #expect(back.zoom(at: 6).scale == 1)
        let cube = Transition.cube(leaving: viewer, arriving: viewer, forward: true, from: 0.5, at: 0)
        #expect(abs(cube.timeline.end - 0.15) < 1e-9)
        #expect(cube.turn(at: 0) == 0.5)
    }
}
