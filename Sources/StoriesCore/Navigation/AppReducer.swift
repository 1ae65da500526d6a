/// What can happen to the app.
public enum AppAction: Equatable, Sendable {
    /// The run loop started: ask the feed source for stories.
    case start
    /// The feed source delivered.
    case feedLoaded(FeedLoad)
    /// A key (or, later, a gesture) asked for something.
    case command(Command)
    /// Highlight the story at an index of the ring row (a click on its bubble).
    case select(Int)
    /// Time passed (frame timer): progress and auto-advance.
    case tick
}

/// Work the reducer asks the runtime to do; results come back as actions.
public enum AppEffect: Equatable, Sendable {
    /// Load the feed on a background queue, then send `.feedLoaded`.
    case loadFeed
    /// Give the terminal back and end the process.
    case quit
    /// Seen state changed: keep it (the runtime batches the writes).
    case persistSeen(SeenState)
}

/// The one place app state changes: `(inout AppState, AppAction, Moment) -> [AppEffect]`.
/// Pure and synchronous: time comes in as a `Moment`, work goes out as effects.
public enum AppReducer {
    public static func reduce(_ state: inout AppState, _ action: AppAction, at now: Moment) -> [AppEffect] {
        let seenBefore = state.seen
        var effects = reduceWithoutPersisting(&state, action, at: now)
        if state.seen != seenBefore { effects.append(.persistSeen(state.seen)) }
        return effects
    }

    private static func reduceWithoutPersisting(_ state: inout AppState, _ action: AppAction, at now: Moment) -> [AppEffect] {
        state.now = now
        switch action {
        case .start:
            state.isLoading = true
            return [.loadFeed]
        case .feedLoaded(let load):
            state.stories = load.stories
            state.warnings += load.warnings
            state.isLoading = false
            state.selection = min(state.selection, max(0, load.stories.count - 1))
            return []
        case .tick:
            advanceIfItemEnded(&state)
            return []
        case .select(let index):
            if state.viewer == nil, state.stories.indices.contains(index) { state.selection = index }
            return []
        case .command(let command):
            return apply(command, to: &state)
        }
    }

    private static func apply(_ command: Command, to state: inout AppState) -> [AppEffect] {
        let lastStory = state.stories.count - 1
        switch command {
        case .quit:
            return [.quit]
        case .toggleHelp:
            state.showsHelp.toggle()
            syncPlayback(&state)
        case .closeHelp:
            state.showsHelp = false
            syncPlayback(&state)
        case .selectNext:
            state.selection = min(state.selection + 1, max(0, lastStory))
        case .selectPrevious:
            state.selection = max(state.selection - 1, 0)
        case .selectFirst:
            state.selection = 0
        case .selectLast:
            state.selection = max(0, lastStory)
        case .open:
            guard state.viewer == nil, state.stories.indices.contains(state.selection) else { break }
            show(story: state.selection, item: nil, in: &state)
        case .nextItem:
            guard let viewer = state.viewer else { break }
            if viewer.itemIndex < state.stories[viewer.storyIndex].items.count - 1 {
                show(story: viewer.storyIndex, item: viewer.itemIndex + 1, in: &state)
            } else if viewer.storyIndex < lastStory {
                show(story: viewer.storyIndex + 1, item: nil, in: &state)
            } else {
                dismiss(&state)
            }
        case .previousItem:
            guard let viewer = state.viewer else { break }
            if viewer.itemIndex > 0 {
                show(story: viewer.storyIndex, item: viewer.itemIndex - 1, in: &state)
            } else if viewer.storyIndex > 0 {
                show(story: viewer.storyIndex - 1, item: 0, in: &state)
            } else {
                show(story: viewer.storyIndex, item: 0, in: &state) // the very first item restarts
            }
        case .nextStory:
            guard let viewer = state.viewer else { break }
            if viewer.storyIndex < lastStory {
                show(story: viewer.storyIndex + 1, item: nil, in: &state)
            } else {
                dismiss(&state)
            }
        case .previousStory:
            guard let viewer = state.viewer, viewer.storyIndex > 0 else { break }
            show(story: viewer.storyIndex - 1, item: nil, in: &state)
        case .dismiss:
            dismiss(&state)
        case .toggleFit:
            state.photosFit.toggle()
        case .togglePause:
            guard var viewer = state.viewer else { break }
            viewer.isPaused.toggle()
            state.screen = .viewer(viewer)
            syncPlayback(&state)
        }
        return []
    }

    /// Shows an item (nil: the story's first unseen item), marks it seen, restarts progress
    /// and moves the ring-row selection to the story, so a dismiss lands on it.
    private static func show(story storyIndex: Int, item: Int?, in state: inout AppState) {
        let story = state.stories[storyIndex]
        let itemIndex = item ?? state.seen.firstUnseenIndex(in: story)
        // A navigation always plays: pausing holds the item on screen, it is not a mode.
        state.screen = .viewer(ViewerState(storyIndex: storyIndex, itemIndex: itemIndex, startedAt: state.now.uptime))
        state.selection = storyIndex
        state.seen.markSeen(story: story.id, item: story.items[itemIndex].id)
        syncPlayback(&state)
    }

    private static func dismiss(_ state: inout AppState) {
        guard let viewer = state.viewer else { return }
        state.selection = viewer.storyIndex
        state.screen = .home
    }

    /// Progress runs only while the viewer is open, not paused, and not under the help.
    private static func syncPlayback(_ state: inout AppState) {
        guard var viewer = state.viewer else { return }
        if viewer.isPaused || state.showsHelp {
            if viewer.playback.isRunning { viewer.playback.stop(at: state.now.uptime) }
        } else {
            viewer.playback.run(at: state.now.uptime)
        }
        state.screen = .viewer(viewer)
    }

    private static func advanceIfItemEnded(_ state: inout AppState) {
        guard let viewer = state.viewer, viewer.playback.isRunning else { return }
        let item = state.stories[viewer.storyIndex].items[viewer.itemIndex]
        if viewer.playback.elapsed(at: state.now.uptime) >= item.duration {
            _ = apply(.nextItem, to: &state)
        }
    }
}
