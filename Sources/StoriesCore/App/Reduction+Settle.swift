/// The one step every action ends with, whatever it was: what can be derived from the
/// state is derived here, in one place, after the feature that owned the action is done.
extension Reduction {
    /// What every action ends with: the viewer past the end, gestures and playback,
    /// paging, item loading, the preload set.
    mutating func settle(after action: AppAction, viewerBefore: ViewerPlace?) {
        // A story is shown once its items are loaded (t2) and its item models are built
        // (t1, "prepare the screen"): the first frame of the viewer is complete.
        func isReady(_ index: Int) -> Bool {
            guard let story = store.story(at: index) else { return false }
            return state.viewModels.items[story.id] != nil
        }
        // The person's own navigations teach the preload window their pace.
        if case .input = action, let before = viewerBefore, let after = state.viewer {
            let time = state.now.uptime
            if after.storyIndex != before.story {
                state.media.pace.record(after.storyIndex > before.story ? .story : .back, at: time)
            } else if after.itemIndex != before.item {
                state.media.pace.record(after.itemIndex > before.item ? .item : .back, at: time)
            }
        }
        if let viewer = state.viewer {
            if viewer.storyIndex >= store.count, !store.hasMore {
                dismiss() // waited past the end, and the end has come
            } else if viewer.isWaiting, isReady(viewer.storyIndex) {
                show(story: viewer.storyIndex, item: viewer.wantedItem)
            }
        } else if let opening = state.row.opening, let index = store.positions[opening], isReady(index) {
            show(story: index, item: nil)
        }

        let near = state.viewer?.storyIndex ?? state.row.selection
        // On the home the row in view is filled, and one screen beyond it, at any width.
        var filling = 0
        if state.viewer == nil, state.home.levels.count == 1 {
            let visible = RingLayout.visibleBubbles(width: state.screenWidth)
            filling = RingLayout.firstVisible(selection: state.row.selection, count: store.count, visible: visible) + 2 * visible
        }
        if let cursor = store.nextPageDue(near: near, filling: filling, at: state.now.uptime) {
            store.paging = .loading(cursor: cursor, attempt: 1)
            effects.append(.loadPage(cursor))
        }
        seek()

        // Items: the shown and opening stories, and (preloading) the adjacent and feed layers.
        for id in PreloadPlanner.storiesToLoad(state) {
            if store.items[id] == nil {
                loadItems(id)
            } else if state.viewModels.items[id] == nil, !state.viewModels.building.contains(id), store.positions[id].flatMap({ store.story(at: $0) }) != nil {
                itemModelsChanged.append(id) // its item models were let go far back (forgetFarItemModels): built again
            }
        }

        endStaleGesture(after: action, viewerBefore: viewerBefore)
        updateTooltip()
        syncPlayback()
        media(.waiting(for: state.mediaOnItsWay)) // the loading sign's clock
        markShownSeen()
        updatePreload()
        updatePlayers()
    }

    /// The item on screen counts as seen once it is there to see: a text card at once, a
    /// photo or video once its picture is (never one that failed, or is still coming).
    mutating func markShownSeen() {
        guard let viewer = state.viewer, !viewer.isWaiting, state.isUsable, !state.isAway,
              let story = store.story(at: viewer.storyIndex), let item = story.items[safe: viewer.itemIndex] else { return }
        if let media = item.content.media {
            guard state.media.status[media.location] == .ready else { return }
            state.media.shown.insert(media.location)
        }
        state.seen.markSeen(story: story.id, item: item.id)
    }

    /// A tooltip shows the first time its cell has the keyboard on the home screen, and is
    /// remembered as shown at that moment; it goes when the keyboard moves on, the viewer
    /// opens or the help covers it, and never comes back.
    mutating func updateTooltip() {
        var wanted: Tooltip?
        if state.viewer == nil, state.viewing.transition == nil, state.chrome.modal == nil, !state.chrome.showsGestures, !state.chrome.showsMetrics,
           state.isUsable, let focused = state.home.level.focusedCell,
           HomeGeometry.visibleSections(state).contains(where: { $0.index == focused.section }) {
            wanted = state.home.level.cell(section: focused.section, index: focused.cell)?.tooltip
        }
        guard let tip = wanted else {
            state.home.tooltip = nil
            return
        }
        if state.home.tooltip == tip.id { return }
        if state.seen.hasShownTooltip(tip.id) {
            state.home.tooltip = nil
        } else {
            state.seen.markTooltipShown(tip.id)
            state.home.tooltip = tip.id
        }
    }

    /// The screen of sections shown has a cell that opens a story (its seen colour and its
    /// author's name come from the feed).
    var levelOpensStories: Bool {
        state.home.level.sections.contains { section in
            section.cells.contains { if case .openStory? = $0.action { true } else { false } }
        }
    }

    /// No gesture outlives what it was on: a press, hold or drag in the viewer ends when the
    /// viewer closes, moves to another item by anything but the gesture itself (an item
    /// ending, a page arriving), or goes under the help or a screen too small; a press on a
    /// bubble ends when the row is left, one on a section's cell also when the sections
    /// change under it.
    mutating func endStaleGesture(after action: AppAction, viewerBefore: ViewerPlace?) {
        guard !state.gesture.pointer.isIdle else { return }
        let stale: Bool
        switch state.gesture.pointer {
        case .pressedBubble:
            stale = state.viewer != nil || state.chrome.modal != nil || !state.isUsable
        case .pressedCell:
            // New sections may put another cell where the press was.
            stale = state.viewer != nil || state.chrome.modal != nil || !state.isUsable || state.home.generation != generationBefore
        case .pressedButton:
            // The hint line and the arrows change with the screen: a press on one ends when
            // the viewer opens or closes under it.
            stale = state.chrome.modal != nil || !state.isUsable || (state.viewer == nil) != (viewerBefore == nil)
        default:
            let byGesture: Bool
            switch action {
            case .input, .wake(.hold): byGesture = true
            default: byGesture = false
            }
            stale = state.viewer == nil || state.chrome.modal != nil || !state.isUsable
                || (!byGesture && state.viewer.map(ViewerPlace.init) != viewerBefore)
        }
        if stale { state.gesture.pointer = .idle }
    }
}
