// The parent's side of the Row feature: its context, taken from the store, the seen state
// and the view models as they are when the action comes.
extension Reduction {
    mutating func row(_ action: RowFeature.Action) {
        let context = RowFeature.Context(store: store, seen: state.seen, viewerOpen: state.viewer != nil,
                                         built: state.viewModels.items, now: state.now.uptime)
        scope(RowFeature.self, \.row, action, context: context)
    }

    mutating func edit(_ edit: SearchEdit) { row(.edit(edit)) }

    mutating func stopOpening() { row(.stopOpening) }

    mutating func beginSeeking(_ target: SeekTarget) { row(.beginSeeking(target)) }

    mutating func stopSeeking() { row(.stopSeeking) }

    /// A search along the feed looks again (every action ends with it, in `settle`).
    mutating func seek() {
        guard state.row.seeking != nil else { return }
        row(.seek)
    }

    mutating func openSelectedStory() { row(.openSelected) }

    func firstUnseen(in range: Range<Int>) -> Int? { RowFeature.firstUnseen(in: range, store, state.seen) }

    func countMatches(_ text: String) -> Int { RowFeature.countMatches(text, in: store) }
}
