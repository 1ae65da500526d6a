extension Reduction {
    /// The Navigation feature: a command or a selection, as a key bound to it would give.
    mutating func reduce(_ action: NavigationAction) {
        switch action {
        case .select(let index): apply(.select(index) as GestureStep)
        case .command(let command): apply(.command(command) as GestureStep)
        case .completeTransition: completeTransition()
        }
    }

    mutating func apply(_ command: Command) {
        let count = store.count
        switch command {
        case .searchNext, .searchPrevious, .searchSubmit, .searchCancel, .searchDeleteBackward, .searchClear:
            if let edit = command.searchEdit { self.edit(edit) } // as the field's own keys do
        case .quit:
            effects.append(.quit)
        case .redraw:
            effects.append(.redrawScreen)
        case .openLink, .copyLink, .toggleLinkAddress:
            guard let viewer = state.viewer else { break }
            guard let link = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex]?.link else {
                state.chrome.notice = "This item has no link"
                break
            }
            let address = SafeText.line(link.url, maxColumns: 2048)
            switch command {
            case .openLink:
                state.chrome.notice = "↗ Opening \(address)…"
                effects.append(.openLink(link.url))
            case .copyLink:
                state.chrome.notice = "⧉ Copied \(address) (if this terminal lets programs use the clipboard)"
                effects.append(.copyToClipboard(link.url))
            default:
                state.chrome.showsLinkAddress.toggle()
            }
        case .toggleHelp:
            state.chrome.modal = state.chrome.modal == .help ? nil : .help
            state.chrome.modalScroll = 0
            syncPlayback()
        case .toggleProblems:
            state.chrome.modal = state.chrome.modal == .problems ? nil : .problems
            state.chrome.modalScroll = 0
            syncPlayback()
        case .closeBox:
            state.chrome.modal = nil
            syncPlayback()
        case .screenfulNext, .screenfulPrevious:
            page(forward: command == .screenfulNext)
        case .nextUnseen:
            nextUnseen()
        case .search:
            guard state.viewer == nil else { break }
            // The field works on the ring row: a story still opening, or being looked for,
            // stops (as Esc would), and a screen of sections goes back to the home.
            stopOpening()
            state.row.seeking = nil
            backToTheRow()
            state.row.search = SearchField(selectionBefore: state.row.selection)
        case .toggleGestures:
            state.chrome.showsGestures.toggle()
            if state.chrome.showsGestures { state.chrome.showsMetrics = false } // one overlay at a time
        case .toggleMetrics:
            state.chrome.showsMetrics.toggle()
            if state.chrome.showsMetrics { state.chrome.showsGestures = false }
        case .selectNext, .selectPrevious, .selectFirst, .selectLast:
            if state.viewer == nil, let focused = state.home.level.focusedCell {
                let cells = state.home.level.sections[focused.section].cells.count
                let index: Int = switch command {
                case .selectNext: focused.cell + 1
                case .selectPrevious: focused.cell - 1
                case .selectFirst: 0
                default: cells - 1
                }
                state.home.level.selected[focused.section] = min(max(0, index), cells - 1)
                break
            }
            stopSeeking()
            switch command {
            case .selectNext: state.row.selection = min(state.row.selection + 1, max(0, count - 1))
            case .selectPrevious: state.row.selection = max(state.row.selection - 1, 0)
            case .selectFirst: state.row.selection = 0
            default:
                // The true last story: pages are asked for until the feed ends, the row
                // following along; Esc (or any other move) stops there.
                state.row.selection = max(0, count - 1)
                if store.hasMore { beginSeeking(.last) }
            }
        case .focusDown:
            guard state.viewer == nil else { break }
            let sections = state.home.level.sections.count
            guard sections > 0 else { break }
            state.home.level.focus = min((state.home.level.focus ?? -1) + 1, sections - 1)
        case .focusUp:
            guard state.viewer == nil, let focus = state.home.level.focus else { break }
            // Above the first section: the ring row on the home itself; nothing on a screen
            // of sections a cell opened (it has no ring row).
            state.home.level.focus = focus > 0 ? focus - 1 : (state.home.levels.count == 1 ? nil : 0)
        case .open:
            if state.viewer == nil, let focused = state.home.level.focusedCell {
                if let cell = state.home.level.cell(section: focused.section, index: focused.cell) { run(cell) }
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
                if state.row.opening != nil {
                    stopOpening()
                } else if state.row.seeking != nil {
                    state.row.seeking = nil // the page in flight still arrives and is kept
                } else if state.home.levels.count > 1 {
                    state.home.levels.removeLast()
                    state.home.generation += 1
                    homeChanged = true
                } else {
                    state.home.level.focus = nil
                }
            } else {
                dismiss()
            }
        case .toggleFit:
            state.media.photosFit.toggle()
        case .togglePause:
            guard var viewer = state.viewer else { break }
            viewer.isPaused.toggle()
            state.viewing.screen = .viewer(viewer)
            syncPlayback()
        }
    }
}
