import Testing
@testable import StoriesCore

/// Navigation with motion on: the logical state changes at once, the transition says how it
/// looks, progress starts when it ends, and input during it completes it first.
@Suite struct TransitionTests {
    func motionHarness() -> ReducerHarness { ReducerHarness(motion: true) }

    func zoom(_ h: ReducerHarness) -> (scale: Double, backdrop: Double)? {
        guard let transition = h.state.viewing.transition, case .zoom = transition.kind else { return nil }
        return transition.zoom(at: h.now.uptime)
    }

    func turn(_ h: ReducerHarness) -> (turn: Double, forward: Bool, from: Int, to: Int)? {
        guard let transition = h.state.viewing.transition, case .cube(let leaving, let arriving, let forward) = transition.kind else { return nil }
        return (transition.turn(at: h.now.uptime), forward, leaving.storyIndex, arriving.storyIndex)
    }

    @Test func storiesChangeWithACubeAndItemsWithACut() {
        var h = motionHarness()
        h.send(.open)
        h.send(.completeTransition)
        h.send(.nextItem)
        #expect(h.state.viewing.transition == nil, "within a story: a cut")
        h.send(.nextItem)
        let cube = turn(h)
        #expect(cube?.forward == true && cube?.from == 0 && cube?.to == 1)
        #expect(cube?.turn == 0)
        h.wait(Transition.cubeDuration / 2)
        #expect(abs((turn(h)?.turn ?? 0) - 0.5) < 1e-9, "ease-in-out is half way at half time")
        h.send(.previousStory)
        #expect(turn(h)?.forward == false, "back: the cube turns the other way")
        #expect(h.position! == (0, 0))
    }

    @Test func fiveTapsWithin100MillisecondsDuringACubeEachApplyInOrder() {
        var h = motionHarness()
        h.send(.open)
        h.send(.nextStory)                      // a cube from a to b
        #expect(turn(h) != nil)
        var positions: [String] = []
        for _ in 0..<5 {
            h.now = h.now.advanced(by: 0.02)
            h.send(.nextItem)
            positions.append(h.position.map { "\($0.story).\($0.item)" } ?? (zoom(h) != nil ? "dismissing" : "row"))
        }
        // b0 → b1 → b2 → c0 (a new cube) → past the last story: dismissing; the fifth tap
        // finishes the dismiss at once and has nothing left to do on the row.
        #expect(positions == ["1.1", "1.2", "2.0", "dismissing", "row"])
        #expect(h.state.row.selection == 2)
        #expect(h.state.seen.isSeen(story: "b", item: "b2") && h.state.seen.isSeen(story: "c", item: "c0"),
                "every item passed through was shown")
    }

    @Test func dismissShrinksIntoTheBubbleOfTheStoryNowShown() {
        var h = motionHarness()
        h.send(.open)
        h.send(.nextStory)
        h.send(.dismiss)
        #expect(h.state.viewer == nil)
        #expect(h.state.row.selection == 1)
        guard case .zoom(let viewer)? = h.state.viewing.transition?.kind else {
            Issue.record("no zoom")
            return
        }
        #expect(viewer.storyIndex == 1)
        h.wait(Transition.dismissDuration)
        #expect(zoom(h) == nil)
        #expect(!h.state.wantsFrames, "nothing moves once it is back")
    }

    @Test func reduceMotionCutsEverything() {
        var h = ReducerHarness()
        h.send(.open)
        h.send(.nextStory)
        h.send(.dismiss)
        #expect(h.state.viewing.transition == nil)
        h.send(.open)
        h.drag(from: (60, 12), to: (28, 12))   // 32 of 80 columns to the left
        h.mouse(.release(.left), 28, 12)
        #expect(h.position!.story == 2 && h.state.viewing.transition == nil)
    }

    @Test func aSwipeDragPastItsThresholdTurnsOnFromWhereItWasLeft() {
        var h = motionHarness()
        h.send(.open)
        h.send(.completeTransition)
        h.wait(1)
        h.drag(from: (60, 12), to: (28, 12))
        #expect(h.state.drag == .swipe(offset: -0.4))
        let paused = h.elapsed
        h.wait(1)
        #expect(h.elapsed == paused, "progress stands still while dragging")
        h.mouse(.release(.left), 28, 12)
        #expect(h.position!.story == 1)
        #expect(turn(h)?.turn == 0.4)
        #expect(abs(h.state.viewing.transition!.timeline.end - h.now.uptime - 0.6 * Transition.cubeDuration) < 1e-9)
        #expect(h.state.drag == nil)
    }

    @Test func aSwipeDragShortOfItsThresholdSnapsBack() {
        var h = motionHarness()
        h.send(.open)
        h.send(.completeTransition)
        h.drag(from: (20, 12), to: (32, 12))   // 12 columns towards the previous story: there is none
        h.mouse(.release(.left), 32, 12)
        #expect(h.position! == (0, 0))
        let cube = turn(h)
        #expect(cube?.turn == 0.15 && cube?.to == -1 && cube?.forward == false)
        h.wait(1)
        #expect(h.state.viewing.transition == nil)
        #expect(h.state.viewer!.playback.isRunning, "plays again after the snap")
        // Past the threshold but with nowhere to go, it snaps back too.
        h.drag(from: (20, 12), to: (60, 12))
        h.mouse(.release(.left), 60, 12)
        #expect(h.position! == (0, 0))
        #expect(turn(h)?.turn == 0.5)
    }

    @Test func aPullDownPastItsThresholdDismissesFromWhereItWasLeft() {
        var h = motionHarness()
        h.send(.open)
        h.send(.completeTransition)
        h.drag(from: (40, 6), to: (40, 12))     // 6 of 24 rows down: past 24 / 5
        h.mouse(.release(.left), 40, 12)
        #expect(h.state.viewer == nil)
        #expect(abs((zoom(h)?.scale ?? 0) - 0.75) < 1e-9)
    }

    @Test func aPullDownShortOfItsThresholdGrowsBack() {
        var h = motionHarness()
        h.send(.open)
        h.send(.completeTransition)
        h.drag(from: (40, 6), to: (40, 9))      // 3 rows: short of 4
        h.mouse(.release(.left), 40, 9)
        #expect(h.position! == (0, 0))
        #expect(abs((zoom(h)?.scale ?? 0) - 0.875) < 1e-9)
        h.wait(0.25)
        #expect(h.state.viewing.transition == nil)
    }

    @Test func holdPausesUntilReleaseAndLeavesSpaceAlone() {
        var h = ReducerHarness()
        h.send(.open)
        h.wait(1)
        h.mouse(.press(.left), 40, 12)
        #expect(h.effects.contains(.wake(.hold, after: GestureRecognizer.holdDelay)), "the hold check is asked for")
        h.wait(GestureRecognizer.holdDelay)
        h.send(.wake(.hold))
        #expect(h.state.isHeld)
        h.wait(3 - GestureRecognizer.holdDelay)
        #expect(abs(h.elapsed! - 1 - GestureRecognizer.holdDelay) < 1e-9, "played until the hold began")
        #expect(h.state.viewer?.isPaused == false, "a hold is not Space's pause")
        h.mouse(.release(.left), 40, 12)
        #expect(!h.state.isHeld)
        #expect(h.position! == (0, 0), "the release after a hold does not tap")
        h.wait(1)
        #expect(abs(h.elapsed! - 2 - GestureRecognizer.holdDelay) < 1e-9)
        h.send(.togglePause)
        h.mouse(.press(.left), 40, 12)
        h.wait(GestureRecognizer.holdDelay)
        h.send(.wake(.hold))
        h.mouse(.release(.left), 40, 12)
        h.wait(1)
        #expect(abs(h.elapsed! - 2 - GestureRecognizer.holdDelay) < 1e-9, "released from a hold, still paused by Space")
    }

    @Test func progressWaitsForTheItemsPhotoUntilThePipelineSaysItIsReady() {
        let media = Media(location: "media/a.jpg")
        let photos = Story(id: "p", author: Author(name: "P"), items: [
            StoryItem(id: "p0", content: .image(media), duration: 5),
            StoryItem(id: "p1", content: .text("t", background: RGB(0, 0, 0)), duration: 5),
        ])
        var h = ReducerHarness(stories: [photos])
        h.send(.open)
        #expect(h.state.awaitsMedia, "no word from the pipeline yet")
        #expect(h.effects.contains { if case .preload(let request) = $0 { request.targets.first?.media == media } else { false } },
                "the photo is asked for, visible first")
        h.send(.media(media.location, .fetching))
        h.wait(10)
        #expect(h.elapsed == 0)
        #expect(h.position! == (0, 0), "no auto-advance past a photo nobody saw")
        h.send(.media(media.location, .ready))
        #expect(!h.state.awaitsMedia)
        h.wait(2)
        #expect(abs(h.elapsed! - 2) < 1e-9)
        #expect(h.state.media.shown == [media.location], "counted as shown")
        h.send(.nextItem)
        #expect(!h.state.awaitsMedia, "a text card waits for nothing")
        // A photo that fails cannot be shown: the reason is on screen and the bar waits for
        // a tap (issue 28: nothing counts as seen that was not shown).
        h.send(.previousItem)
        h.send(.media(media.location, .failed("broken")))
        h.wait(1)
        #expect(h.elapsed == 0)
        #expect(h.state.awaitsMedia)
        h.send(.media(media.location, .unreachable("timed out")))
        h.wait(1)
        #expect(h.elapsed == 0, "nor while it is being tried again")
    }
}
