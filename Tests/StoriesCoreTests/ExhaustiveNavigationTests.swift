import Foundation
import Testing
@testable import StoriesCore

/// The reducer's navigation, accounted for whole (issue 28, point 7): each action's every
/// state change and every effect (`ReducerHarness.expect`). Three stories of text items
/// (a: 2, b: 3, c: 1), all loaded, instant cuts.
extension ReducerHarness {
    /// The viewer on an item, its clock running from now.
    func viewer(_ story: Int, _ item: Int) -> AppState.Screen {
        .viewer(ViewerState(storyIndex: story, itemIndex: item, startedAt: now.uptime))
    }

    /// What an item seen for the first time sends: the seen state to keep, and its story's
    /// bubble to build again (its ring turns grey item by item).
    func seenEffects(_ seen: SeenState, story: StoryID) -> [AppEffect] {
        let store = state.feed.store
        let summary = store.summaries[store.positions[story] ?? 0]
        let job = ViewModelJob(ring: [.init(summary: summary, story: store.story(at: store.positions[story] ?? 0))], stories: [],
                               seen: seen, now: now.date, width: state.screenWidth)
        return [.persistSeen(seen), .buildViewModels(job)]
    }

    /// The change to the viewer's clock (and, with `paused`, its pause) at `time`: stopped,
    /// or running from then on.
    static func clock(running: Bool, at time: Double, paused: Bool? = nil) -> (inout AppState) -> Void {
        { state in
            guard var viewer = state.viewer else { return }
            if let paused { viewer.isPaused = paused }
            if running { viewer.playback.run(at: time) } else { viewer.playback.stop(at: time) }
            state.viewing.screen = .viewer(viewer)
        }
    }

    /// Shows story `story`'s item `item` for the first time: the viewer on it, the row's
    /// selection with it, the item seen and saved, one more showing.
    mutating func expectShown(_ action: AppAction, story: Int, item: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let id = ReducerHarness.stories[story].id
        var seen = state.seen
        seen.markSeen(story: id, item: ReducerHarness.stories[story].items[item].id)
        let screen = viewer(story, item)
        expect(action, effects: seenEffects(seen, story: id), sourceLocation: sourceLocation) { state in
            state.viewing.screen = screen
            state.row.selection = story
            state.seen = seen
            state.media.showCount += 1
        }
    }
}

@Suite struct ExhaustiveNavigationTests {
    @Test func selectionMovesWithinTheRowAndNothingElse() {
        var h = ReducerHarness()
        h.expect(.command(.selectPrevious), effects: []) // at the first already: nothing
        h.expect(.command(.selectNext), effects: []) { $0.row.selection = 1 }
        h.expect(.command(.selectNext), effects: []) { $0.row.selection = 2 }
        h.expect(.command(.selectNext), effects: []) // at the last
        h.expect(.command(.selectFirst), effects: []) { $0.row.selection = 0 }
        h.expect(.command(.selectLast), effects: []) { $0.row.selection = 2 }
        h.expect(.select(1), effects: []) { $0.row.selection = 1 }
        h.expect(.select(7), effects: []) // no such bubble
    }

    @Test func openShowsTheFirstUnseenItemMarksItSeenAndDismissLandsOnIt() {
        var h = ReducerHarness()
        h.expect(.command(.selectNext), effects: []) { $0.row.selection = 1 }
        h.expectShown(.command(.open), story: 1, item: 0)
        h.expectShown(.command(.nextItem), story: 1, item: 1)
        h.expect(.command(.dismiss), effects: []) { $0.viewing.screen = .home }
        // b0 and b1 were seen: it opens on b2.
        h.expectShown(.command(.open), story: 1, item: 2)
    }

    @Test func tapRightWalksItemsThenStoriesThenDismissesAfterTheLast() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        for (story, item) in [(0, 1), (1, 0), (1, 1), (1, 2), (2, 0)] {
            h.expectShown(.command(.nextItem), story: story, item: item)
        }
        // After the last item of the last story: back to the row, on that story.
        h.expect(.command(.nextItem), effects: []) { $0.viewing.screen = .home }
    }

    @Test func tapLeftGoesBackAndTheVeryFirstItemStartsOver() {
        var h = ReducerHarness()
        h.expect(.select(1), effects: []) { $0.row.selection = 1 }
        h.expectShown(.command(.open), story: 1, item: 0)
        // Before the story's first item: the previous story, from its first item.
        h.expectShown(.command(.previousItem), story: 0, item: 0)
        h.now = h.now.advanced(by: 2)
        h.expect(.tick, effects: [])
        #expect(h.elapsed == 2)
        // Seen already: shown again, nothing to save, the clock from zero.
        let again = h.viewer(0, 0)
        h.expect(.command(.previousItem), effects: []) { state in
            state.viewing.screen = again
            state.media.showCount += 1
        }
        #expect(h.elapsed == 0)
    }

    @Test func commandsThatDoNotApplyOnTheRowChangeNothing() {
        var h = ReducerHarness()
        for command in [Command.nextItem, .previousItem, .nextStory, .previousStory, .dismiss, .togglePause] {
            h.expect(.command(command), effects: [])
        }
        var empty = ReducerHarness(stories: [])
        empty.expect(.command(.open), effects: [])
    }

    @Test func theHelpBoxStopsTheClockAndClosingItStartsItAgain() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        h.now = h.now.advanced(by: 1)
        let opened = h.now.uptime
        h.expect(.command(.toggleHelp), effects: []) { state in
            state.chrome.modal = .help
            ReducerHarness.clock(running: false, at: opened)(&state)
        }
        #expect(h.state.inputContext == .box)
        h.now = h.now.advanced(by: 30)
        h.expect(.tick, effects: []) // nothing plays under the box
        let closed = h.now.uptime
        h.expect(.command(.closeBox), effects: []) { state in
            state.chrome.modal = nil
            ReducerHarness.clock(running: true, at: closed)(&state)
        }
        #expect(h.elapsed == 1)
    }

    @Test func anItemEndsByElapsedTimeAndTheNextStartsThen() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        h.now = h.now.advanced(by: 4.9)
        h.expect(.tick, effects: [])
        h.now = h.now.advanced(by: 0.1)
        h.expectShown(.tick, story: 0, item: 1)
        // One late tick after a long gap moves on once, to the next item, which starts then.
        h.now = h.now.advanced(by: 30)
        h.expectShown(.tick, story: 1, item: 0)
    }

    /// A new story is added to the row, its bubble built, and (preloading: the feed's first
    /// stories) its items asked for.
    @Test func aPageWithWarningsKeepsThemAddsItsStoryAndAsksForItsItems() {
        var h = ReducerHarness()
        let z = ReducerHarness.story("z", items: 2)
        let page = FeedPage(stories: [StorySummary(z)], nextCursor: nil, warnings: [FeedWarning("skipped story 'x'")])
        let job = ViewModelJob(ring: [.init(summary: StorySummary(z), story: nil)], stories: [], seen: h.state.seen,
                               now: h.now.date, width: h.state.screenWidth)
        h.expect(.pageLoaded(page), effects: [.loadStory("z"), .buildViewModels(job)]) { state in
            state.feed.warnings = [FeedWarning("skipped story 'x'")]
            _ = state.feed.store.append(page, at: state.now.uptime)
            _ = state.feed.store.beginLoadingItems(of: "z")
        }
    }
}

extension ExhaustiveNavigationTests {
    @Test func swipesMoveByStoryOpenOnTheFirstUnseenAndPastTheLastDismiss() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        h.expect(.command(.previousStory), effects: []) // no story before the first
        h.expectShown(.command(.nextStory), story: 1, item: 0)
        h.expectShown(.command(.nextStory), story: 2, item: 0)
        // Back: the story opens on its first unseen item.
        h.expectShown(.command(.previousStory), story: 1, item: 1)
        // c is seen whole: shown again, nothing to save.
        let c = h.viewer(2, 0)
        h.expect(.command(.nextStory), effects: []) { state in
            state.viewing.screen = c
            state.row.selection = 2
            state.media.showCount += 1
        }
        h.expect(.command(.nextStory), effects: []) { $0.viewing.screen = .home }
    }

    @Test func pauseStopsTheClockAndPlayGoesOnWhereItStopped() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        h.now = h.now.advanced(by: 2)
        let paused = h.now.uptime
        h.expect(.command(.togglePause), effects: [], ReducerHarness.clock(running: false, at: paused, paused: true))
        #expect(!h.state.wantsFrames, "nothing moves while paused: no frame timer")
        h.now = h.now.advanced(by: 60)
        h.expect(.tick, effects: [])
        let resumed = h.now.uptime
        h.expect(.command(.togglePause), effects: [], ReducerHarness.clock(running: true, at: resumed, paused: false))
        h.now = h.now.advanced(by: 2.5)
        h.expect(.tick, effects: [])
        #expect(h.elapsed == 4.5)
        h.now = h.now.advanced(by: 0.5)
        h.expectShown(.tick, story: 0, item: 1)
    }

    /// A move while paused plays: pausing holds an item on screen, it is not a mode.
    @Test func aMoveWhilePausedPlaysTheNextItem() {
        var h = ReducerHarness()
        h.expectShown(.command(.open), story: 0, item: 0)
        let now = h.now.uptime
        h.expect(.command(.togglePause), effects: [], ReducerHarness.clock(running: false, at: now, paused: true))
        h.expectShown(.command(.nextItem), story: 0, item: 1)
        #expect(h.state.viewer?.isPaused == false && h.state.viewer?.playback.isRunning == true)
    }
}
