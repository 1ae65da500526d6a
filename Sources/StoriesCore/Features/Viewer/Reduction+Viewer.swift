// The Viewer feature: what is shown, the movement between screens, and the item's progress.
extension Reduction {
    /// Jumps a running animation to its end: the state it shows is already in place, so
    /// this only drops the drawing and lets the item's progress start now.
    mutating func completeTransition() {
        guard state.viewing.transition != nil else { return }
        state.viewing.transition = nil
        if var viewer = state.viewer, let since = viewer.playback.runningSince, since > state.now.uptime {
            viewer.playback.runningSince = state.now.uptime
            state.viewing.screen = .viewer(viewer)
        }
    }

    /// The item's progress starts when the running animation ends.
    mutating func deferPlayback() {
        guard let end = state.viewing.transition?.timeline.end, var viewer = state.viewer,
              let since = viewer.playback.runningSince, since < end else { return }
        viewer.playback.runningSince = end
        state.viewing.screen = .viewer(viewer)
    }

    /// After the last item of a story: the next story; past the last story the viewer waits
    /// for the next page when there is one, and dismisses when there is none.
    mutating func toNextStory(from viewer: ViewerState) {
        if viewer.storyIndex + 1 < store.count || (viewer.storyIndex < store.count && store.hasMore) {
            show(story: viewer.storyIndex + 1, item: nil)
        } else {
            dismiss()
        }
    }

    /// Shows an item (nil: the story's first unseen item), marks it seen, restarts progress
    /// and moves the ring-row selection to the story, so a dismiss lands on it. A story
    /// whose items are not here yet (or one past the end, while a page loads) is shown
    /// waiting; it plays once they arrive.
    mutating func show(story storyIndex: Int, item: Int?) {
        let before = state.viewer
        defer { animate(from: before) }
        delegate(.rowFollowsViewer(storyIndex: storyIndex))
        guard let story = store.story(at: storyIndex), state.viewModels.items[story.id] != nil else {
            var viewer = ViewerState(storyIndex: storyIndex, itemIndex: 0, startedAt: state.now.uptime)
            viewer.isWaiting = true
            viewer.wantedItem = item
            viewer.playback.stop(at: state.now.uptime)
            state.viewing.screen = .viewer(viewer)
            if let id = store.summaries[safe: storyIndex]?.id, case .failed? = store.items[id] {
                delegate(.loadItems(id)) // going to a failed story tries it again
            }
            return
        }
        let itemIndex = item.map { min($0, story.items.count - 1) } ?? state.seen.firstUnseenIndex(in: story)
        // A navigation always plays: pausing holds the item on screen, it is not a mode.
        state.viewing.screen = .viewer(ViewerState(storyIndex: storyIndex, itemIndex: itemIndex, startedAt: state.now.uptime))
        delegate(.itemShown)
        syncPlayback() // marked seen in `settle`, once its photo or video is on screen
    }

    mutating func dismiss() {
        guard let viewer = state.viewer else { return }
        delegate(.select(viewer.storyIndex))
        state.viewing.screen = .home
        delegate(.endGesture)
        if !state.reduceMotion {
            state.viewing.transition = .zoom(viewer, from: 1, to: 0, fullDuration: Transition.dismissDuration, at: state.now.uptime)
        }
    }

    /// The movement from the viewer as it was (nil: the row) to the one now shown: present
    /// out of the bubble, a cube between stories, nothing within a story.
    mutating func animate(from before: ViewerState?) {
        guard !state.reduceMotion, let viewer = state.viewer else { return }
        let now = state.now.uptime
        if let before {
            guard before.storyIndex != viewer.storyIndex else { return }
            state.viewing.transition = .cube(leaving: before, arriving: viewer, forward: viewer.storyIndex > before.storyIndex, at: now)
        } else {
            state.viewing.transition = .zoom(viewer, from: 0, to: 1, fullDuration: Transition.presentDuration, at: now)
        }
        deferPlayback()
    }

    /// Progress runs only while the viewer shows an item whose media is there, not paused,
    /// held or dragged, not under the help, on a screen big enough to see it.
    mutating func syncPlayback() {
        guard var viewer = state.viewer else { return }
        if viewer.isPaused || state.isAway || state.isHeld || state.awaitsMedia || state.drag != nil || state.chrome.modal != nil || viewer.isWaiting
            || !state.isUsable {
            if viewer.playback.isRunning { viewer.playback.stop(at: state.now.uptime) }
        } else {
            // During an animation the item's clock starts when it ends.
            viewer.playback.run(at: max(state.now.uptime, state.viewing.transition?.timeline.end ?? state.now.uptime))
        }
        state.viewing.screen = .viewer(viewer)
    }

    mutating func advanceIfItemEnded() {
        guard let viewer = state.viewer, viewer.playback.isRunning, !viewer.isWaiting,
              let story = store.story(at: viewer.storyIndex) else { return }
        let duration = state.duration(of: story.items[viewer.itemIndex])
        guard viewer.playback.elapsed(at: state.now.uptime) >= duration else { return }
        guard state.waitsAtItemEnd else {
            delegate(.command(.nextItem))
            return
        }
        // It waits at its end, paused there, for the next command.
        var ended = viewer
        ended.isPaused = true
        ended.playback.stop(at: state.now.uptime)
        ended.playback.banked = duration
        state.viewing.screen = .viewer(ended)
    }
}
