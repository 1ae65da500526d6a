/// The Row feature: the ring row's selection, the story being opened, the `/` field, and
/// searches along the feed (`seek`). A scoped reducer (`FeatureReducer`): it sees only
/// `RowState`, and reads the stories, the seen state and the built item models as the
/// parent hands them in (`Context`); a page to ask for, an item to show, a line to say go out
/// as delegates.
enum RowFeature: FeatureReducer {
    enum Action {
        /// A key in the `/` field.
        case edit(SearchEdit)
        /// Stops a story being opened, and its request.
        case stopOpening
        /// Starts a search along the feed, which looks first at what is loaded.
        case beginSeeking(SeekTarget)
        /// Stops a search that moving on the row replaces (a story a cell opened keeps
        /// being looked for: it is going to open).
        case stopSeeking
        /// Looks again (a page came, or anything else happened).
        case seek
        /// Opens the selected story: at once when its items and their models are here,
        /// else the loading ring turns round its bubble until they are.
        case openSelected
    }

    /// What the row reads of the rest, as it is when the action comes.
    struct Context {
        var store: StoryStore
        var seen: SeenState
        /// The viewer is open (the row and its field are not in use).
        var viewerOpen: Bool
        /// The stories whose item models are built: the viewer can open on them at once.
        var built: [StoryID: [ViewerItemViewModel]]
        /// Uptime now.
        var now: Double
    }

    static func reduce(_ row: inout RowState, _ action: Action, context: Context, into out: inout FeatureOutput) {
        switch action {
        case .edit(let edit): self.edit(edit, &row, context, &out)
        case .stopOpening:
            guard let id = row.opening else { return }
            out.delegate(.cancelItems(id))
            row.opening = nil
        case .beginSeeking(let target):
            row.seeking = target
            row.seekPages = 0
            row.seekStartCount = context.store.count
            seek(&row, context, &out)
        case .stopSeeking:
            if let target = row.seeking, case .story = target { return }
            row.seeking = nil
        case .seek: seek(&row, context, &out)
        case .openSelected: openSelected(&row, context, &out)
        }
    }

    /// Each change selects the first story loaded, from where the search began (round to
    /// the start), whose name or handle holds the text.
    private static func edit(_ edit: SearchEdit, _ row: inout RowState, _ context: Context, _ out: inout FeatureOutput) {
        guard var search = row.search, !context.viewerOpen else { return }
        let store = context.store
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
            if let index = match(from: row.selection + (edit == .next ? 1 : -1), forward: edit == .next) { row.selection = index }
            row.search = search
            return
        case .submit:
            row.search = nil
            let folded = NameSearch.fold(search.text)
            guard !folded.isEmpty else { return }
            if let summary = store.summaries[safe: row.selection], NameSearch.matches(summary, folded: folded) { return }
            // Nothing loaded answers to it: the feed is looked through further.
            reduce(&row, .beginSeeking(.name(search.text, from: count)), context: context, into: &out)
            return
        case .cancel:
            row.search = nil
            row.selection = min(search.selectionBefore, max(0, count - 1))
            return
        case .close:
            row.search = nil
            return
        }
        search.matches = countMatches(search.text, in: store)
        if let index = match(from: search.selectionBefore, forward: true) {
            row.selection = index
        } else {
            row.selection = min(search.selectionBefore, max(0, count - 1))
        }
        row.search = search
    }

    /// Stories loaded that answer to the text (the field shows the count).
    static func countMatches(_ text: String, in store: StoryStore) -> Int {
        let folded = NameSearch.fold(text)
        guard !folded.isEmpty else { return 0 }
        return store.summaries.count { NameSearch.matches($0, folded: folded) }
    }

    /// Looking for something further along the feed: as each page arrives it looks again,
    /// and the next page is asked for as soon as the last one is in, until it is found, the
    /// feed ends, or the search's limit is reached — each said in a line.
    private static func seek(_ row: inout RowState, _ context: Context, _ out: inout FeatureOutput) {
        guard let target = row.seeking else { return }
        let store = context.store
        // Another story opened meanwhile (from its bubble, say): that one wins.
        if context.viewerOpen {
            row.seeking = nil
            return
        }
        if case .story(let id) = target, row.opening != nil, row.opening != id {
            row.seeking = nil
            return
        }
        if found(target, &row, context, &out) {
            row.seeking = nil
            return
        }
        let limits = target.limits
        let lookedThrough = store.count - row.seekStartCount
        let quoted = { (text: String) in SafeText.line(text, maxColumns: SafeText.Limit.quoted) }
        switch store.paging {
        case .ready(let next) where lookedThrough < limits.stories && row.seekPages < limits.pages:
            row.seekPages += 1
            out.delegate(.askForPage(next))
        case .ready:
            row.seeking = nil
            let line = switch target {
            case .story(let id): "⚠ The story '\(id)' is not among the \(store.count) stories looked through"
            case .last: "Stopped at story \(store.count) (End again to go on)"
            case .unseen: "⚠ No unseen story among the \(store.count) looked through (n again to go on)"
            case .name(let text, _): "⚠ No one called '\(quoted(text))' among the \(store.count) stories looked through"
            }
            out.delegate(.notice(line))
        case .stalled, .complete:
            // The whole feed was looked through, or its pages stopped adding stories (said on
            // the problems line): as far as the feed goes, for now or for good.
            row.seeking = nil
            let within = store.paging == .complete ? "in this feed (all \(store.count) stories looked through)"
                : "among the \(store.count) stories so far (the feed's pages stopped adding stories)"
            switch target {
            case .story(let id): out.delegate(.notice("⚠ The story '\(id)' is not \(within)"))
            case .last: break
            case .unseen(let after): wrapToUnseen(before: after, &row, context, &out)
            case .name(let text, _): out.delegate(.notice("⚠ No one called '\(quoted(text))' \(within)"))
            }
        case .broken(let reason):
            row.seeking = nil
            out.delegate(.notice("⚠ Could not look further along the feed: \(reason)"))
        case .failed(_, let attempt, let reason, _) where attempt >= RowState.seekAttempts:
            row.seeking = nil
            out.delegate(.notice("⚠ Could not look further along the feed: \(reason)"))
        case .notStarted, .loading, .failed:
            break // a page is on its way, or will be retried
        }
    }

    /// Whether what a search looks for is among the stories loaded; it acts on it if so.
    private static func found(_ target: SeekTarget, _ row: inout RowState, _ context: Context, _ out: inout FeatureOutput) -> Bool {
        let store = context.store
        switch target {
        case .story(let id):
            guard let index = store.positions[id] else { return false }
            row.selection = index
            openSelected(&row, context, &out)
            return true
        case .last:
            row.selection = max(0, store.count - 1) // the row follows the pages in
            return !store.hasMore
        case .unseen(let after):
            guard let index = firstUnseen(in: (after + 1)..<max(after + 1, store.count), store, context.seen) else { return false }
            row.selection = index
            return true
        case .name(let text, let from):
            let folded = NameSearch.fold(text)
            guard let index = (from..<max(from, store.count)).first(where: {
                store.summaries[safe: $0].map { NameSearch.matches($0, folded: folded) } ?? false
            }) else { return false }
            row.selection = index
            return true
        }
    }

    /// The first story in `range` with an item not seen yet.
    static func firstUnseen(in range: Range<Int>, _ store: StoryStore, _ seen: SeenState) -> Int? {
        range.first { index in
            store.summaries[safe: index].map { seen.unseenCount(story: $0.id, items: $0.itemIDs) > 0 } ?? false
        }
    }

    /// The end of the feed came with nothing unseen after `after`: the first unseen story
    /// from the start, or a line saying everything is seen.
    private static func wrapToUnseen(before after: Int, _ row: inout RowState, _ context: Context, _ out: inout FeatureOutput) {
        if let index = firstUnseen(in: 0..<min(context.store.count, after + 1), context.store, context.seen) {
            row.selection = index
            out.delegate(.notice(index == after ? "No other story has unseen items" : "↺ Back to the first unseen story (the feed ended)"))
        } else {
            out.delegate(.notice("✓ All caught up: every story in this feed is seen"))
        }
    }

    private static func openSelected(_ row: inout RowState, _ context: Context, _ out: inout FeatureOutput) {
        let store = context.store
        guard !context.viewerOpen, store.summaries.indices.contains(row.selection) else { return }
        if let story = store.story(at: row.selection), context.built[story.id] != nil {
            out.delegate(.show(story: row.selection, item: nil))
        } else {
            let id = store.summaries[row.selection].id
            if row.opening != id { row.openingSince = context.now }
            row.opening = id
            if case .failed? = store.items[id] { out.delegate(.loadItems(id)) } // Enter on a failed story retries
        }
    }
}
