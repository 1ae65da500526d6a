extension Reduction {
    /// The Feed feature: pages and stories' items, and their retries.
    mutating func reduce(_ action: FeedAction) {
        switch action {
        case .pageLoaded(let page):
            delegate(.sourceAnswered)
            if let title = page.title, !title.isEmpty { delegate(.title(title)) }
            if let direction = page.direction { delegate(.direction(direction)) }
            state.feed.warnings += page.warnings
            if store.isProvisional {
                confirmCachedRow(with: page)
                return
            }
            let stalledBefore = store.pagesWithoutProgress
            let added = store.append(page, at: state.now.uptime)
            if !added.isEmpty { state.feed.warnings.removeAll { $0.topic == "paging" } } // paging goes on
            ringChanged += added
            noteStalledPaging(before: stalledBefore)
            if !added.isEmpty, levelOpensStories { homeChanged = true }
            delegate(.storiesChanged(keeping: nil))
        case .cachedPageLoaded(let page):
            guard store.showCached(page) else { break }
            if let title = page.title, !title.isEmpty { delegate(.title(title)) }
            if let direction = page.direction { delegate(.direction(direction)) }
            ringChanged += store.summaries.map(\.id)
            if levelOpensStories { homeChanged = true }
        case .pageFailed(let reason, retry: false):
            // An answer that will not change (a 404, a document that is not a feed): said
            // once, with its address, and not asked again.
            delegate(.sourceAnswered)
            store.pageBroken(reason)
        case .pageFailed(let reason, retry: true):
            delegate(.sourceFailed(reason))
            store.pageFailed(reason, at: state.now.uptime)
            if case .failed(_, _, _, let retryAt) = store.paging {
                effects.append(.wake(.retryPage, after: retryAt - state.now.uptime))
            }
        case .storyLoaded(let load):
            let story = load.story
            state.feed.storyRetries.remove(story.id)
            delegate(.sourceAnswered)
            guard store.positions[story.id] != nil else { return }
            guard !story.items.isEmpty else {
                reduce(.storyFailed(story.id, "the story has no items to show", retry: false))
                return
            }
            // The viewer opens on it once its item models are built too (see `settle`).
            store.itemsLoaded(story)
            state.feed.warnings += load.warnings
            ringChanged.append(story.id)
            itemModelsChanged.append(story.id)
        case .storyFailed(let id, let reason, let retry):
            store.itemsFailed(id, reason: reason)
            if retry, store.positions[id] != nil {
                delegate(.sourceFailed(reason))
                state.feed.storyRetries.failed(id, reason: reason, at: state.now.uptime)
                scheduleRetry(.retryStories, state.feed.storyRetries.nextDue)
            } else {
                state.feed.storyRetries.remove(id)
            }
            delegate(.storyFailed(id, reason: reason))
        case .seenElsewhere(let other):
            let before = state.seen
            delegate(.mergeSeen(other))
            // The home's cells follow too (their counts of new items and progress).
            if state.seen != before, levelOpensStories || !state.home.level.sections.isEmpty { homeChanged = true }
        }
    }

    /// The Feed feature's wake-ups: the first page is late, a page's or stories' backoff is over.
    mutating func feedWake(_ id: WakeID) {
        switch id {
        case .firstPageOverdue:
            state.feed.firstPageOverdue = store.isLoadingFirstPage
        case .retryPage:
            if case .failed(let cursor, let attempt, _, _) = store.paging {
                store.paging = .loading(cursor: cursor, attempt: attempt + 1)
                effects.append(.loadPage(cursor))
                if store.isLoadingFirstPage {
                    // Each try of the first page gets its own patience before it is called late.
                    state.feed.firstPageOverdue = false
                    effects.append(.wake(.firstPageOverdue, after: FeedState.firstPagePatience))
                }
            }
        case .retryStories:
            retryStories(state.feed.storyRetries.due(at: state.now.uptime), recovered: false)
        default:
            break
        }
    }

    /// Stories whose items failed for a reason that may pass: asked for again while they are
    /// wanted (shown, opening, or preloaded); the others wait for the source to answer
    /// (`recovered`), when their ⚠ goes.
    mutating func retryStories(_ ids: [StoryID], recovered: Bool) {
        guard !ids.isEmpty else { return }
        let wanted = PreloadPlanner.storiesOnThePerson(state)
        // Those nobody wants wait for the source to answer something (`probeSource` asks when
        // nothing else will).
        for id in ids {
            if wanted.contains(id) {
                state.feed.storyRetries.asked(id)
                loadItems(id)
                ringChanged.append(id)
            } else if recovered {
                state.feed.storyRetries.remove(id)
                store.forgetFailure(of: id)
                ringChanged.append(id)
            } else {
                state.feed.storyRetries.asked(id) // until the source answers again
            }
        }
        scheduleRetry(.retryStories, state.feed.storyRetries.nextDue)
    }

    mutating func loadItems(_ id: StoryID) {
        if store.beginLoadingItems(of: id) { effects.append(.loadStory(id)) }
    }

    /// The feed's first page over a row shown from the cache. While nothing on screen hangs
    /// on a story's place (no viewer, no opening, no animation, no press), the row becomes
    /// the page, the selection staying on its story; otherwise nothing shown moves
    /// (`StoryStore.confirm`).
    mutating func confirmCachedRow(with page: FeedPage) {
        let rearrange = state.viewer == nil && state.viewing.transition == nil && state.row.opening == nil && state.gesture.pointer == .idle
        let selected = store.summaries[safe: state.row.selection]?.id
        let loading = Set(store.items.compactMap { $0.value == .loading ? $0.key : nil })
        let stalledBefore = store.pagesWithoutProgress
        let (changed, removed) = store.confirm(page, rearrange: rearrange, at: state.now.uptime)
        noteStalledPaging(before: stalledBefore)
        for id in removed where loading.contains(id) { effects.append(.cancel(.story(id))) } // nobody will want them
        delegate(.storiesLeft(removed, reorder: rearrange))
        ringChanged += changed
        if !changed.isEmpty || !removed.isEmpty, levelOpensStories { homeChanged = true }
        delegate(.storiesChanged(keeping: selected))
    }

    /// Pages that add no story are said once on the problems line when paging first stalls,
    /// and once more when it ends for good.
    mutating func noteStalledPaging(before: Int) {
        let now = store.pagesWithoutProgress
        if store.brokenPagesInARow >= StoryStore.maxBrokenPagesInARow, store.endedWithoutProgress, now == before {
            state.feed.warnings.append(FeedWarning("the feed's last \(StoryStore.maxBrokenPagesInARow) pages in a row held only stories that could not be shown; no more pages are asked for"))
            return
        }
        guard now > before else { return }
        if store.endedWithoutProgress {
            state.feed.warnings.append(FeedWarning("the feed's last \(StoryStore.maxPagesWithoutProgress) pages in a row added no new story although each named a next page; no more pages are asked for"))
        } else if now == 1 {
            let which = store.count == 0 ? "the feed's first page has no stories" : "the feed's page after its first \(store.count) stories added no new one"
            state.feed.warnings.append(FeedWarning("\(which) but named a next page; paging stops for now and is tried again later, when you come near the end", topic: "paging"))
        }
    }
}
