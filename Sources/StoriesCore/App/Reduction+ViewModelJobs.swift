// The parent's side: the context derived once, and the jobs for what an action made stale.
extension Reduction {
    /// Built view models put in place (`ViewModelsFeature`).
    mutating func install(_ update: ViewModelUpdate) {
        // The planner's stories only when some item models may have to go.
        let mayForget = Set(state.viewModels.items.keys).union(update.items.keys).count > ViewModelState.storiesKept
        let context = ViewModelsFeature.Context(positions: store.positions, screenWidth: state.screenWidth,
                                                homeGeneration: state.home.generation,
                                                near: state.viewer?.storyIndex ?? state.row.selection,
                                                wanted: mayForget ? Set(PreloadPlanner.storiesToLoad(state)) : [])
        scope(ViewModelsFeature.self, \.viewModels, update, context: context)
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
