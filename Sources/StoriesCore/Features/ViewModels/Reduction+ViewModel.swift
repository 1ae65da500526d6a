// The ViewModels feature: jobs for the view models an action made stale, and the built
// ones put in place.
extension Reduction {
    /// Puts built view models in place through the relation map: a known key is updated
    /// where it is, a new one goes where its story is in the store.
    mutating func install(_ update: ViewModelUpdate) {
        for model in update.ring {
            guard let position = store.positions[model.key] else { continue }
            if !state.viewModels.ring.update(model) {
                state.viewModels.ring.insert(model, at: insertionIndex(forStoreIndex: position))
            }
        }
        // Item models built for a width that is no longer current are dropped: newer ones follow.
        // (A story whose build was dropped and that is wanted is asked for again in `settle`.)
        for id in update.items.keys { state.viewModels.building.remove(id) }
        if update.width == state.screenWidth {
            for (id, items) in update.items { state.viewModels.items[id] = items }
            forgetFarItemModels()
        }
        // Sections built for another screen of sections are dropped the same way; those for
        // an old width still draw until the new ones come (their texts are cut shorter).
        if let home = update.home, home.generation == state.home.generation { state.viewModels.home = home }
    }

    /// Keeps at most `ViewModelState.storiesKept` stories' item models: those farthest (in feed order) from
    /// the story shown, or the selection, go first; the stories the planner wants now stay.
    mutating func forgetFarItemModels() {
        guard state.viewModels.items.count > ViewModelState.storiesKept else { return }
        let near = state.viewer?.storyIndex ?? state.row.selection
        let wanted = Set(PreloadPlanner.storiesToLoad(state))
        let far = state.viewModels.items.keys.filter { !wanted.contains($0) }
            .map { (id: $0, distance: abs((store.positions[$0] ?? Int.max / 2) - near)) }
            .sorted { ($0.distance, $0.id) > ($1.distance, $1.id) }
        for entry in far.prefix(state.viewModels.items.count - ViewModelState.storiesKept) { state.viewModels.items[entry.id] = nil }
    }

    /// Where a bubble for the story at `position` in the store goes in the ring list, which
    /// is in store order: the first bubble whose story comes later.
    func insertionIndex(forStoreIndex position: Int) -> Int {
        var low = 0, high = state.viewModels.ring.count
        while low < high {
            let middle = (low + high) / 2
            if (store.positions[state.viewModels.ring[middle].key] ?? Int.max) < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// One job for every view model this action made stale.
    mutating func requestViewModels() {
        if !ringChanged.isEmpty || !itemModelsChanged.isEmpty || homeChanged {
            var seenIDs = Set<StoryID>()
            let ring = ringChanged.filter { seenIDs.insert($0).inserted }.compactMap { id -> ViewModelJob.RingInput? in
                guard let position = store.positions[id] else { return nil }
                return ViewModelJob.RingInput(summary: store.summaries[position], story: store.story(at: position))
            }
            var storyIDs = Set<StoryID>()
            let stories = itemModelsChanged.filter { storyIDs.insert($0).inserted }.compactMap { id -> Story? in
                store.positions[id].flatMap { store.story(at: $0) }
            }
            state.viewModels.building.formUnion(stories.map(\.id))
            var home: ViewModelJob.HomeInput?
            if homeChanged {
                var items: [StoryID: [ItemID]] = [:]
                var authors: [StoryID: String] = [:]
                for section in state.home.level.sections {
                    for cell in section.cells {
                        guard case .openStory(let id)? = cell.action, let position = store.positions[id] else { continue }
                        items[id] = store.summaries[position].itemIDs
                        authors[id] = store.summaries[position].author.name
                    }
                }
                home = .init(generation: state.home.generation, sections: state.home.level.sections, storyItems: items,
                             storyAuthors: authors)
            }
            let job = ViewModelJob(ring: ring, stories: stories, home: home, seen: state.seen, now: state.now.date,
                                   width: state.screenWidth)
            if !job.isEmpty { effects.append(.buildViewModels(job)) }
        }
    }
}
