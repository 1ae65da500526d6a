/// The ViewModels feature: the built view models put in place. A scoped reducer
/// (`FeatureReducer`): it sees only `ViewModelState`, and what the parent derives for it.
enum ViewModelsFeature: FeatureReducer {
    /// What the models are put in place by, read from the rest of the app once.
    struct Context {
        /// Where each story is in the store (the ring list is in store order).
        var positions: [StoryID: Int]
        var screenWidth: Int
        /// The screen of sections shown now (sections built for another are dropped).
        var homeGeneration: Int
        /// The story shown, or the selection: item models far from it go first.
        var near: Int
        /// The stories the planner wants now: their item models stay.
        var wanted: Set<StoryID>
    }

    static func reduce(_ models: inout ViewModelState, _ update: ViewModelUpdate, context: Context, into out: inout FeatureOutput) {
        // Through the relation map: a known key is updated where it is, a new one goes
        // where its story is in the store.
        for model in update.ring {
            guard let position = context.positions[model.key] else { continue }
            if !models.ring.update(model) {
                models.ring.insert(model, at: insertionIndex(forStoreIndex: position, in: models, context))
            }
        }
        // Item models built for a width that is no longer current are dropped: newer ones follow.
        // (A story whose build was dropped and that is wanted is asked for again in `settle`.)
        for id in update.items.keys { models.building.remove(id) }
        if update.width == context.screenWidth {
            for (id, items) in update.items { models.items[id] = items }
            forgetFarItemModels(&models, context)
        }
        // Sections built for another screen of sections are dropped the same way; those for
        // an old width still draw until the new ones come (their texts are cut shorter).
        if let home = update.home, home.generation == context.homeGeneration { models.home = home }
    }

    /// Keeps at most `ViewModelState.storiesKept` stories' item models: those farthest (in
    /// feed order) from the story shown, or the selection, go first; the stories the
    /// planner wants now stay.
    private static func forgetFarItemModels(_ models: inout ViewModelState, _ context: Context) {
        guard models.items.count > ViewModelState.storiesKept else { return }
        let far = models.items.keys.filter { !context.wanted.contains($0) }
            .map { (id: $0, distance: abs((context.positions[$0] ?? Int.max / 2) - context.near)) }
            .sorted { ($0.distance, $0.id) > ($1.distance, $1.id) }
        for entry in far.prefix(models.items.count - ViewModelState.storiesKept) { models.items[entry.id] = nil }
    }

    /// Where a bubble for the story at `position` in the store goes in the ring list, which
    /// is in store order: the first bubble whose story comes later.
    private static func insertionIndex(forStoreIndex position: Int, in models: ViewModelState, _ context: Context) -> Int {
        var low = 0, high = models.ring.count
        while low < high {
            let middle = (low + high) / 2
            if (context.positions[models.ring[middle].key] ?? Int.max) < position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
