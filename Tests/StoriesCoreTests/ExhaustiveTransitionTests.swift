import Foundation
import Testing
@testable import StoriesCore

/// Motion on, accounted for whole (issue 28, point 7): the viewer is there at once, the
/// transition says how it looks, and the item's clock starts when it ends.
@Suite struct ExhaustiveTransitionTests {
    @Test func openPresentsOutOfTheBubbleAndTheClockStartsWhenItEnds() {
        var h = ReducerHarness(motion: true)
        let start = h.now.uptime
        var seen = h.state.seen
        seen.markSeen(story: "a", item: "a0")
        var viewer = ViewerState(storyIndex: 0, itemIndex: 0, startedAt: start)
        let present = Transition.zoom(viewer, from: 0, to: 1, fullDuration: Transition.presentDuration, at: start)
        viewer.playback.runningSince = start + Transition.presentDuration // deferred to the present's end
        let shown = viewer
        h.expect(.command(.open), effects: h.seenEffects(seen, story: "a")) { state in
            state.viewing.screen = .viewer(shown)
            state.viewing.transition = present
            state.seen = seen
            state.media.showCount = 1
        }
        h.now = h.now.advanced(by: Transition.presentDuration / 2)
        h.expect(.tick, effects: []) // half way: nothing changes but the clock
        #expect(h.elapsed == 0, "the item's clock has not started")
        let scale = present.zoom(at: h.now.uptime).scale
        #expect(scale > 0.5 && scale < 1, "ease-out: past half way at half time (\(scale))")
        h.now = h.now.advanced(by: Transition.presentDuration / 2)
        h.expect(.tick, effects: []) { $0.viewing.transition = nil } // the tick at its end removes it
    }

    @Test func aTapDuringThePresentCompletesItThenApplies() {
        var h = ReducerHarness(motion: true)
        h.send(.open)
        h.now = h.now.advanced(by: 0.05)
        let tap = h.now.uptime
        var seen = h.state.seen
        seen.markSeen(story: "a", item: "a1")
        h.expect(.command(.nextItem), effects: h.seenEffects(seen, story: "a")) { state in
            state.viewing.transition = nil // completed first
            state.viewing.screen = .viewer(ViewerState(storyIndex: 0, itemIndex: 1, startedAt: tap)) // plays from the tap
            state.seen = seen
            state.media.showCount = 2
        }
    }
}
