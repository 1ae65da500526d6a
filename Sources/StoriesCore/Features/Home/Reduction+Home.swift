extension Reduction {
    /// The Home feature: the sections, asked for once and retried with backoff.
    mutating func reduce(_ action: HomeNews) {
        switch action {
        case .loaded(let load):
            delegate(.sourceAnswered)
            state.home.request = .loaded
            delegate(.resolved("home")) // "did not load … trying again" is no longer true
            delegate(.warn(load.warnings))
            guard load.layout.sections != state.home.levels[0].sections else { break }
            state.home.levels[0].replaceSections(load.layout.sections)
            if state.home.levels.count == 1 {
                state.home.generation += 1
                homeChanged = true
            }
        case .failed(let reason, let retry):
            let attempt: Int
            if case .loading(let current) = state.home.request { attempt = current } else { attempt = 1 }
            guard retry else {
                state.home.request = .loaded // nothing more will come: the home has no sections
                delegate(.sourceAnswered) // it answered, with something that will not change
                delegate(.resolved("home"))
                delegate(.warn([FeedWarning("home sections did not load: \(reason)")]))
                break
            }
            state.home.request = .failed(attempt: attempt)
            delegate(.sourceFailed(reason))
            // One line for a run of failures, not one per attempt.
            if attempt == 1 { delegate(.warn([FeedWarning("home sections did not load: \(reason); trying again", topic: "home")])) }
            effects.append(.wake(.retryHome, after: Backoff.delay(afterAttempt: attempt + 1)))
        case .stale:
            // Only once the first answer came; one on its way, or a retry, brings the new one.
            guard state.home.request == .loaded else { break }
            state.home.request = .loading(attempt: 1)
            effects.append(.loadHome)
        }
    }

    /// The backoff after the home sections failed is over: ask again.
    mutating func homeWake() {
        if case .failed(let attempt) = state.home.request {
            state.home.request = .loading(attempt: attempt + 1)
            effects.append(.loadHome)
        }
    }

    /// Runs a home cell's action: a story opens as from its bubble, a screen of sections
    /// opens over the home (Esc comes back), a link goes to the browser (or, where there is
    /// none, to the notice line in full).
    mutating func run(_ cell: HomeCell) {
        switch cell.action {
        case .openStory(let id)?:
            guard let index = store.positions[id] else {
                // Further along the feed, perhaps: pages are asked for until it comes (`seek`).
                delegate(.seekStory(id))
                return
            }
            delegate(.openStory(at: index))
        case .openSections(let title, let sections)?:
            state.home.levels.append(HomeLevel(title: title, sections: sections, focus: 0))
            state.home.generation += 1
            homeChanged = true
        case .openLink(let link)?:
            delegate(.notice("↗ Opening \(link.url)…"))
            effects.append(.openLink(link.url))
        case nil:
            delegate(.notice("This cell does nothing when opened"))
        }
    }

    /// The ring row takes the keyboard: a screen of sections a cell opened closes (it has no
    /// ring row), the home's sections let go.
    mutating func backToTheRow() {
        if state.home.levels.count > 1 {
            state.home.levels.removeLast(state.home.levels.count - 1)
            state.home.generation += 1
            homeChanged = true
        }
        state.home.level.focus = nil
    }
}
