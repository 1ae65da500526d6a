// The parent's side of the Viewer feature: which item a move shows, whether progress may
// run and how long an item lasts read the store, the view models, the media and the
// overlays, so they are decided here and handed to `ViewerFeature`.
extension Reduction {
    mutating func viewer(_ action: ViewerFeature.Action) {
        scope(ViewerFeature.self, \.viewing, action, context: .init(now: state.now.uptime, reduceMotion: state.reduceMotion))
    }

    /// Shows an item (nil: the story's first unseen item), restarts progress and moves the
    /// ring-row selection to the story, so a dismiss lands on it. A story whose items are
    /// not here yet (or one past the end, while a page loads) is shown waiting; it plays
    /// once they arrive.
    mutating func show(story storyIndex: Int, item: Int?) {
        delegate(.rowFollowsViewer(storyIndex: storyIndex))
        guard let story = store.story(at: storyIndex), state.viewModels.items[story.id] != nil else {
            viewer(.wait(story: storyIndex, item: item))
            if let id = store.summaries[safe: storyIndex]?.id, case .failed? = store.items[id] {
                loadItems(id) // going to a failed story tries it again
            }
            return
        }
        let itemIndex = item.map { min($0, story.items.count - 1) } ?? state.seen.firstUnseenIndex(in: story)
        viewer(.show(story: storyIndex, item: itemIndex))
        syncPlayback()
    }

    mutating func dismiss() { viewer(.dismiss) }

    mutating func completeTransition() { viewer(.completeTransition) }

    /// After the last item of a story: the next story; past the last story the viewer waits
    /// for the next page when there is one, and dismisses when there is none.
    mutating func toNextStory(from viewer: ViewerState) {
        if viewer.storyIndex + 1 < store.count || (viewer.storyIndex < store.count && store.hasMore) {
            show(story: viewer.storyIndex + 1, item: nil)
        } else {
            dismiss()
        }
    }

    /// Progress runs only while the viewer shows an item whose media is there, not paused,
    /// held or dragged, not under the help, on a screen big enough to see it.
    mutating func syncPlayback() {
        guard let shown = state.viewer else { return }
        let stopped = shown.isPaused || state.isAway || state.isHeld || state.awaitsMedia || state.drag != nil
            || state.chrome.modal != nil || shown.isWaiting || !state.isUsable
        viewer(.playback(runs: !stopped))
    }

    mutating func advanceIfItemEnded() {
        guard let shown = state.viewer, let story = store.story(at: shown.storyIndex),
              let item = story.items[safe: shown.itemIndex] else { return }
        viewer(.checkEnd(duration: state.duration(of: item), waits: state.waitsAtItemEnd))
    }
}
