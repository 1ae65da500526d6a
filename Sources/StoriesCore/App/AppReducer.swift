/// The one place app state changes: `(inout AppState, AppAction, Moment) -> [AppEffect]`.
/// Pure and synchronous: time comes in as a `Moment`, work goes out as effects.
///
/// It is composed of feature reducers (docs/architecture.md, "Features"), each in its own
/// file and each handling its own kind of action: App (start, size, display, ticks), Pointer
/// (inputs and gestures), Navigation (commands), Row (selection, opening, search, seek),
/// Viewer (what is shown and its progress), Feed (pages and items), Home (sections), Media
/// (pictures, videos, preloading, retries), ViewModels and Chrome (notice, problems,
/// overlays). The action goes to its feature; then one step, `settle`, derives what every
/// action ends with, whatever it was: no gesture outlives what it was on; the progress bar
/// runs exactly when nothing stops it (paused, held, dragged, help, a screen too small,
/// items or the photo still on their way); a page is asked for when the selection or the
/// viewer is within `StoryStore.prefetchDistance` of the end; the items
/// `PreloadPlanner.storiesToLoad` names are asked for; the item on screen is marked seen
/// once it is there to see; the preload set is handed to the runtime when it changed; and
/// view models are rebuilt for exactly the stories that changed.
public enum AppReducer {
    public static func reduce(_ state: inout AppState, _ action: AppAction, at now: Moment) -> [AppEffect] {
        var reduction = Reduction(state: state)
        state = AppState(title: "", now: now) // release the copy so `reduction` mutates in place
        reduction.state.now = now
        let seenBefore = reduction.state.seen
        let pointerBefore = reduction.state.gesture.pointer
        let viewerBefore = reduction.state.viewer.map(ViewerPlace.init)
        reduction.route(action)
        reduction.settle(after: action, viewerBefore: viewerBefore)
        reduction.askForHoldCheck(before: pointerBefore)
        if reduction.state.seen != seenBefore {
            reduction.effects.append(.persistSeen(reduction.state.seen))
            if let viewer = reduction.state.viewer, let story = reduction.state.feed.store.story(at: viewer.storyIndex) {
                reduction.ringChanged.append(story.id)
                if reduction.levelOpensStories { reduction.homeChanged = true }
            }
        }
        reduction.requestViewModels()
        state = reduction.state
        return reduction.effects
    }
}

/// One action's worth of change: the state, the effects so far, and which view models
/// must be rebuilt. Each feature's reducer is an extension of it in the feature's file.
struct Reduction {
    var state: AppState
    var effects: [AppEffect] = []
    var ringChanged: [StoryID] = []
    var itemModelsChanged: [StoryID] = []
    /// The section view models of the screen of sections shown must be rebuilt.
    var homeChanged = false
    /// The screen of sections shown when the action came (a press on a cell belongs to it).
    let generationBefore: Int

    init(state: AppState) {
        self.state = state
        generationBefore = state.home.generation
    }

    var store: StoryStore {
        get { state.feed.store }
        _modify { yield &state.feed.store }
    }

    /// Hands the action to the feature that owns it.
    mutating func route(_ action: AppAction) {
        switch action {
        case .app(let event): reduce(event)
        case .input(let event, let time): input(event, at: time)
        case .wake(let id): wake(id)
        case .navigation(let navigation): reduce(navigation)
        case .feed(let news): take(news)
        case .home(let home):
            // The source answered: what was held back is asked for as the home was before
            // its new sections (a story under the focused cell stays among the retries).
            if case .loaded = home { delegate(.sourceAnswered) }
            scope(HomeFeature.self, \.home, .news(home))
        case .mediaNews(let news): media(.news(news))
        case .viewModelsBuilt(let update): install(update)
        case .chrome(let chrome): scope(ChromeFeature.self, \.chrome, chrome)
        case .seenElsewhere(let other): mergeSeen(from: other)
        }
    }

    /// A wake-up goes to the feature that asked for it.
    mutating func wake(_ id: WakeID) {
        switch id {
        case .hold:
            if let recognition = GestureRecognizer.holdCheck(at: state.now.uptime, in: state) { apply(recognition) }
        case .firstPageOverdue: feed(.firstPageOverdue)
        case .retryPage: feed(.retryPage)
        case .retryStories: retryStories(state.feed.storyRetries.due(at: state.now.uptime), recovered: false)
        case .retryHome: scope(HomeFeature.self, \.home, .retryWake)
        case .retryMedia: media(.retry(state.media.retries.due(at: state.now.uptime)))
        case .probeSource: probeSource()
        }
    }
}

extension Array {
    public subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}

/// Where the viewer is: a gesture in progress belongs to this place.
struct ViewerPlace: Equatable {
    var story: Int
    var item: Int
    var isWaiting: Bool

    init(_ viewer: ViewerState) {
        story = viewer.storyIndex
        item = viewer.itemIndex
        isWaiting = viewer.isWaiting
    }
}
