/// The Viewer feature: which screen is shown, the movement between screens, and the item's
/// progress. A scoped reducer (`FeatureReducer`): it sees only `ViewingState`; which item to
/// show, whether progress may run and how long an item lasts are the parent's to say
/// (`App/Reduction+Viewer.swift`), as they read the store, the media and the overlays.
enum ViewerFeature: FeatureReducer {
    enum Action {
        /// Show this item, its media here (its item models built).
        case show(story: Int, item: Int)
        /// Show this story waiting: its items (or, past the last story, the next page) are on
        /// their way; `item` is the one to show when they come (nil: the first unseen).
        case wait(story: Int, item: Int?)
        /// Back to the home, zooming into the story's bubble.
        case dismiss
        /// Jump a running animation to its end.
        case completeTransition
        /// A movement the parent made (a drag let go goes on from where the finger left
        /// it); with `defersPlayback` the item's progress starts when it ends.
        case animate(Transition, defersPlayback: Bool)
        /// Space: the person's pause, on or off.
        case togglePause
        /// A tick: an animation that has ended goes.
        case tick
        /// Progress runs (or stops) as the rest of the app allows.
        case playback(runs: Bool)
        /// The item on screen lasts this long (seconds): past it, the next item — or, in the
        /// screen-reader mode (`waits`), a pause at its end.
        case checkEnd(duration: Double, waits: Bool)
        /// The sound heard is this far into the item on screen (seconds): its clock follows.
        case soundClock(Double)
    }

    struct Context {
        /// Uptime now.
        var now: Double
        /// Instant cuts instead of motion.
        var reduceMotion: Bool
    }

    static func reduce(_ viewing: inout ViewingState, _ action: Action, context: Context, into out: inout FeatureOutput) {
        let now = context.now
        switch action {
        case .show(let story, let item):
            let before = viewing.viewer
            // A navigation always plays: pausing holds the item on screen, it is not a mode.
            viewing.screen = .viewer(ViewerState(storyIndex: story, itemIndex: item, startedAt: now))
            out.delegate(.itemShown) // marked seen in `settle`, once its photo or video is on screen
            animate(&viewing, from: before, context)
        case .wait(let story, let item):
            let before = viewing.viewer
            var viewer = ViewerState(storyIndex: story, itemIndex: 0, startedAt: now)
            viewer.isWaiting = true
            viewer.wantedItem = item
            viewer.playback.stop(at: now)
            viewing.screen = .viewer(viewer)
            animate(&viewing, from: before, context)
        case .dismiss:
            guard let viewer = viewing.viewer else { return }
            out.delegate(.select(viewer.storyIndex))
            viewing.screen = .home
            out.delegate(.endGesture)
            if !context.reduceMotion {
                viewing.transition = .zoom(viewer, from: 1, to: 0, fullDuration: Transition.dismissDuration, at: now)
            }
        case .completeTransition:
            // The state it shows is already in place: this only drops the drawing and lets
            // the item's progress start now.
            guard viewing.transition != nil else { return }
            viewing.transition = nil
            if var viewer = viewing.viewer, let since = viewer.playback.runningSince, since > now {
                viewer.playback.runningSince = now
                viewing.screen = .viewer(viewer)
            }
        case .animate(let transition, let defers):
            viewing.transition = transition
            if defers { deferPlayback(&viewing) }
        case .togglePause:
            guard var viewer = viewing.viewer else { return }
            viewer.isPaused.toggle()
            viewing.screen = .viewer(viewer)
        case .tick:
            if let transition = viewing.transition, transition.timeline.isFinished(at: now) { viewing.transition = nil }
        case .playback(let runs):
            guard var viewer = viewing.viewer else { return }
            if !runs {
                if viewer.playback.isRunning { viewer.playback.stop(at: now) }
            } else {
                // During an animation the item's clock starts when it ends.
                viewer.playback.run(at: max(now, viewing.transition?.timeline.end ?? now))
            }
            viewing.screen = .viewer(viewer)
        case .checkEnd(let duration, let waits):
            guard let viewer = viewing.viewer, viewer.playback.isRunning, !viewer.isWaiting,
                  viewer.playback.elapsed(at: now) >= duration else { return }
            guard waits else {
                out.delegate(.command(.nextItem))
                return
            }
            // It waits at its end, paused there, for the next command.
            var ended = viewer
            ended.isPaused = true
            ended.playback.stop(at: now)
            ended.playback.banked = duration
            viewing.screen = .viewer(ended)
        case .soundClock(let time):
            // The sound leads: the item's clock is set to what is heard, from now on.
            guard var viewer = viewing.viewer, viewer.playback.isRunning, time.isFinite else { return }
            viewer.playback.banked = max(0, time)
            viewer.playback.runningSince = now
            viewing.screen = .viewer(viewer)
        }
    }

    /// The movement from the viewer as it was (nil: the row) to the one now shown: present
    /// out of the bubble, a cube between stories, nothing within a story. The item's
    /// progress starts when it ends.
    private static func animate(_ viewing: inout ViewingState, from before: ViewerState?, _ context: Context) {
        guard !context.reduceMotion, let viewer = viewing.viewer else { return }
        let now = context.now
        if let before {
            guard before.storyIndex != viewer.storyIndex else { return }
            viewing.transition = .cube(leaving: before, arriving: viewer, forward: viewer.storyIndex > before.storyIndex, at: now)
        } else {
            viewing.transition = .zoom(viewer, from: 0, to: 1, fullDuration: Transition.presentDuration, at: now)
        }
        deferPlayback(&viewing)
    }

    /// The item's progress starts when the running animation ends.
    private static func deferPlayback(_ viewing: inout ViewingState) {
        guard let end = viewing.transition?.timeline.end, var viewer = viewing.viewer,
              let since = viewer.playback.runningSince, since < end else { return }
        viewer.playback.runningSince = end
        viewing.screen = .viewer(viewer)
    }
}
