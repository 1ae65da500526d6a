/// The Feed feature: pages and stories' items, and their retries. A scoped reducer
/// (`FeatureReducer`): it sees only `FeedState`; the view models to build again, the
/// title, the direction and the row's selection go out as delegates.
enum FeedFeature: FeatureReducer {
    enum Action {
        /// The source's news (a page, a story's items, their failures).
        case news(FeedAction)
        /// The first page has taken longer than `FeedState.firstPagePatience`.
        case firstPageOverdue
        /// The page's backoff is over: ask again.
        case retryPage
        /// Stories whose items failed for a reason that may pass, due now: those `wanted` are
        /// asked again; the others wait for the source to answer — and when it has
        /// (`recovered`), they lose their ⚠.
        case retryStories([StoryID], wanted: Set<StoryID>, recovered: Bool)
        /// A story's items are wanted.
        case loadItems(StoryID)
    }

    struct Context {
        /// Uptime now.
        var now: Double
        /// Nothing on screen hangs on a story's place (no viewer, no opening, no animation,
        /// no press): a page over a row shown from the cache may rearrange it.
        var rowIsStill: Bool
        /// The story selected on the row.
        var selected: StoryID?
    }

    static func reduce(_ feed: inout FeedState, _ action: Action, context: Context, into out: inout FeatureOutput) {
        switch action {
        case .news(let news): take(news, &feed, context, &out)
        case .firstPageOverdue:
            feed.firstPageOverdue = feed.store.isLoadingFirstPage
        case .retryPage:
            if case .failed(let cursor, let attempt, _, _) = feed.store.paging {
                feed.store.paging = .loading(cursor: cursor, attempt: attempt + 1)
                out.effect(.loadPage(cursor))
                if feed.store.isLoadingFirstPage {
                    // Each try of the first page gets its own patience before it is called late.
                    feed.firstPageOverdue = false
                    out.effect(.wake(.firstPageOverdue, after: FeedState.firstPagePatience))
                }
            }
        case .retryStories(let ids, let wanted, let recovered):
            guard !ids.isEmpty else { return }
            for id in ids {
                if wanted.contains(id) {
                    feed.storyRetries.asked(id)
                    loadItems(id, &feed, &out)
                    out.delegate(.ringChanged([id]))
                } else if recovered {
                    feed.storyRetries.remove(id)
                    feed.store.forgetFailure(of: id)
                    out.delegate(.ringChanged([id]))
                } else {
                    feed.storyRetries.asked(id) // until the source answers again
                }
            }
            out.wake(.retryStories, due: feed.storyRetries.nextDue, now: context.now)
        case .loadItems(let id):
            loadItems(id, &feed, &out)
        }
    }

    private static func loadItems(_ id: StoryID, _ feed: inout FeedState, _ out: inout FeatureOutput) {
        if feed.store.beginLoadingItems(of: id) { out.effect(.loadStory(id)) }
    }

    private static func take(_ news: FeedAction, _ feed: inout FeedState, _ context: Context, _ out: inout FeatureOutput) {
        switch news {
        case .pageLoaded(let page):
            // (The parent has told the rest that the source answered, before this.)
            if let title = page.title, !title.isEmpty { out.delegate(.title(title)) }
            if let direction = page.direction { out.delegate(.direction(direction)) }
            feed.warnings += page.warnings
            if feed.store.isProvisional {
                confirmCachedRow(with: page, &feed, context, &out)
                return
            }
            let stalledBefore = feed.store.pagesWithoutProgress
            let added = feed.store.append(page, at: context.now)
            if !added.isEmpty { feed.warnings.removeAll { $0.topic == "paging" } } // paging goes on
            out.delegate(.ringChanged(added))
            noteStalledPaging(before: stalledBefore, &feed)
            if !added.isEmpty { out.delegate(.homeStoriesChanged) }
            out.delegate(.storiesChanged(keeping: nil))
        case .cachedPageLoaded(let page):
            guard feed.store.showCached(page) else { break }
            if let title = page.title, !title.isEmpty { out.delegate(.title(title)) }
            if let direction = page.direction { out.delegate(.direction(direction)) }
            out.delegate(.ringChanged(feed.store.summaries.map(\.id)))
            out.delegate(.homeStoriesChanged)
        case .pageFailed(let reason, retry: false):
            // An answer that will not change (a 404, a document that is not a feed): said
            // once, with its address, and not asked again. (The source answered: the parent said so.)
            feed.store.pageBroken(reason)
        case .pageFailed(let reason, retry: true):
            out.delegate(.sourceFailed(reason))
            feed.store.pageFailed(reason, at: context.now)
            if case .failed(_, _, _, let retryAt) = feed.store.paging {
                out.effect(.wake(.retryPage, after: retryAt - context.now))
            }
        case .storyLoaded(let load):
            let story = load.story
            feed.storyRetries.remove(story.id) // (the parent said the source answered)
            guard feed.store.positions[story.id] != nil else { return }
            guard !story.items.isEmpty else {
                take(.storyFailed(story.id, "the story has no items to show", retry: false), &feed, context, &out)
                return
            }
            // The viewer opens on it once its item models are built too (see `settle`).
            feed.store.itemsLoaded(story)
            feed.warnings += load.warnings
            out.delegate(.ringChanged([story.id]))
            out.delegate(.itemModelsChanged(story.id))
        case .storyFailed(let id, let reason, let retry):
            feed.store.itemsFailed(id, reason: reason)
            if retry, feed.store.positions[id] != nil {
                out.delegate(.sourceFailed(reason))
                feed.storyRetries.failed(id, reason: reason, at: context.now)
                out.wake(.retryStories, due: feed.storyRetries.nextDue, now: context.now)
            } else {
                feed.storyRetries.remove(id)
            }
            out.delegate(.storyFailed(id, reason: reason))
        }
    }

    /// The feed's first page over a row shown from the cache. While nothing on screen hangs
    /// on a story's place, the row becomes the page, the selection staying on its story;
    /// otherwise nothing shown moves (`StoryStore.confirm`).
    private static func confirmCachedRow(with page: FeedPage, _ feed: inout FeedState, _ context: Context, _ out: inout FeatureOutput) {
        let rearrange = context.rowIsStill
        let loading = Set(feed.store.items.compactMap { $0.value == .loading ? $0.key : nil })
        let stalledBefore = feed.store.pagesWithoutProgress
        let (changed, removed) = feed.store.confirm(page, rearrange: rearrange, at: context.now)
        noteStalledPaging(before: stalledBefore, &feed)
        for id in removed where loading.contains(id) { out.effect(.cancel(.story(id))) } // nobody will want them
        out.delegate(.storiesLeft(removed, reorder: rearrange))
        out.delegate(.ringChanged(changed))
        if !changed.isEmpty || !removed.isEmpty { out.delegate(.homeStoriesChanged) }
        out.delegate(.storiesChanged(keeping: context.selected))
    }

    /// Pages that add no story are said once on the problems line when paging first stalls,
    /// and once more when it ends for good.
    private static func noteStalledPaging(before: Int, _ feed: inout FeedState) {
        let store = feed.store
        let now = store.pagesWithoutProgress
        if store.brokenPagesInARow >= StoryStore.maxBrokenPagesInARow, store.endedWithoutProgress, now == before {
            feed.warnings.append(FeedWarning("the feed's last \(StoryStore.maxBrokenPagesInARow) pages in a row held only stories that could not be shown; no more pages are asked for"))
            return
        }
        guard now > before else { return }
        if store.endedWithoutProgress {
            feed.warnings.append(FeedWarning("the feed's last \(StoryStore.maxPagesWithoutProgress) pages in a row added no new story although each named a next page; no more pages are asked for"))
        } else if now == 1 {
            let which = store.count == 0 ? "the feed's first page has no stories" : "the feed's page after its first \(store.count) stories added no new one"
            feed.warnings.append(FeedWarning("\(which) but named a next page; paging stops for now and is tried again later, when you come near the end", topic: "paging"))
        }
    }
}
