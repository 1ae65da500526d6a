/// What can happen to the app: inputs, results of work and timers.
public enum AppAction: Equatable, Sendable {
    /// The run loop started: ask for the first page.
    case start
    /// The screen has this size now: width-dependent view models are rebuilt, and any
    /// gesture or animation in progress ends.
    case resized(width: Int, height: Int)
    /// The terminal's colours or cell shape are these now (at start; a resize can change a
    /// cell's pixel size): every picture is prepared again for them.
    case display(Display)
    /// A key or a mouse report from the terminal (or a recording), with the uptime it was
    /// read at. The reducer recognises the gesture (`GestureRecognizer`), applies it and
    /// logs the decision for the `g` overlay, all in this one run.
    case input(InputEvent, readAt: Double)
    /// A wake-up asked for with `.wake` has come.
    case wake(WakeID)
    /// A page of the feed arrived.
    case pageLoaded(FeedPage)
    /// The first page as the source's cache kept it (a warm start): shown until the feed's
    /// own first page arrives, if that has not happened yet.
    case cachedPageLoaded(FeedPage)
    /// The page asked for did not arrive; it is retried with backoff.
    case pageFailed(String)
    /// A story's items arrived.
    case storyLoaded(StoryLoad)
    /// A story's items did not arrive; `retry`: for a reason that may pass (a timeout, a
    /// refused connection, a 5xx), so they are asked for again with backoff while wanted.
    case storyFailed(StoryID, String, retry: Bool = false)
    /// The home sections arrived (`home.json`, `GET /v1/home`).
    case homeLoaded(HomeLoad)
    /// They did not: asked again with backoff when the failure was the network's
    /// (`retry`), else said once and left (a 404, a document that is not a home).
    case homeFailed(String, retry: Bool)
    /// What opening a link did, in words for the notice line.
    case linkOpened(String)
    /// A file the app writes as it goes (a recording, the gesture log, the metrics, the
    /// seen state) could not be written: said at once on the notice line and kept in the
    /// problems list, once for each file; the app says it again when it ends.
    case writeFailed(WriteFailure)
    /// View models built in the background, handed over in one step.
    case viewModelsBuilt(ViewModelUpdate)
    /// The picture pipeline's progress on a photo (by location): fetched, decoded, ready
    /// at the current size, or failed with the reason.
    case media(String, MediaStatus)
    /// A video player's news about a video (by location): opened, stalled, resumed,
    /// ended, failed.
    case video(String, VideoEvent)
    /// A command, as a key bound to it would give (the run loop pauses on Ctrl-Z with it).
    case command(Command)
    /// Highlight the story at an index of the ring row.
    case select(Int)
    /// Time passed (frame timer): progress, auto-advance, the end of an animation.
    case tick
    /// The running animation jumps to its end.
    case completeTransition
    /// A live replay began, reached its end, or stopped: the hint line says so.
    case replay(ReplayStatus?)
    /// A line for the notice line from the runtime (how a replay differs from its
    /// recording, say).
    case notice(String)
    /// A media fetch took this many seconds (the preload window adapts to it).
    case fetchTimed(Double)
}

/// What a wake-up is for. One of each kind is pending at most: a new one replaces it.
public enum WakeID: Hashable, Sendable {
    /// Is the pressed pointer still down, unmoved? Then it is a hold.
    case hold
    /// The backoff after a failed page is over: ask again.
    case retryPage
    /// The backoff after the home sections failed is over: ask again.
    case retryHome
    /// The first page has had `AppState.firstPagePatience` seconds: if it is still not
    /// here, the loading line says so.
    case firstPageOverdue
    /// The backoff of a photo or video the source did not answer for is over: ask again.
    case retryMedia
    /// The backoff of a story whose items the source did not answer for is over.
    case retryStories
}

/// Work in flight that can be called off by name.
public enum EffectID: Hashable, Sendable {
    case story(StoryID)
    case wake(WakeID)
}

/// Work the reducer asks the runtime to do; results come back as actions.
public enum AppEffect: Equatable, Sendable {
    /// Ask the feed for the page at a cursor (nil: the first), then send `.pageLoaded` or
    /// `.pageFailed`.
    case loadPage(FeedCursor?)
    /// Read the first page from the source's cache, then send `.cachedPageLoaded` (nothing
    /// when there is none).
    case loadCachedPage
    /// Load a story's items (as `EffectID.story`), then send `.storyLoaded` or
    /// `.storyFailed`.
    case loadStory(StoryID)
    /// Ask for the home sections, then send `.homeLoaded` or `.homeFailed`.
    case loadHome
    /// Open a web page (an http or https URL), then send `.linkOpened`.
    case openLink(String)
    /// Send `.wake(id)` after this many seconds (as `EffectID.wake(id)`, replacing one
    /// already waiting).
    case wake(WakeID, after: Double)
    /// Call off the work with this id: no answer comes from it.
    case cancel(EffectID)
    /// Build view models off the main queue, then send `.viewModelsBuilt`.
    case buildViewModels(ViewModelJob)
    /// Prepare these photos, most urgent first, cancelling work for any other: the picture
    /// pipeline reports its progress as `.media`.
    case preload(PreloadRequest)
    /// Ask again for these photos and videos, held back after a failure that may pass (those
    /// no longer in the preload set are only let go).
    case retryMedia([String])
    /// Put text on the terminal's clipboard (OSC 52): only ever because the person asked.
    case copyToClipboard(String)
    /// Forget what the terminal is thought to show and draw every cell again (Ctrl-L:
    /// another program wrote over the screen).
    case redrawScreen
    /// Give the terminal back and end the process.
    case quit
    /// Seen state changed: keep it (the runtime batches the writes).
    case persistSeen(SeenState)
}

/// The one place app state changes: `(inout AppState, AppAction, Moment) -> [AppEffect]`.
/// Pure and synchronous: time comes in as a `Moment`, work goes out as effects.
///
/// After every action the reducer settles the same things, whatever the action was: no
/// gesture outlives what it was on; the progress bar runs exactly when nothing stops it
/// (paused, held, dragged, help, a screen too small, items or the photo still on their way);
/// a page is asked for when the selection or the viewer is within
/// `StoryStore.prefetchDistance` of the end; the items `PreloadPlanner.storiesToLoad` names
/// are asked for (the story in the viewer and one being opened; preloading, also its
/// neighbours and five stories from the selection); the preload set is handed to the
/// runtime when it changed; and view models are rebuilt for exactly the stories that
/// changed.
public enum AppReducer {
    public static func reduce(_ state: inout AppState, _ action: AppAction, at now: Moment) -> [AppEffect] {
        // The pipeline reports every target's stage whenever the preload set changes; a stage
        // already known changes nothing, so it costs nothing either.
        if case .media(let location, let status) = action, state.media[location] == status { return [] }
        var reduction = Reduction(state: state)
        state = AppState(title: "", now: now) // release the copy so `reduction` mutates in place
        reduction.state.now = now
        let seenBefore = reduction.state.seen
        let pointerBefore = reduction.state.pointer
        let viewerBefore = reduction.state.viewer.map(ViewerPlace.init)
        reduction.apply(action)
        reduction.settle(after: action, viewerBefore: viewerBefore)
        reduction.askForHoldCheck(before: pointerBefore)
        if reduction.state.seen != seenBefore {
            reduction.effects.append(.persistSeen(reduction.state.seen))
            if let viewer = reduction.state.viewer, let story = reduction.state.store.story(at: viewer.storyIndex) {
                reduction.ringChanged.append(story.id)
                if reduction.levelOpensStories { reduction.homeChanged = true }
            }
        }
        reduction.requestViewModels()
        state = reduction.state
        return reduction.effects
    }
}

extension AppReducer {
    /// Applies an action and builds at once, on this thread, the view models it asks for
    /// (installing each as the app would a moment later): for runs with no main queue to
    /// come back to — benchmarks, tests. Returns every effect, the builds' included.
    public static func reduceBuildingViewModels(_ state: inout AppState, _ action: AppAction, at now: Moment) -> [AppEffect] {
        var effects = reduce(&state, action, at: now)
        var next = 0
        while next < effects.count {
            if case .buildViewModels(let job) = effects[next] {
                effects += reduce(&state, .viewModelsBuilt(ViewModelFactory.build(job)), at: now)
            }
            next += 1
        }
        return effects
    }
}

/// One action's worth of change: the state, the effects so far, and which view models
/// must be rebuilt.
private struct Reduction {
    var state: AppState
    var effects: [AppEffect] = []
    var ringChanged: [StoryID] = []
    var pagesChanged: [StoryID] = []
    /// The section view models of the screen of sections shown must be rebuilt.
    var homeChanged = false
    /// The screen of sections shown when the action came (a press on a cell belongs to it).
    let generationBefore: Int

    init(state: AppState) {
        self.state = state
        generationBefore = state.homeGeneration
    }

    var store: StoryStore {
        get { state.store }
        _modify { yield &state.store }
    }

    mutating func apply(_ action: AppAction) {
        switch action {
        case .start:
            if store.paging == .notStarted {
                state.startedAt = state.now.uptime
                store.paging = .loading(cursor: nil, attempt: 1)
                effects.append(.loadPage(nil))
                effects.append(.loadCachedPage)
                effects.append(.wake(.firstPageOverdue, after: AppState.firstPagePatience))
            }
            if state.homeRequest == .notStarted {
                state.homeRequest = .loading(attempt: 1)
                effects.append(.loadHome)
            }
        case .resized(let width, let height):
            guard width > 0, height > 0, width <= InputLimits.maxScreenSide, height <= InputLimits.maxScreenSide else { return }
            // A resize interrupts: the animation ends and a gesture in progress is called off
            // (its cells no longer mean what they did). The g log says so.
            if width != state.screenWidth || height != state.screenHeight {
                var decision = GestureDecision(time: state.now.uptime, input: "resize to \(width)×\(height)", gesture: "resize",
                                               handler: "app")
                if state.transition != nil { decision.notes.append("the animation ended at once") }
                if !state.pointer.isIdle { decision.notes.append("the mouse gesture in progress is called off") }
                if !ScreenLayout.isUsable(width: width, height: height) {
                    decision.notes.append("too small to show anything (at least \(ScreenLayout.minimumWidth)×\(ScreenLayout.minimumHeight))")
                }
                log(decision)
            }
            completeTransition()
            state.pointer = .idle
            if width != state.screenWidth {
                // Every loaded story's pages depend on the width; until the new ones arrive
                // the old ones draw.
                pagesChanged += state.pages.keys.sorted()
                if !state.homeLevel.sections.isEmpty { homeChanged = true }
            }
            state.screenWidth = width
            state.screenHeight = height
        case .display(let display):
            state.display = Display(colorDepth: display.colorDepth, cellAspect: display.cellAspect)
        case .input(let event, let time):
            input(event, at: time)
        case .wake(.hold):
            if let recognition = GestureRecognizer.holdCheck(at: state.now.uptime, in: state) { apply(recognition) }
        case .wake(.firstPageOverdue):
            state.firstPageOverdue = store.isLoadingFirstPage
        case .wake(.retryHome):
            if case .failed(let attempt) = state.homeRequest {
                state.homeRequest = .loading(attempt: attempt + 1)
                effects.append(.loadHome)
            }
        case .wake(.retryMedia):
            retryMedia(state.mediaRetries.due(at: state.now.uptime))
        case .wake(.retryStories):
            retryStories(state.storyRetries.due(at: state.now.uptime), recovered: false)
        case .wake(.retryPage):
            if case .failed(let cursor, let attempt, _, _) = store.paging {
                store.paging = .loading(cursor: cursor, attempt: attempt + 1)
                effects.append(.loadPage(cursor))
                if store.isLoadingFirstPage {
                    // Each try of the first page gets its own patience before it is called late.
                    state.firstPageOverdue = false
                    effects.append(.wake(.firstPageOverdue, after: AppState.firstPagePatience))
                }
            }
        case .pageLoaded(let page):
            sourceAnswered()
            if let title = page.title, !title.isEmpty { state.title = title }
            state.warnings += page.warnings
            if store.isProvisional {
                confirmCachedRow(with: page)
                return
            }
            let stalledBefore = store.pagesWithoutProgress
            let added = store.append(page, at: state.now.uptime)
            ringChanged += added
            noteStalledPaging(before: stalledBefore)
            if var search = state.search {
                search.matches = countMatches(search.text)
                state.search = search
            }
            if !added.isEmpty, levelOpensStories { homeChanged = true }
            state.selection = min(state.selection, max(0, store.count - 1))
        case .cachedPageLoaded(let page):
            guard store.showCached(page) else { break }
            if let title = page.title, !title.isEmpty { state.title = title }
            ringChanged += store.summaries.map(\.id)
            if levelOpensStories { homeChanged = true }
        case .pageFailed(let reason):
            store.pageFailed(reason, at: state.now.uptime)
            if case .failed(_, _, _, let retryAt) = store.paging {
                effects.append(.wake(.retryPage, after: retryAt - state.now.uptime))
            }
        case .storyLoaded(let load):
            let story = load.story
            state.storyRetries.remove(story.id)
            sourceAnswered()
            guard store.positions[story.id] != nil else { return }
            guard !story.items.isEmpty else {
                apply(.storyFailed(story.id, "the story has no items to show"))
                return
            }
            // The viewer opens on it once its pages are built too (see `settle`).
            store.itemsLoaded(story)
            state.warnings += load.warnings
            ringChanged.append(story.id)
            pagesChanged.append(story.id)
        case .storyFailed(let id, let reason, let retry):
            store.itemsFailed(id, reason: reason)
            if retry, store.positions[id] != nil {
                state.storyRetries.failed(id, reason: reason, at: state.now.uptime)
                scheduleRetry(.retryStories, state.storyRetries.nextDue)
            } else {
                state.storyRetries.remove(id)
            }
            if state.opening == id {
                state.opening = nil
                // Opened from a section, where the row's ⚠ is not in view: the notice says so.
                if state.homeLevel.focus != nil || state.homeLevels.count > 1 {
                    let name = store.positions[id].map { store.summaries[$0].author.name } ?? id
                    state.notice = "⚠ Could not load \(name)'s story: \(reason)"
                }
            }
            if let viewer = state.viewer, store.summaries[safe: viewer.storyIndex]?.id == id {
                state.pointer = .idle // the story under the pointer failed: its gesture ends
            }
        case .homeLoaded(let load):
            sourceAnswered()
            state.homeRequest = .loaded
            state.warnings += load.warnings
            guard load.layout.sections != state.homeLevels[0].sections else { break }
            state.homeLevels[0].replaceSections(load.layout.sections)
            if state.homeLevels.count == 1 {
                state.homeGeneration += 1
                homeChanged = true
            }
        case .homeFailed(let reason, let retry):
            let attempt: Int
            if case .loading(let current) = state.homeRequest { attempt = current } else { attempt = 1 }
            guard retry else {
                state.homeRequest = .loaded // nothing more will come: the home has no sections
                state.warnings.append(FeedWarning("home sections did not load: \(reason)"))
                break
            }
            state.homeRequest = .failed(attempt: attempt)
            // One line for a run of failures, not one per attempt.
            if attempt == 1 { state.warnings.append(FeedWarning("home sections did not load: \(reason); trying again")) }
            effects.append(.wake(.retryHome, after: min(30, 2 * Double(1 << min(attempt - 1, 4)))))
        case .linkOpened(let message):
            state.notice = SafeText.line(message).truncated(toWidth: 2200)
        case .writeFailed(let failure):
            guard !state.failedWrites.contains(where: { $0.file == failure.file }) else { break }
            state.failedWrites.append(failure)
            state.notice = "⚠ " + failure.line
            state.warnings.append(FeedWarning(failure.line))
        case .viewModelsBuilt(let update):
            install(update)
        case .media(let location, let status):
            state.media[location] = status
            switch status {
            case .unreachable(let reason):
                state.mediaRetries.failed(location, reason: reason, at: state.now.uptime)
                scheduleRetry(.retryMedia, state.mediaRetries.nextDue)
            case .ready, .failed:
                state.mediaRetries.remove(location)
            case .queued, .fetching, .decoding:
                break
            }
        case .video(let location, let event):
            video(event, at: location)
        case .tick:
            if let transition = state.transition, transition.timeline.isFinished(at: state.now.uptime) {
                state.transition = nil
            }
            advanceIfItemEnded()
        case .select(let index):
            apply(.select(index) as GestureStep)
        case .command(let command):
            apply(.command(command) as GestureStep)
        case .completeTransition:
            completeTransition()
        case .replay(let status):
            state.replay = status
        case .notice(let text):
            state.notice = SafeText.line(text, maxColumns: SafeText.Limit.message)
        case .fetchTimed(let seconds):
            state.pace.recordFetch(seconds: seconds)
            sourceAnswered()
        }
    }

    /// Asks for a wake-up when the earliest retry is due (one wake-up a kind: a new one
    /// replaces the one waiting).
    mutating func scheduleRetry(_ wake: WakeID, _ due: Double?) {
        guard let due else { return }
        effects.append(.wake(wake, after: max(0, due - state.now.uptime)))
    }

    /// The source answered something (bytes of a photo, a story, a page, the home): what
    /// failed for a reason that may have passed is asked for again at once, not at the end
    /// of its backoff; stories that failed while nobody was looking lose their ⚠.
    mutating func sourceAnswered() {
        if !state.mediaRetries.isEmpty { retryMedia(state.mediaRetries.keys.filter { state.mediaRetries[$0]?.due.isFinite == true }) }
        if !state.storyRetries.isEmpty { retryStories(state.storyRetries.keys, recovered: true) }
        if case .failed(let cursor, let attempt, _, _) = store.paging {
            store.paging = .loading(cursor: cursor, attempt: attempt + 1)
            effects.append(.cancel(.wake(.retryPage)))
            effects.append(.loadPage(cursor))
        }
    }

    /// Photos and videos asked for again: those still wanted stay counted until they come
    /// (or fail again); the rest are let go and forgotten.
    mutating func retryMedia(_ locations: [String]) {
        guard !locations.isEmpty else { return }
        let wanted = Set((state.preloading?.targets.map(\.media.location) ?? []) + (state.preloading?.banners.map(\.location) ?? []))
        for location in locations {
            if wanted.contains(location) {
                state.mediaRetries.asked(location)
            } else {
                state.mediaRetries.remove(location)
                state.media[location] = nil
            }
        }
        effects.append(.retryMedia(locations))
        scheduleRetry(.retryMedia, state.mediaRetries.nextDue)
    }

    /// Stories whose items failed for a reason that may pass: asked for again while they are
    /// wanted (shown, opening, or preloaded); the others wait for the source to answer
    /// (`recovered`), when their ⚠ goes.
    mutating func retryStories(_ ids: [StoryID], recovered: Bool) {
        guard !ids.isEmpty else { return }
        var wanted = Set(PreloadPlanner.storiesToLoad(state))
        if let opening = state.opening { wanted.insert(opening) }
        for id in ids {
            if wanted.contains(id) {
                state.storyRetries.asked(id)
                loadItems(id)
                ringChanged.append(id)
            } else if recovered {
                state.storyRetries.remove(id)
                store.forgetFailure(of: id)
                ringChanged.append(id)
            } else {
                state.storyRetries.asked(id) // until the source answers again
            }
        }
        scheduleRetry(.retryStories, state.storyRetries.nextDue)
    }

    /// One input: a key that no binding takes with Alt is read as Esc and then the key,
    /// each recognised in the state the one before left.
    mutating func input(_ event: InputEvent, at time: Double) {
        if case .key = event { state.notice = nil } // the notice was read
        if case .mouse(let mouse) = event, case .press = mouse.kind { state.notice = nil }
        if case .key = event {
            let keys = state.bindings.resolving(event, in: state.inputContext)
            if keys != [event] {
                var decision = GestureDecision(time: time, input: GestureRecognizer.describe(event),
                                               gesture: "Esc then \(keys.last.map { GestureRecognizer.describe($0) } ?? "")",
                                               handler: "keys")
                decision.notes.append("read as two keys (no binding for \(event))")
                log(decision)
                for key in keys { apply(GestureRecognizer.recognize(key, at: time, in: state)) }
                return
            }
        }
        apply(GestureRecognizer.recognize(event, at: time, in: state))
    }

    /// What the recognizer decided: the pointer's new gesture, then its steps in order,
    /// then the decision joins the log.
    mutating func apply(_ recognition: Recognition) {
        state.pointer = recognition.pointer
        var decision = recognition.decision
        for step in recognition.steps {
            // Nobody can see anything on a screen too small to draw the app: nothing moves
            // on or is marked seen; only leaving (quit, close the viewer or the help) works.
            if !state.isUsable, !Self.worksWhileTooSmall(step) {
                decision.notes.append("ignored: the terminal is too small to show anything")
                decision.result = []
                // A drag still ends, going back rather than on.
                if case .endDrag(let drag, _) = step { apply(GestureStep.endDrag(drag, commit: false)) }
                continue
            }
            apply(step)
        }
        log(decision)
    }

    static func worksWhileTooSmall(_ step: GestureStep) -> Bool {
        switch step {
        case .command(let command): [.quit, .dismiss, .closeHelp, .redraw, .copyLink].contains(command)
        case .completeTransition: true
        case .endDrag(_, let commit): !commit
        case .select, .focusCell: false
        case .searchEdit(let edit): edit == .cancel || edit == .close
        }
    }

    mutating func apply(_ step: GestureStep) {
        switch step {
        case .completeTransition:
            completeTransition()
        case .command(let command):
            // Every input finishes a running animation at once, then applies (docs/gestures.md).
            completeTransition()
            apply(command)
        case .select(let index):
            completeTransition()
            if state.viewer == nil, store.summaries.indices.contains(index) {
                state.selection = index
                state.homeLevel.focus = nil // a bubble was clicked: the ring row has the keyboard
            }
        case .focusCell(let section, let cell):
            completeTransition()
            guard state.viewer == nil, state.homeLevel.cell(section: section, index: cell) != nil else { break }
            state.homeLevel.focus = section
            state.homeLevel.selected[section] = cell
        case .endDrag(let drag, let commit):
            endDrag(drag, commit: commit)
        case .searchEdit(let edit):
            self.edit(edit)
        }
    }

    /// A key in the `/` field. Each change selects the first story loaded, from where the
    /// search began (round to the start), whose name or handle holds the text.
    mutating func edit(_ edit: SearchEdit) {
        guard var search = state.search, state.viewer == nil else { return }
        let count = store.count
        func match(from start: Int, forward: Bool) -> Int? {
            let folded = NameSearch.fold(search.text)
            guard count > 0, !folded.isEmpty else { return nil }
            for step in 0..<count {
                let index = ((start + (forward ? step : -step)) % count + count) % count
                if let summary = store.summaries[safe: index], NameSearch.matches(summary, folded: folded) { return index }
            }
            return nil
        }
        switch edit {
        case .insert(let character):
            // Printable characters; a space between words (a name is "Priya Raman").
            let printable = character == " " ? !search.text.isEmpty
                : character.unicodeScalars.allSatisfy(SafeText.isShowable) && SafeText.line(String(character)) == String(character)
            guard search.text.count < NameSearch.maxLength, printable else { return }
            search.text.append(character)
        case .deleteBackward:
            guard !search.text.isEmpty else { return }
            search.text.removeLast()
        case .clear:
            search.text = ""
        case .next, .previous:
            if let index = match(from: state.selection + (edit == .next ? 1 : -1), forward: edit == .next) { state.selection = index }
            state.search = search
            return
        case .submit:
            state.search = nil
            let folded = NameSearch.fold(search.text)
            guard !folded.isEmpty else { return }
            if let summary = store.summaries[safe: state.selection], NameSearch.matches(summary, folded: folded) { return }
            // Nothing loaded answers to it: the feed is looked through further.
            beginSeeking(.name(search.text, from: count))
            return
        case .cancel:
            state.search = nil
            state.selection = min(search.selectionBefore, max(0, count - 1))
            return
        case .close:
            state.search = nil
            return
        }
        search.matches = countMatches(search.text)
        if let index = match(from: search.selectionBefore, forward: true) {
            state.selection = index
        } else {
            state.selection = min(search.selectionBefore, max(0, count - 1))
        }
        state.search = search
    }

    /// Stories loaded that answer to the text (the field shows the count).
    func countMatches(_ text: String) -> Int {
        let folded = NameSearch.fold(text)
        guard !folded.isEmpty else { return 0 }
        return store.summaries.count { NameSearch.matches($0, folded: folded) }
    }

    mutating func log(_ decision: GestureDecision) {
        state.decisionCount += 1
        state.gestureLog.append(decision)
        if state.gestureLog.count > AppState.gestureLogLimit {
            state.gestureLog.removeFirst(state.gestureLog.count - AppState.gestureLogLimit)
        }
    }

    /// Asks for the hold check when the pointer was just pressed in the viewer, and calls
    /// it off when the press became something else.
    mutating func askForHoldCheck(before: Pointer) {
        let was = GestureRecognizer.holdCheckTime(before), now = GestureRecognizer.holdCheckTime(state.pointer)
        guard was != now else { return }
        if let now {
            effects.append(.wake(.hold, after: max(0, now - state.now.uptime)))
        } else {
            effects.append(.cancel(.wake(.hold)))
        }
    }

    /// Jumps a running animation to its end: the state it shows is already in place, so
    /// this only drops the drawing and lets the item's progress start now.
    mutating func completeTransition() {
        guard state.transition != nil else { return }
        state.transition = nil
        if var viewer = state.viewer, let since = viewer.playback.runningSince, since > state.now.uptime {
            viewer.playback.runningSince = state.now.uptime
            state.screen = .viewer(viewer)
        }
    }

    /// The end of a viewer drag: a swipe past its threshold turns the cube on from where the
    /// finger left it, a pull-down past its threshold shrinks the viewer on into its bubble;
    /// short of them the screen snaps back.
    mutating func endDrag(_ drag: Drag, commit: Bool) {
        guard let viewer = state.viewer else { return }
        let now = state.now.uptime
        switch drag {
        case .swipe(let offset):
            let forward = offset < 0
            let moved = min(1, abs(offset))
            if commit {
                apply(forward ? .nextStory : .previousStory)
                if state.viewer?.storyIndex != viewer.storyIndex { // moved on (or, past the end, dismissed)
                    // The turn goes on from where the drag left it.
                    if case .cube(let leaving, let arriving, let direction)? = state.transition?.kind {
                        state.transition = .cube(leaving: leaving, arriving: arriving, forward: direction, from: moved, at: now)
                        deferPlayback()
                    }
                    return
                }
                // Nowhere to go (before the first story): it snaps back like a short drag.
            }
            syncPlayback()
            guard !state.reduceMotion, moved > 0 else { return }
            let neighbour = ViewerState(storyIndex: viewer.storyIndex + (forward ? 1 : -1), itemIndex: 0, startedAt: now)
            state.transition = .cube(leaving: viewer, arriving: neighbour, forward: forward, from: moved, to: 0, at: now)
        case .dismiss(let offset):
            let scale = max(0, 1 - min(1, offset))
            if commit {
                dismiss()
                if state.transition != nil {
                    state.transition = .zoom(viewer, from: scale, to: 0, fullDuration: Transition.dismissDuration, at: now)
                }
            } else {
                syncPlayback()
                guard !state.reduceMotion, scale < 1 else { return }
                state.transition = .zoom(viewer, from: scale, to: 1, fullDuration: Transition.dismissDuration, at: now)
            }
        }
    }

    /// The item's progress starts when the running animation ends.
    mutating func deferPlayback() {
        guard let end = state.transition?.timeline.end, var viewer = state.viewer,
              let since = viewer.playback.runningSince, since < end else { return }
        viewer.playback.runningSince = end
        state.screen = .viewer(viewer)
    }

    mutating func apply(_ command: Command) {
        let count = store.count
        switch command {
        case .quit:
            effects.append(.quit)
        case .redraw:
            effects.append(.redrawScreen)
        case .openLink, .copyLink, .toggleLinkAddress:
            guard let viewer = state.viewer else { break }
            guard let link = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex]?.link else {
                state.notice = "This item has no link"
                break
            }
            let address = SafeText.line(link.url, maxColumns: 2048)
            switch command {
            case .openLink:
                state.notice = "↗ Opening \(address)…"
                effects.append(.openLink(link.url))
            case .copyLink:
                state.notice = "⧉ Copied \(address) (if this terminal lets programs use the clipboard)"
                effects.append(.copyToClipboard(link.url))
            default:
                state.showsLinkAddress.toggle()
            }
        case .toggleHelp:
            state.modal = state.modal == .help ? nil : .help
            state.modalScroll = 0
            syncPlayback()
        case .toggleProblems:
            state.modal = state.modal == .problems ? nil : .problems
            state.modalScroll = 0
            syncPlayback()
        case .closeHelp:
            state.modal = nil
            syncPlayback()
        case .pageNext, .pagePrevious:
            page(forward: command == .pageNext)
        case .nextUnseen:
            nextUnseen()
        case .search:
            guard state.viewer == nil else { break }
            // The field works on the ring row: a story still opening, or being looked for,
            // stops (as Esc would), and a screen of sections goes back to the home.
            stopOpening()
            state.seeking = nil
            backToTheRow()
            state.search = SearchField(selectionBefore: state.selection)
        case .toggleGestures:
            state.showsGestures.toggle()
            if state.showsGestures { state.showsMetrics = false } // one overlay at a time
        case .toggleMetrics:
            state.showsMetrics.toggle()
            if state.showsMetrics { state.showsGestures = false }
        case .selectNext, .selectPrevious, .selectFirst, .selectLast:
            if state.viewer == nil, let focused = state.homeLevel.focusedCell {
                let cells = state.homeLevel.sections[focused.section].cells.count
                let index: Int = switch command {
                case .selectNext: focused.cell + 1
                case .selectPrevious: focused.cell - 1
                case .selectFirst: 0
                default: cells - 1
                }
                state.homeLevel.selected[focused.section] = min(max(0, index), cells - 1)
                break
            }
            stopSeeking()
            switch command {
            case .selectNext: state.selection = min(state.selection + 1, max(0, count - 1))
            case .selectPrevious: state.selection = max(state.selection - 1, 0)
            case .selectFirst: state.selection = 0
            default:
                // The true last story: pages are asked for until the feed ends, the row
                // following along; Esc (or any other move) stops there.
                state.selection = max(0, count - 1)
                if store.hasMore { beginSeeking(.last) }
            }
        case .focusDown:
            guard state.viewer == nil else { break }
            let sections = state.homeLevel.sections.count
            guard sections > 0 else { break }
            state.homeLevel.focus = min((state.homeLevel.focus ?? -1) + 1, sections - 1)
        case .focusUp:
            guard state.viewer == nil, let focus = state.homeLevel.focus else { break }
            // Above the first section: the ring row on the home itself; nothing on a screen
            // of sections a cell opened (it has no ring row).
            state.homeLevel.focus = focus > 0 ? focus - 1 : (state.homeLevels.count == 1 ? nil : 0)
        case .open:
            if state.viewer == nil, let focused = state.homeLevel.focusedCell {
                if let cell = state.homeLevel.cell(section: focused.section, index: focused.cell) { run(cell) }
                break
            }
            openSelectedStory()
        case .nextItem:
            guard let viewer = state.viewer else { break }
            if !viewer.isWaiting, let story = store.story(at: viewer.storyIndex), viewer.itemIndex < story.items.count - 1 {
                show(story: viewer.storyIndex, item: viewer.itemIndex + 1)
            } else {
                toNextStory(from: viewer)
            }
        case .previousItem:
            guard let viewer = state.viewer else { break }
            if !viewer.isWaiting, viewer.itemIndex > 0 {
                show(story: viewer.storyIndex, item: viewer.itemIndex - 1)
            } else if viewer.storyIndex > 0 {
                show(story: viewer.storyIndex - 1, item: 0)
            } else {
                show(story: viewer.storyIndex, item: 0) // the very first item restarts
            }
        case .nextStory:
            guard let viewer = state.viewer else { break }
            toNextStory(from: viewer)
        case .previousStory:
            guard let viewer = state.viewer, viewer.storyIndex > 0 else { break }
            show(story: min(viewer.storyIndex, count) - 1, item: nil)
        case .dismiss:
            if state.viewer == nil {
                // Esc on the home: first it stops a story being opened, and its request; then
                // it closes a screen of sections a cell opened; then it gives the keyboard
                // back to the ring row.
                if state.opening != nil {
                    stopOpening()
                } else if state.seeking != nil {
                    state.seeking = nil // the page in flight still arrives and is kept
                } else if state.homeLevels.count > 1 {
                    state.homeLevels.removeLast()
                    state.homeGeneration += 1
                    homeChanged = true
                } else {
                    state.homeLevel.focus = nil
                }
            } else {
                dismiss()
            }
        case .toggleFit:
            state.photosFit.toggle()
        case .togglePause:
            guard var viewer = state.viewer else { break }
            viewer.isPaused.toggle()
            state.screen = .viewer(viewer)
            syncPlayback()
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
                // A story still opening gives way to this one, as Esc would stop it.
                stopOpening()
                beginSeeking(.story(id))
                return
            }
            state.seeking = nil
            state.selection = index
            openSelectedStory()
        case .openSections(let title, let sections)?:
            state.homeLevels.append(HomeLevel(title: title, sections: sections, focus: 0))
            state.homeGeneration += 1
            homeChanged = true
        case .openLink(let link)?:
            state.notice = "↗ Opening \(link.url)…"
            effects.append(.openLink(link.url))
        case nil:
            state.notice = "This cell does nothing when opened"
        }
    }

    /// Stops a story being opened, and its request.
    mutating func stopOpening() {
        guard let id = state.opening else { return }
        if store.cancelLoadingItems(of: id) { effects.append(.cancel(.story(id))) }
        state.opening = nil
    }

    /// Starts a search along the feed (`SeekTarget`), which looks first at what is loaded.
    mutating func beginSeeking(_ target: SeekTarget) {
        state.seeking = target
        state.seekPages = 0
        state.seekStartCount = store.count
        seek()
    }

    /// Stops a search along the feed that moving on the row replaces (a story a cell
    /// opened keeps being looked for: it is going to open).
    mutating func stopSeeking() {
        if let target = state.seeking, case .story = target { return }
        state.seeking = nil
    }

    /// Looking for something further along the feed: as each page arrives it looks again,
    /// and the next page is asked for as soon as the last one is in, until it is found, the
    /// feed ends, or the search's limit is reached — each said in a line.
    mutating func seek() {
        guard let target = state.seeking else { return }
        // Another story opened meanwhile (from its bubble, say): that one wins.
        if state.viewer != nil {
            state.seeking = nil
            return
        }
        if case .story(let id) = target, state.opening != nil, state.opening != id {
            state.seeking = nil
            return
        }
        if found(target) {
            state.seeking = nil
            return
        }
        let limits = target.limits
        let lookedThrough = store.count - state.seekStartCount
        switch store.paging {
        case .ready(let next) where lookedThrough < limits.stories && state.seekPages < limits.pages:
            state.seekPages += 1
            store.paging = .loading(cursor: next, attempt: 1)
            effects.append(.loadPage(next))
        case .ready:
            state.seeking = nil
            state.notice = switch target {
            case .story(let id): "⚠ The story '\(id)' is not among the \(store.count) stories looked through"
            case .last: "Stopped at story \(store.count) (End again to go on)"
            case .unseen: "⚠ No unseen story among the \(store.count) looked through (n again to go on)"
            case .name(let text, _): "⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' among the \(store.count) stories looked through"
            }
        case .stalled:
            // Pages stopped adding stories (said on the problems line): as far as the feed goes for now.
            state.seeking = nil
            switch target {
            case .story(let id): state.notice = "⚠ The story '\(id)' is not among the \(store.count) stories so far (the feed's pages stopped adding stories)"
            case .last: break
            case .unseen(let after): wrapToUnseen(before: after)
            case .name(let text, _): state.notice = "⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' among the \(store.count) stories so far (the feed's pages stopped adding stories)"
            }
        case .complete:
            state.seeking = nil
            switch target {
            case .story(let id): state.notice = "⚠ The story '\(id)' is not in this feed (all \(store.count) stories looked through)"
            case .last: break
            case .unseen(let after): wrapToUnseen(before: after)
            case .name(let text, _): state.notice = "⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' in this feed (all \(store.count) stories looked through)"
            }
        case .failed(_, let attempt, let reason, _) where attempt >= AppState.seekAttempts:
            state.seeking = nil
            state.notice = "⚠ Could not look further along the feed: \(reason)"
        case .notStarted, .loading, .failed:
            break // a page is on its way, or will be retried
        }
    }

    /// Whether what a search looks for is among the stories loaded; it acts on it if so.
    mutating func found(_ target: SeekTarget) -> Bool {
        switch target {
        case .story(let id):
            guard let index = store.positions[id] else { return false }
            state.selection = index
            openSelectedStory()
            return true
        case .last:
            state.selection = max(0, store.count - 1) // the row follows the pages in
            return !store.hasMore
        case .unseen(let after):
            guard let index = firstUnseen(in: (after + 1)..<max(after + 1, store.count)) else { return false }
            state.selection = index
            return true
        case .name(let text, let from):
            guard let index = firstMatch(NameSearch.fold(text), in: from..<max(from, store.count)) else { return false }
            state.selection = index
            return true
        }
    }

    func firstUnseen(in range: Range<Int>) -> Int? {
        range.first { index in
            store.summaries[safe: index].map { state.seen.unseenCount(story: $0.id, items: $0.itemIDs) > 0 } ?? false
        }
    }

    func firstMatch(_ folded: String, in range: Range<Int>) -> Int? {
        range.first { store.summaries[safe: $0].map { NameSearch.matches($0, folded: folded) } ?? false }
    }

    /// `n`: the next story after the selection (or the one shown) with an item not seen
    /// yet, paging on when none is loaded; at the end of the feed it starts again from the
    /// first story, and says so.
    mutating func nextUnseen() {
        if let viewer = state.viewer {
            let from = min(viewer.storyIndex, store.count - 1)
            if let index = firstUnseen(in: (from + 1)..<max(from + 1, store.count)) {
                show(story: index, item: nil)
            } else if store.hasMore {
                show(story: store.count, item: nil) // waits for the next page, which is new
            } else if let index = firstUnseen(in: 0..<max(0, from)) {
                show(story: index, item: nil)
            } else {
                dismiss()
                state.notice = "✓ All caught up: every story in this feed is seen"
            }
            return
        }
        backToTheRow() // `n` moves on the ring row
        let from = state.selection
        beginSeeking(.unseen(after: from))
    }

    /// The ring row takes the keyboard: a screen of sections a cell opened closes (it has no
    /// ring row), the home's sections let go.
    mutating func backToTheRow() {
        if state.homeLevels.count > 1 {
            state.homeLevels.removeLast(state.homeLevels.count - 1)
            state.homeGeneration += 1
            homeChanged = true
        }
        state.homeLevel.focus = nil
    }

    /// The end of the feed came with nothing unseen after `after`: the first unseen story
    /// from the start, or a line saying everything is seen.
    mutating func wrapToUnseen(before after: Int) {
        if let index = firstUnseen(in: 0..<min(store.count, after + 1)) {
            state.selection = index
            state.notice = index == after ? "No other story has unseen items" : "↺ Back to the first unseen story (the feed ended)"
        } else {
            state.notice = "✓ All caught up: every story in this feed is seen"
        }
    }

    /// PgDn, PgUp: a screenful on the ring row or in the focused section; a page of the
    /// help or the problems list.
    mutating func page(forward: Bool) {
        let sign = forward ? 1 : -1
        if let content = ModalLayout.content(state) {
            state.modalScroll = max(0, min(content.maxScroll, state.modalScroll + sign * max(1, content.visibleLines)))
            return
        }
        guard state.viewer == nil else { return }
        if let focused = state.homeLevel.focusedCell {
            let section = state.homeLevel.sections[focused.section]
            let inView = HomeGeometry.cellBoxes(section, selected: focused.cell, y: 0, screenWidth: state.screenWidth).count
            state.homeLevel.selected[focused.section] = max(0, min(section.cells.count - 1, focused.cell + sign * max(1, inView)))
            return
        }
        stopSeeking()
        let step = RingLayout.visibleBubbles(width: state.screenWidth)
        state.selection = max(0, min(store.count - 1, state.selection + sign * step))
    }

    /// Opens the ring row's selected story: at once when its items and pages are here,
    /// else the loading ring turns round its bubble until they are.
    mutating func openSelectedStory() {
        guard state.viewer == nil, store.summaries.indices.contains(state.selection) else { return }
        if let story = store.story(at: state.selection), state.pages[story.id] != nil {
            state.opening = nil
            show(story: state.selection, item: nil)
        } else {
            let id = store.summaries[state.selection].id
            if state.opening != id { state.openingSince = state.now.uptime }
            state.opening = id
            if case .failed? = store.items[id] { loadItems(id) } // Enter on a failed story retries
        }
    }

    /// After the last item of a story: the next story; past the last story the viewer waits
    /// for the next page when there is one, and dismisses when there is none.
    mutating func toNextStory(from viewer: ViewerState) {
        if viewer.storyIndex + 1 < store.count || (viewer.storyIndex < store.count && store.hasMore) {
            show(story: viewer.storyIndex + 1, item: nil)
        } else {
            dismiss()
        }
    }

    /// Shows an item (nil: the story's first unseen item), marks it seen, restarts progress
    /// and moves the ring-row selection to the story, so a dismiss lands on it. A story
    /// whose items are not here yet (or one past the end, while a page loads) is shown
    /// waiting; it plays once they arrive.
    mutating func show(story storyIndex: Int, item: Int?) {
        let before = state.viewer
        defer { animate(from: before) }
        state.opening = nil
        state.search = nil // the field belongs to the row
        state.selection = max(0, min(storyIndex, store.count - 1))
        guard let story = store.story(at: storyIndex), state.pages[story.id] != nil else {
            var viewer = ViewerState(storyIndex: storyIndex, itemIndex: 0, startedAt: state.now.uptime)
            viewer.isWaiting = true
            viewer.wantedItem = item
            viewer.playback.stop(at: state.now.uptime)
            state.screen = .viewer(viewer)
            if let id = store.summaries[safe: storyIndex]?.id, case .failed? = store.items[id] {
                loadItems(id) // going to a failed story tries it again
            }
            return
        }
        let itemIndex = item.map { min($0, story.items.count - 1) } ?? state.seen.firstUnseenIndex(in: story)
        // A navigation always plays: pausing holds the item on screen, it is not a mode.
        state.screen = .viewer(ViewerState(storyIndex: storyIndex, itemIndex: itemIndex, startedAt: state.now.uptime))
        syncPlayback() // marked seen in `settle`, once its photo or video is on screen
    }

    mutating func dismiss() {
        guard let viewer = state.viewer else { return }
        state.selection = max(0, min(viewer.storyIndex, store.count - 1))
        state.screen = .home
        state.pointer = .idle
        if !state.reduceMotion {
            state.transition = .zoom(viewer, from: 1, to: 0, fullDuration: Transition.dismissDuration, at: state.now.uptime)
        }
    }

    /// The movement from the viewer as it was (nil: the row) to the one now shown: present
    /// out of the bubble, a cube between stories, nothing within a story.
    mutating func animate(from before: ViewerState?) {
        guard !state.reduceMotion, let viewer = state.viewer else { return }
        let now = state.now.uptime
        if let before {
            guard before.storyIndex != viewer.storyIndex else { return }
            state.transition = .cube(leaving: before, arriving: viewer, forward: viewer.storyIndex > before.storyIndex, at: now)
        } else {
            state.transition = .zoom(viewer, from: 0, to: 1, fullDuration: Transition.presentDuration, at: now)
        }
        deferPlayback()
    }

    /// Progress runs only while the viewer shows an item whose media is there, not paused,
    /// held or dragged, not under the help, on a screen big enough to see it.
    mutating func syncPlayback() {
        guard var viewer = state.viewer else { return }
        if viewer.isPaused || state.isHeld || state.awaitsMedia || state.drag != nil || state.modal != nil || viewer.isWaiting
            || !state.isUsable {
            if viewer.playback.isRunning { viewer.playback.stop(at: state.now.uptime) }
        } else {
            // During an animation the item's clock starts when it ends.
            viewer.playback.run(at: max(state.now.uptime, state.transition?.timeline.end ?? state.now.uptime))
        }
        state.screen = .viewer(viewer)
    }

    mutating func advanceIfItemEnded() {
        guard let viewer = state.viewer, viewer.playback.isRunning, !viewer.isWaiting,
              let story = store.story(at: viewer.storyIndex) else { return }
        if viewer.playback.elapsed(at: state.now.uptime) >= state.duration(of: story.items[viewer.itemIndex]) {
            apply(.nextItem)
        }
    }

    mutating func loadItems(_ id: StoryID) {
        if store.beginLoadingItems(of: id) { effects.append(.loadStory(id)) }
    }

    /// Puts built view models in place through the relation map: a known key is updated
    /// where it is, a new one goes where its story is in the store.
    mutating func install(_ update: ViewModelUpdate) {
        for model in update.ring {
            guard let position = store.positions[model.key] else { continue }
            if !state.ring.update(model) {
                state.ring.insert(model, at: insertionIndex(forStoreIndex: position))
            }
        }
        // Pages built for a width that is no longer current are dropped: newer ones follow.
        // (A story whose build was dropped and that is wanted is asked for again in `settle`.)
        for id in update.pages.keys { state.pagesBuilding.remove(id) }
        if update.width == state.screenWidth {
            for (id, pages) in update.pages { state.pages[id] = pages }
            forgetFarPages()
        }
        // Sections built for another screen of sections are dropped the same way; those for
        // an old width still draw until the new ones come (their texts are cut shorter).
        if let home = update.home, home.generation == state.homeGeneration { state.homeModels = home }
    }

    /// Keeps at most `AppState.pagesKept` stories' pages: those farthest (in feed order) from
    /// the story shown, or the selection, go first; the stories the planner wants now stay.
    mutating func forgetFarPages() {
        guard state.pages.count > AppState.pagesKept else { return }
        let near = state.viewer?.storyIndex ?? state.selection
        let wanted = Set(PreloadPlanner.storiesToLoad(state))
        let far = state.pages.keys.filter { !wanted.contains($0) }
            .map { (id: $0, distance: abs((store.positions[$0] ?? Int.max / 2) - near)) }
            .sorted { ($0.distance, $0.id) > ($1.distance, $1.id) }
        for entry in far.prefix(state.pages.count - AppState.pagesKept) { state.pages[entry.id] = nil }
    }

    /// Where a bubble for the story at `position` in the store goes in the ring list, which
    /// is in store order: the first bubble whose story comes later.
    func insertionIndex(forStoreIndex position: Int) -> Int {
        var low = 0, high = state.ring.count
        while low < high {
            let middle = (low + high) / 2
            if (store.positions[state.ring[middle].key] ?? Int.max) < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The feed's first page over a row shown from the cache. While nothing on screen hangs
    /// on a story's place (no viewer, no opening, no animation, no press), the row becomes
    /// the page, the selection staying on its story; otherwise nothing shown moves
    /// (`StoryStore.confirm`).
    mutating func confirmCachedRow(with page: FeedPage) {
        let rearrange = state.viewer == nil && state.transition == nil && state.opening == nil && state.pointer == .idle
        let selected = store.summaries[safe: state.selection]?.id
        let loading = Set(store.items.compactMap { $0.value == .loading ? $0.key : nil })
        let stalledBefore = store.pagesWithoutProgress
        let (changed, removed) = store.confirm(page, rearrange: rearrange, at: state.now.uptime)
        noteStalledPaging(before: stalledBefore)
        for id in removed {
            state.pages[id] = nil
            if loading.contains(id) { effects.append(.cancel(.story(id))) } // nobody will want them
        }
        if rearrange {
            // The bubbles follow the store's new order; the changed ones are built again.
            let kept = state.ring.models.filter { store.positions[$0.key] != nil }
            state.ring = ViewModelList(kept.sorted { (store.positions[$0.key] ?? 0) < (store.positions[$1.key] ?? 0) })
        }
        ringChanged += changed
        if !changed.isEmpty || !removed.isEmpty, levelOpensStories { homeChanged = true }
        state.selection = selected.flatMap { store.positions[$0] } ?? min(state.selection, max(0, store.count - 1))
    }

    /// Pages that add no story are said once on the problems line when paging first stalls,
    /// and once more when it ends for good.
    mutating func noteStalledPaging(before: Int) {
        let now = store.pagesWithoutProgress
        guard now > before else { return }
        if store.endedWithoutProgress {
            state.warnings.append(FeedWarning("the feed's last \(StoryStore.maxPagesWithoutProgress) pages in a row added no new story although each named a next page; no more pages are asked for"))
        } else if now == 1 {
            let which = store.count == 0 ? "the feed's first page has no stories" : "the feed's page after its first \(store.count) stories added no new one"
            state.warnings.append(FeedWarning("\(which) but named a next page; paging stops for now and is tried again later, when you come near the end"))
        }
    }

    /// What every action ends with: the viewer past the end, gestures and playback,
    /// paging, item loading, the preload set.
    mutating func settle(after action: AppAction, viewerBefore: ViewerPlace?) {
        // A story is shown once its items are loaded (t2) and its viewer pages are built
        // (t1, "prepare the screen"): the first frame of the viewer is complete.
        func isReady(_ index: Int) -> Bool {
            guard let story = store.story(at: index) else { return false }
            return state.pages[story.id] != nil
        }
        // The person's own navigations teach the preload window their pace.
        if case .input = action, let before = viewerBefore, let after = state.viewer {
            let time = state.now.uptime
            if after.storyIndex != before.story {
                state.pace.record(after.storyIndex > before.story ? .story : .back, at: time)
            } else if after.itemIndex != before.item {
                state.pace.record(after.itemIndex > before.item ? .item : .back, at: time)
            }
        }
        if let viewer = state.viewer {
            if viewer.storyIndex >= store.count, !store.hasMore {
                dismiss() // waited past the end, and the end has come
            } else if viewer.isWaiting, isReady(viewer.storyIndex) {
                show(story: viewer.storyIndex, item: viewer.wantedItem)
            }
        } else if let opening = state.opening, let index = store.positions[opening], isReady(index) {
            show(story: index, item: nil)
        }

        let near = state.viewer?.storyIndex ?? state.selection
        if let cursor = store.nextPageDue(near: near, at: state.now.uptime) {
            store.paging = .loading(cursor: cursor, attempt: 1)
            effects.append(.loadPage(cursor))
        }
        seek()

        // Items: the shown and opening stories, and (preloading) the adjacent and feed layers.
        for id in PreloadPlanner.storiesToLoad(state) {
            if store.items[id] == nil {
                loadItems(id)
            } else if state.pages[id] == nil, !state.pagesBuilding.contains(id), store.positions[id].flatMap({ store.story(at: $0) }) != nil {
                pagesChanged.append(id) // its pages were let go far back (forgetFarPages): built again
            }
        }

        endStaleGesture(after: action, viewerBefore: viewerBefore)
        updateTooltip()
        syncPlayback()
        markShownSeen()
        updatePreload()
    }

    /// The item on screen counts as seen once it is there to see: a text card at once, a
    /// photo or video once its picture is (never one that failed, or is still coming).
    mutating func markShownSeen() {
        guard let viewer = state.viewer, !viewer.isWaiting, state.isUsable,
              let story = store.story(at: viewer.storyIndex), let item = story.items[safe: viewer.itemIndex] else { return }
        if let media = item.content.media {
            guard state.media[media.location] == .ready else { return }
            state.shownMedia.insert(media.location)
        }
        state.seen.markSeen(story: story.id, item: item.id)
    }

    /// A tooltip shows the first time its cell has the keyboard on the home screen, and is
    /// remembered as shown at that moment; it goes when the keyboard moves on, the viewer
    /// opens or the help covers it, and never comes back.
    mutating func updateTooltip() {
        var wanted: Tooltip?
        if state.viewer == nil, state.transition == nil, state.modal == nil, !state.showsGestures, !state.showsMetrics,
           state.isUsable, let focused = state.homeLevel.focusedCell,
           HomeGeometry.visibleSections(state).contains(where: { $0.index == focused.section }) {
            wanted = state.homeLevel.cell(section: focused.section, index: focused.cell)?.tooltip
        }
        guard let tip = wanted else {
            state.tooltip = nil
            return
        }
        if state.tooltip == tip.id { return }
        if state.seen.hasShownTooltip(tip.id) {
            state.tooltip = nil
        } else {
            state.seen.markTooltipShown(tip.id)
            state.tooltip = tip.id
        }
    }

    /// The screen of sections shown has a cell that opens a story (its seen colour and its
    /// author's name come from the feed).
    var levelOpensStories: Bool {
        state.homeLevel.sections.contains { section in
            section.cells.contains { if case .openStory? = $0.action { true } else { false } }
        }
    }

    /// A player's news: the facts the reducer paces a video item by.
    mutating func video(_ event: VideoEvent, at location: String) {
        var status = state.videos[location] ?? VideoStatus()
        switch event {
        case .opened(let duration, let interval, let hasAudio):
            status.duration = duration
            status.frameInterval = interval
            status.hasAudio = hasAudio
            status.failure = nil
            status.isStalled = false
        case .stalled: status.isStalled = true
        case .resumed: status.isStalled = false
        case .ended(let time):
            status.endedAt = time
            status.isStalled = false
        case .failed(let reason):
            status.failure = reason
            status.isStalled = false
        case .redrawn(let width, let height):
            status.redrawnAt = [width, height]
        }
        state.videos[location] = status
    }

    /// No gesture outlives what it was on: a press, hold or drag in the viewer ends when the
    /// viewer closes, moves to another item by anything but the gesture itself (an item
    /// ending, a page arriving), or goes under the help or a screen too small; a press on a
    /// bubble ends when the row is left, one on a section's cell also when the sections
    /// change under it.
    mutating func endStaleGesture(after action: AppAction, viewerBefore: ViewerPlace?) {
        guard !state.pointer.isIdle else { return }
        let stale: Bool
        switch state.pointer {
        case .pressedBubble:
            stale = state.viewer != nil || state.modal != nil || !state.isUsable
        case .pressedCell:
            // New sections may put another cell where the press was.
            stale = state.viewer != nil || state.modal != nil || !state.isUsable || state.homeGeneration != generationBefore
        case .pressedButton:
            // The hint line and the arrows change with the screen: a press on one ends when
            // the viewer opens or closes under it.
            stale = state.modal != nil || !state.isUsable || (state.viewer == nil) != (viewerBefore == nil)
        default:
            let byGesture: Bool
            switch action {
            case .input, .wake(.hold): byGesture = true
            default: byGesture = false
            }
            stale = state.viewer == nil || state.modal != nil || !state.isUsable
                || (!byGesture && state.viewer.map(ViewerPlace.init) != viewerBefore)
        }
        if stale { state.pointer = .idle }
    }

    /// Hands the planner's targets to the runtime when they, or the screen they are
    /// rendered for, change. A new size or fit makes every rendition made so far stale: the
    /// pipeline reports each target's stage afresh.
    mutating func updatePreload() {
        var request = PreloadRequest(targets: PreloadPlanner.targets(state), width: state.screenWidth,
                                     height: state.screenHeight, fit: state.photosFit, display: state.display)
        request.banners = bannerPictures()
        guard request != state.preloading else { return }
        if !request.hasSameRenditions(as: state.preloading) {
            state.media = state.media.filter { $0.value.failure != nil }
        }
        state.preloading = request
        effects.append(.preload(request))
    }

    /// The pictures of the banners in view on the home screen, and of the banner cells on
    /// either side of each (so paging through a banner finds the next one ready).
    func bannerPictures() -> [Media] {
        guard state.viewer == nil, state.isUsable else { return [] }
        var pictures: [Media] = []
        let level = state.homeLevel
        for (index, _) in HomeGeometry.visibleSections(state) where level.sections[index].style == .banner {
            let cells = level.sections[index].cells
            let selected = level.selected[safe: index] ?? 0
            for offset in [0, 1, -1] {
                if let picture = cells[safe: selected + offset]?.picture, !pictures.contains(picture) { pictures.append(picture) }
            }
        }
        return pictures
    }

    /// One job for every view model this action made stale.
    mutating func requestViewModels() {
        if !ringChanged.isEmpty || !pagesChanged.isEmpty || homeChanged {
            var seenIDs = Set<StoryID>()
            let ring = ringChanged.filter { seenIDs.insert($0).inserted }.compactMap { id -> ViewModelJob.RingInput? in
                guard let position = store.positions[id] else { return nil }
                return ViewModelJob.RingInput(summary: store.summaries[position], story: store.story(at: position))
            }
            var pageIDs = Set<StoryID>()
            let pages = pagesChanged.filter { pageIDs.insert($0).inserted }.compactMap { id -> Story? in
                store.positions[id].flatMap { store.story(at: $0) }
            }
            state.pagesBuilding.formUnion(pages.map(\.id))
            var home: ViewModelJob.HomeInput?
            if homeChanged {
                var items: [StoryID: [ItemID]] = [:]
                var authors: [StoryID: String] = [:]
                for section in state.homeLevel.sections {
                    for cell in section.cells {
                        guard case .openStory(let id)? = cell.action, let position = store.positions[id] else { continue }
                        items[id] = store.summaries[position].itemIDs
                        authors[id] = store.summaries[position].author.name
                    }
                }
                home = .init(generation: state.homeGeneration, sections: state.homeLevel.sections, storyItems: items,
                             storyAuthors: authors)
            }
            let job = ViewModelJob(ring: ring, pages: pages, home: home, seen: state.seen, now: state.now.date,
                                   width: state.screenWidth)
            if !job.isEmpty { effects.append(.buildViewModels(job)) }
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
