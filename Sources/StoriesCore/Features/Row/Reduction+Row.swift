// The Row feature: the ring row's selection, the story being opened, the `/` field, and
// searches along the feed (`seek`).
extension Reduction {
    /// A key in the `/` field. Each change selects the first story loaded, from where the
    /// search began (round to the start), whose name or handle holds the text.
    mutating func edit(_ edit: SearchEdit) {
        guard var search = state.row.search, state.viewer == nil else { return }
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
            if let index = match(from: state.row.selection + (edit == .next ? 1 : -1), forward: edit == .next) { state.row.selection = index }
            state.row.search = search
            return
        case .submit:
            state.row.search = nil
            let folded = NameSearch.fold(search.text)
            guard !folded.isEmpty else { return }
            if let summary = store.summaries[safe: state.row.selection], NameSearch.matches(summary, folded: folded) { return }
            // Nothing loaded answers to it: the feed is looked through further.
            beginSeeking(.name(search.text, from: count))
            return
        case .cancel:
            state.row.search = nil
            state.row.selection = min(search.selectionBefore, max(0, count - 1))
            return
        case .close:
            state.row.search = nil
            return
        }
        search.matches = countMatches(search.text)
        if let index = match(from: search.selectionBefore, forward: true) {
            state.row.selection = index
        } else {
            state.row.selection = min(search.selectionBefore, max(0, count - 1))
        }
        state.row.search = search
    }

    /// Stories loaded that answer to the text (the field shows the count).
    func countMatches(_ text: String) -> Int {
        let folded = NameSearch.fold(text)
        guard !folded.isEmpty else { return 0 }
        return store.summaries.count { NameSearch.matches($0, folded: folded) }
    }

    /// Stops a story being opened, and its request.
    mutating func stopOpening() {
        guard let id = state.row.opening else { return }
        delegate(.cancelItems(id))
        state.row.opening = nil
    }

    /// Starts a search along the feed (`SeekTarget`), which looks first at what is loaded.
    mutating func beginSeeking(_ target: SeekTarget) {
        state.row.seeking = target
        state.row.seekPages = 0
        state.row.seekStartCount = store.count
        seek()
    }

    /// Stops a search along the feed that moving on the row replaces (a story a cell
    /// opened keeps being looked for: it is going to open).
    mutating func stopSeeking() {
        if let target = state.row.seeking, case .story = target { return }
        state.row.seeking = nil
    }

    /// Looking for something further along the feed: as each page arrives it looks again,
    /// and the next page is asked for as soon as the last one is in, until it is found, the
    /// feed ends, or the search's limit is reached — each said in a line.
    mutating func seek() {
        guard let target = state.row.seeking else { return }
        // Another story opened meanwhile (from its bubble, say): that one wins.
        if state.viewer != nil {
            state.row.seeking = nil
            return
        }
        if case .story(let id) = target, state.row.opening != nil, state.row.opening != id {
            state.row.seeking = nil
            return
        }
        if found(target) {
            state.row.seeking = nil
            return
        }
        let limits = target.limits
        let lookedThrough = store.count - state.row.seekStartCount
        switch store.paging {
        case .ready(let next) where lookedThrough < limits.stories && state.row.seekPages < limits.pages:
            state.row.seekPages += 1
            delegate(.askForPage(next))
        case .ready:
            state.row.seeking = nil
            let line = switch target {
            case .story(let id): "⚠ The story '\(id)' is not among the \(store.count) stories looked through"
            case .last: "Stopped at story \(store.count) (End again to go on)"
            case .unseen: "⚠ No unseen story among the \(store.count) looked through (n again to go on)"
            case .name(let text, _): "⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' among the \(store.count) stories looked through"
            }
            delegate(.notice(line))
        case .stalled:
            // Pages stopped adding stories (said on the problems line): as far as the feed goes for now.
            state.row.seeking = nil
            switch target {
            case .story(let id): delegate(.notice("⚠ The story '\(id)' is not among the \(store.count) stories so far (the feed's pages stopped adding stories)"))
            case .last: break
            case .unseen(let after): wrapToUnseen(before: after)
            case .name(let text, _): delegate(.notice("⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' among the \(store.count) stories so far (the feed's pages stopped adding stories)"))
            }
        case .complete:
            state.row.seeking = nil
            switch target {
            case .story(let id): delegate(.notice("⚠ The story '\(id)' is not in this feed (all \(store.count) stories looked through)"))
            case .last: break
            case .unseen(let after): wrapToUnseen(before: after)
            case .name(let text, _): delegate(.notice("⚠ No one called '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' in this feed (all \(store.count) stories looked through)"))
            }
        case .broken(let reason):
            state.row.seeking = nil
            delegate(.notice("⚠ Could not look further along the feed: \(reason)"))
        case .failed(_, let attempt, let reason, _) where attempt >= RowState.seekAttempts:
            state.row.seeking = nil
            delegate(.notice("⚠ Could not look further along the feed: \(reason)"))
        case .notStarted, .loading, .failed:
            break // a page is on its way, or will be retried
        }
    }

    /// Whether what a search looks for is among the stories loaded; it acts on it if so.
    mutating func found(_ target: SeekTarget) -> Bool {
        switch target {
        case .story(let id):
            guard let index = store.positions[id] else { return false }
            state.row.selection = index
            openSelectedStory()
            return true
        case .last:
            state.row.selection = max(0, store.count - 1) // the row follows the pages in
            return !store.hasMore
        case .unseen(let after):
            guard let index = firstUnseen(in: (after + 1)..<max(after + 1, store.count)) else { return false }
            state.row.selection = index
            return true
        case .name(let text, let from):
            guard let index = firstMatch(NameSearch.fold(text), in: from..<max(from, store.count)) else { return false }
            state.row.selection = index
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

    /// The end of the feed came with nothing unseen after `after`: the first unseen story
    /// from the start, or a line saying everything is seen.
    mutating func wrapToUnseen(before after: Int) {
        if let index = firstUnseen(in: 0..<min(store.count, after + 1)) {
            state.row.selection = index
            delegate(.notice(index == after ? "No other story has unseen items" : "↺ Back to the first unseen story (the feed ended)"))
        } else {
            delegate(.notice("✓ All caught up: every story in this feed is seen"))
        }
    }

    /// Opens the ring row's selected story: at once when its items and their models are here,
    /// else the loading ring turns round its bubble until they are.
    mutating func openSelectedStory() {
        guard state.viewer == nil, store.summaries.indices.contains(state.row.selection) else { return }
        if let story = store.story(at: state.row.selection), state.viewModels.items[story.id] != nil {
            delegate(.show(story: state.row.selection, item: nil))
        } else {
            let id = store.summaries[state.row.selection].id
            if state.row.opening != id { state.row.openingSince = state.now.uptime }
            state.row.opening = id
            if case .failed? = store.items[id] { delegate(.loadItems(id)) } // Enter on a failed story retries
        }
    }
}
