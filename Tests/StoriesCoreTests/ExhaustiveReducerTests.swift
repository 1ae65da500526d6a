import Foundation
import Testing
@testable import StoriesCore

/// Reducer tests that account for everything (issue 28, point 7): every state change and
/// every effect of each action, through the harness (`ReducerHarness.expect`).
@Suite struct ExhaustiveReducerTests {
    @Test func startAsksForTheFeedTheCacheTheHomeAndALateLine() {
        var h = ReducerHarness(started: ())
        var fresh = ReducerHarness(started: ())
        fresh.state = AppState(title: "Test", now: fresh.now)
        fresh.state.reduceMotion = true
        let now = fresh.now.uptime
        // Nothing to prepare yet, but the (empty) preload set for this screen is handed over.
        let empty = PreloadRequest(targets: [], width: 80, height: 24, fit: true)
        fresh.expect(.start, effects: ReducerHarness.startEffects + [.preload(empty)]) { state in
            state.startedAt = now
            state.feed.store.paging = .loading(cursor: nil, attempt: 1)
            state.home.request = .loading(attempt: 1)
            state.media.preloadRequest = empty
            state.media.playerPlan = PlayerPlan(width: 80, height: 24) // no video: recorded, nothing asked
        }
        // Once started, a second start changes nothing and asks for nothing.
        h.expect(.start, effects: [])
    }

    /// A command is not an input: it moves the selection and logs no routing decision; the
    /// preload set (the feed layer around the selection, already the whole feed here) stays.
    @Test func aCommandOnTheRowMovesTheSelectionAndNothingElse() {
        var h = ReducerHarness()
        h.expect(.command(.selectNext), effects: []) { state in
            state.row.selection = 1
        }
    }

    @Test func pausingInTheViewerStopsTheClockAndNothingElse() {
        var h = ReducerHarness()
        h.send(.open)
        let now = h.now.uptime
        h.expect(.command(.togglePause), effects: [], ReducerHarness.clock(running: false, at: now, paused: true))
    }
}
