/// The Home feature's news and its retry: a scoped reducer (`FeatureReducer`) that sees
/// only `HomeState`; the rest goes out as delegate values.
enum HomeFeature: FeatureReducer {
    enum Action {
        case news(HomeNews)
        /// The backoff after the home sections failed is over: ask again.
        case retryWake
        /// The ring row takes the keyboard: a screen of sections a cell opened closes (it has
        /// no ring row), the home's sections let go.
        case backToTheRow
    }

    static func reduce(_ home: inout HomeState, _ action: Action, context: Void, into out: inout FeatureOutput) {
        switch action {
        case .news(let news): take(news, into: &home, &out)
        case .retryWake:
            if case .failed(let attempt) = home.request {
                home.request = .loading(attempt: attempt + 1)
                out.effect(.loadHome)
            }
        case .backToTheRow:
            if home.levels.count > 1 {
                home.levels.removeLast(home.levels.count - 1)
                home.generation += 1
                out.delegate(.homeChanged)
            }
            home.level.focus = nil
        }
    }

    /// The sections, asked for once and retried with backoff.
    private static func take(_ news: HomeNews, into home: inout HomeState, _ out: inout FeatureOutput) {
        switch news {
        case .loaded(let load):
            // (The parent has told the rest that the source answered, before this.)
            home.request = .loaded
            out.delegate(.resolved("home")) // "did not load … trying again" is no longer true
            out.delegate(.warn(load.warnings))
            guard load.layout.sections != home.levels[0].sections else { break }
            home.levels[0].replaceSections(load.layout.sections)
            if home.levels.count == 1 {
                home.generation += 1
                out.delegate(.homeChanged)
            }
        case .failed(let reason, let retry):
            let attempt: Int
            if case .loading(let current) = home.request { attempt = current } else { attempt = 1 }
            guard retry else {
                home.request = .loaded // nothing more will come: the home has no sections
                out.delegate(.sourceAnswered) // it answered, with something that will not change
                out.delegate(.resolved("home"))
                out.delegate(.warn([FeedWarning("home sections did not load: \(reason)")]))
                break
            }
            home.request = .failed(attempt: attempt)
            out.delegate(.sourceFailed(reason))
            // One line for a run of failures, not one per attempt.
            if attempt == 1 {
                out.delegate(.warn([FeedWarning("home sections did not load: \(reason); trying again", topic: "home")]))
            }
            out.effect(.wake(.retryHome, after: Backoff.delay(afterAttempt: attempt + 1)))
        case .stale:
            // Only once the first answer came; one on its way, or a retry, brings the new one.
            guard home.request == .loaded else { break }
            home.request = .loading(attempt: 1)
            out.effect(.loadHome)
        }
    }
}
