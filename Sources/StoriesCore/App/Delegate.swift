/// What a feature asks of a slice it does not own, handed to the parent (`delegate(_:)`)
/// within the same run of the reducer: a feature is handed only its own slice
/// (`FeatureReducer`), so the compiler keeps it off the others. The parent — the files of
/// `App/`: `route`, `settle`, this file, the features' contexts and Navigation, which turns
/// commands and gesture steps into moves across the row, the viewer, the home and the
/// boxes — is the only code that writes across slices.
enum Delegate: Equatable {
    // The shared context.
    /// The feed's page named the feed: the title line says it.
    case title(String)
    /// What the viewer saw elsewhere (a server's seen state) is merged with what was seen
    /// here; the rings of the stories that gained an item are built again.
    case mergeSeen(SeenState)
    /// The feed's page said which way it reads.
    case direction(LayoutDirection)
    /// The source failed for a reason that may pass (`sourceUnreachable`).
    case sourceFailed(String)
    /// What warnings of this topic were about has succeeded: they leave the screen and `p`.
    case resolved(String)
    /// The source answered something: what was held back is asked for at once, once.
    case sourceAnswered

    /// The section view models of the screen of sections shown must be built again.
    case homeChanged
    /// Stories came, went or changed: the section view models are built again when the
    /// screen of sections shown has cells that open stories.
    case homeStoriesChanged
    /// These stories' bubbles must be built again.
    case ringChanged([StoryID])
    /// This story's item models must be built again (its items came).
    case itemModelsChanged(StoryID)

    // The Chrome feature's slice.
    /// A line for the notice line (nil: the notice was read, it goes).
    case notice(String?)

    // The Feed feature's slice.
    /// Lines for the problems list.
    case warn([FeedWarning])
    /// A story's items are wanted (going to a failed story tries it again).
    case loadItems(StoryID)
    /// A story's items are no longer wanted: the request on its way is called off.
    case cancelItems(StoryID)
    /// The next page is wanted now (a search along the feed); the caller has seen that
    /// paging is ready.
    case askForPage(String?)

    // The Row feature's slice.
    /// The selection moves to this story (held to the stories loaded).
    case select(Int)
    /// Stories came or went: the selection stays on `story` where it still is, else within
    /// the stories loaded; the `/` field counts its matches again.
    case storiesChanged(keeping: StoryID?)
    /// A cell opens a story loaded at this index, as its bubble would.
    case openStory(at: Int)
    /// A cell opens a story further along the feed: pages are asked for until it comes.
    case seekStory(StoryID)
    /// A story's items did not come: its opening stops (said when it was opened from a
    /// section, where the row's ⚠ is not in view), and a gesture on it ends.
    case storyFailed(StoryID, reason: String)
    /// The viewer shows this story: the row leaves its field and its opening, and its
    /// selection follows (a dismiss lands on the story).
    case rowFollowsViewer(storyIndex: Int)

    // The Viewer feature's slice.
    /// Show an item (nil: the story's first unseen).
    case show(story: Int, item: Int?)
    case dismiss
    /// The sound heard is this far into the item on screen (seconds): its clock follows.
    case soundClock(Double)

    // The Home feature's slice.
    /// The ring row takes the keyboard (a screen of sections a cell opened closes).
    case backToTheRow

    // The Pointer feature's slice.
    /// The gesture in progress ends (what it was on went away).
    case endGesture

    // The Media feature's slice.
    /// An item was shown afresh: a video on it starts over (`PlayerPlan.run`).
    case itemShown

    // The ViewModels feature's slice.
    /// These stories left the store: their item models go; the ring's bubbles follow the
    /// store's new order when `reorder`.
    case storiesLeft([StoryID], reorder: Bool)

    // The parent's own.
    /// A gesture step, as the recognizer decided it (the Navigation feature applies it).
    case step(GestureStep)
    /// A command (the item ended: `nextItem`). Unlike a key's, it does not first complete
    /// a running animation.
    case command(Command)
}

extension Reduction {
    /// Carries out what a feature asked of another's slice.
    mutating func delegate(_ delegate: Delegate) {
        switch delegate {
        case .title(let title):
            state.title = title
        case .mergeSeen(let other):
            ringChanged += state.seen.merge(other).filter { store.positions[$0] != nil }
        case .direction(let direction):
            state.feedDirection = direction
        case .sourceFailed(let reason):
            state.sourceUnreachable = true
            state.sourceProblem = reason
            // Heard again through the retries pending, or, when none is left, the probe.
            effects.append(.wake(.probeSource, after: Backoff.maximum))
        case .resolved(let topic):
            state.feed.warnings.removeAll { $0.topic == topic }
        case .sourceAnswered:
            sourceAnswered()
        case .homeChanged:
            homeChanged = true
        case .homeStoriesChanged:
            if levelOpensStories { homeChanged = true }
        case .ringChanged(let ids):
            ringChanged += ids
        case .itemModelsChanged(let id):
            itemModelsChanged.append(id)
        case .notice(let text):
            state.chrome.notice = text
        case .warn(let warnings):
            state.feed.warnings += warnings
        case .loadItems(let id):
            loadItems(id)
        case .cancelItems(let id):
            if store.cancelLoadingItems(of: id) { effects.append(.cancel(.story(id))) }
        case .askForPage(let cursor):
            store.paging = .loading(cursor: cursor, attempt: 1)
            effects.append(.loadPage(cursor))
        case .select(let index):
            state.row.selection = max(0, min(index, store.count - 1))
        case .storiesChanged(let keeping):
            if var search = state.row.search {
                search.matches = countMatches(search.text)
                state.row.search = search
            }
            state.row.selection = keeping.flatMap { store.positions[$0] } ?? min(state.row.selection, max(0, store.count - 1))
        case .openStory(let index):
            state.row.seeking = nil
            state.row.selection = index
            openSelectedStory()
        case .seekStory(let id):
            // A story still opening gives way to this one, as Esc would stop it.
            stopOpening()
            beginSeeking(.story(id))
        case .storyFailed(let id, let reason):
            if state.row.opening == id {
                state.row.opening = nil
                // Opened from a section, where the row's ⚠ is not in view: the notice says so.
                if state.home.level.focus != nil || state.home.levels.count > 1 {
                    let name = store.positions[id].map { store.summaries[$0].author.name } ?? id
                    state.chrome.notice = "⚠ Could not load \(name)'s story: \(reason)"
                }
            }
            if let viewer = state.viewer, store.summaries[safe: viewer.storyIndex]?.id == id {
                state.gesture.pointer = .idle // the story under the pointer failed: its gesture ends
            }
        case .rowFollowsViewer(let index):
            state.row.opening = nil
            state.row.search = nil // the field belongs to the row
            state.row.selection = max(0, min(index, store.count - 1))
        case .show(let story, let item):
            show(story: story, item: item)
        case .dismiss:
            dismiss()
        case .soundClock(let time):
            viewer(.soundClock(time))
        case .backToTheRow:
            backToTheRow()
        case .endGesture:
            state.gesture.pointer = .idle
        case .itemShown:
            state.media.showCount += 1
        case .storiesLeft(let ids, let reorder):
            for id in ids { state.viewModels.items[id] = nil }
            if reorder {
                // The bubbles follow the store's new order; the changed ones are built again.
                let kept = state.viewModels.ring.models.filter { store.positions[$0.key] != nil }
                state.viewModels.ring = ViewModelList(kept.sorted { (store.positions[$0.key] ?? 0) < (store.positions[$1.key] ?? 0) })
            }
        case .step(let step):
            apply(step)
        case .command(let command):
            apply(command)
        }
    }

    /// The source answered something (bytes of a photo, a story, a page, the home): what
    /// failed for a reason that may have passed is asked for again at once, not at the end
    /// of its backoff; stories that failed while nobody was looking lose their ⚠.
    mutating func sourceAnswered() {
        state.lastAnswer = state.now.date
        guard state.sourceUnreachable else { return }
        state.sourceUnreachable = false
        state.sourceProblem = nil
        effects.append(.cancel(.wake(.probeSource)))
        if !state.media.retries.isEmpty { media(.retry(state.media.retries.keys.filter { state.media.retries[$0]?.due.isFinite == true })) }
        if !state.feed.storyRetries.isEmpty { retryStories(state.feed.storyRetries.keys, recovered: true) }
        if case .failed(let cursor, let attempt, _, _) = store.paging {
            store.paging = .loading(cursor: cursor, attempt: attempt + 1)
            effects.append(.cancel(.wake(.retryPage)))
            effects.append(.loadPage(cursor))
        }
    }

    /// The source has not answered for the policy's longest wait. While a retry waits for its
    /// time (a story, a photo, a page, the home), its answer will say whether the source is back;
    /// when none is left — what failed is no longer wanted — nothing would ever ask again,
    /// and the "no answer" line would stay for ever, so the home is asked for again (a
    /// small document, and the one request every source answers; its own retries carry on
    /// from there). Then again every `Backoff.maximum` while the source stays silent.
    mutating func probeSource() {
        guard state.sourceUnreachable else { return }
        // Retries waiting for their time; one already asked (or let go) may never answer.
        var pending = state.feed.storyRetries.nextDue != nil || state.media.retries.nextDue != nil
        if case .failed = store.paging { pending = true }
        if case .loading = store.paging { pending = true }
        if state.home.request != .loaded { pending = true }
        if !pending { scope(HomeFeature.self, \.home, .news(.stale)) }
        effects.append(.wake(.probeSource, after: Backoff.maximum))
    }
}
