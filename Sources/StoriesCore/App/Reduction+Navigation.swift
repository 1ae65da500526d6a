// Navigation is the parent's: a command or a gesture step moves across the row, the
// viewer, the home and the boxes at once, through each feature's actions where the move
// is the feature's own (a show, a dismiss, an animation, a search).
extension Reduction {
    /// A command or a selection, as a key bound to it would give.
    mutating func reduce(_ action: NavigationAction) {
        switch action {
        case .select(let index): apply(GestureStep.select(index))
        case .command(let command): apply(GestureStep.command(command))
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
        case .stepNext, .stepFrame:
            break // the stepper's, bound only where it reads them (`--step`)
        case .redraw:
            effects.append(.redrawScreen)
        case .suspend:
            effects.append(.suspendProcess) // `.app(.suspend)` comes from the runtime as it stops
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
            screenful(forward: command == .screenfulNext)
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
        case .toggleSound:
            state.media.sound.on.toggle()
            let sound = state.media.sound
            delegate(.notice(!sound.on ? "🔇 Sound off (m turns it on)"
                : !sound.enabled ? "🔊 Sound on, but this run plays none (--headless or a replay; --sound asks for it)"
                : sound.problem.map { "🔊 Sound on, but none can be played: \($0)" } ?? "🔊 Sound on"))
        case .togglePause:
            viewer(.togglePause)
            syncPlayback()
        }
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
                state.chrome.notice = "✓ All caught up: every story in this feed is seen"
            }
            return
        }
        backToTheRow() // `n` moves on the ring row
        let from = state.row.selection
        beginSeeking(.unseen(after: from))
    }

    /// PgDn, PgUp: a screenful on the ring row or in the focused section, or of the box
    /// (the help or the problems list).
    mutating func screenful(forward: Bool) {
        let sign = forward ? 1 : -1
        if let content = ModalLayout.content(state) {
            state.chrome.modalScroll = max(0, min(content.maxScroll, state.chrome.modalScroll + sign * max(1, content.visibleLines)))
            return
        }
        guard state.viewer == nil else { return }
        if let focused = state.home.level.focusedCell {
            let section = state.home.level.sections[focused.section]
            let inView = HomeGeometry.cellBoxes(section, selected: focused.cell, y: 0, screenWidth: state.screenWidth).count
            state.home.level.selected[focused.section] = max(0, min(section.cells.count - 1, focused.cell + sign * max(1, inView)))
            return
        }
        stopSeeking()
        let step = RingLayout.visibleBubbles(width: state.screenWidth)
        state.row.selection = max(0, min(store.count - 1, state.row.selection + sign * step))
    }

    static func worksWhileTooSmall(_ step: GestureStep) -> Bool {
        switch step {
        case .command(let command): [.quit, .dismiss, .closeBox, .redraw, .suspend, .copyLink].contains(command)
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
                state.row.selection = index
                state.home.level.focus = nil // a bubble was clicked: the ring row has the keyboard
            }
        case .focusCell(let section, let cell):
            completeTransition()
            guard state.viewer == nil, state.home.level.cell(section: section, index: cell) != nil else { break }
            state.home.level.focus = section
            state.home.level.selected[section] = cell
        case .endDrag(let drag, let commit):
            endDrag(drag, commit: commit)
        case .searchEdit(let edit):
            self.edit(edit)
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
                    if case .cube(let leaving, let arriving, let direction)? = state.viewing.transition?.kind {
                        self.viewer(.animate(.cube(leaving: leaving, arriving: arriving, forward: direction, from: moved, at: now),
                                             defersPlayback: true))
                    }
                    return
                }
                // Nowhere to go (before the first story): it snaps back like a short drag.
            }
            syncPlayback()
            guard !state.reduceMotion, moved > 0 else { return }
            let neighbour = ViewerState(storyIndex: viewer.storyIndex + (forward ? 1 : -1), itemIndex: 0, startedAt: now)
            self.viewer(.animate(.cube(leaving: viewer, arriving: neighbour, forward: forward, from: moved, to: 0, at: now),
                                 defersPlayback: false))
        case .dismiss(let offset):
            let scale = max(0, 1 - min(1, offset))
            if commit {
                dismiss()
                if state.viewing.transition != nil {
                    self.viewer(.animate(.zoom(viewer, from: scale, to: 0, fullDuration: Transition.dismissDuration, at: now),
                                         defersPlayback: false))
                }
            } else {
                syncPlayback()
                guard !state.reduceMotion, scale < 1 else { return }
                self.viewer(.animate(.zoom(viewer, from: scale, to: 1, fullDuration: Transition.dismissDuration, at: now),
                                     defersPlayback: false))
            }
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

    mutating func backToTheRow() { scope(HomeFeature.self, \.home, .backToTheRow) }
}
