// The parent's side of the Feed feature: its context, derived once from the row, the
// viewer and the pointer, and what reads across slices (the shared seen state, the
// stories the person is on).
extension Reduction {
    mutating func feed(_ action: FeedFeature.Action) {
        let still = state.viewer == nil && state.viewing.transition == nil && state.row.opening == nil && state.gesture.pointer == .idle
        let context = FeedFeature.Context(now: state.now.uptime, rowIsStill: still,
                                          selected: store.summaries[safe: state.row.selection]?.id)
        scope(FeedFeature.self, \.feed, action, context: context)
    }

    /// The source's news about pages and stories.
    mutating func take(_ action: FeedAction) {
        // The source answered: what was held back is asked for as things were before the
        // answer changed the store (the rule of `FeatureReducer`: the parent sends first).
        switch action {
        case .pageLoaded, .storyLoaded, .pageFailed(_, retry: false): delegate(.sourceAnswered)
        default: break
        }
        feed(.news(action))
    }

    /// What the viewer saw on another terminal, merged with what was seen here.
    mutating func mergeSeen(from other: SeenState) {
        let before = state.seen
        delegate(.mergeSeen(other))
        // The home's cells follow too (their counts of new items and progress).
        if state.seen != before, levelOpensStories || !state.home.level.sections.isEmpty { homeChanged = true }
    }

    /// Stories whose items failed for a reason that may pass: asked for again while they are
    /// wanted (shown, opening, or preloaded); the others wait for the source to answer
    /// (`recovered`), when their ⚠ goes.
    mutating func retryStories(_ ids: [StoryID], recovered: Bool) {
        guard !ids.isEmpty else { return }
        feed(.retryStories(ids, wanted: PreloadPlanner.storiesOnThePerson(state), recovered: recovered))
    }

    mutating func loadItems(_ id: StoryID) {
        feed(.loadItems(id))
    }
}
