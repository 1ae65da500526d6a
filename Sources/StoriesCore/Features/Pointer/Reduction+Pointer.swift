// The Pointer feature: keys and mouse reports become gestures (`GestureRecognizer`), their
// steps are applied, and each decision is logged for the `g` overlay.
extension Reduction {
    /// One input: a key that no binding takes with Alt is read as Esc and then the key,
    /// each recognised in the state the one before left.
    mutating func input(_ event: InputEvent, at time: Double) {
        if case .key = event { state.chrome.notice = nil } // the notice was read
        if case .mouse(let mouse) = event, case .press = mouse.kind { state.chrome.notice = nil }
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
        state.gesture.pointer = recognition.pointer
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
        case .command(let command): [.quit, .dismiss, .closeBox, .redraw, .copyLink].contains(command)
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

    mutating func log(_ decision: GestureDecision) {
        state.gesture.decisionCount += 1
        state.gesture.log.append(decision)
        if state.gesture.log.count > PointerState.logLimit {
            state.gesture.log.removeFirst(state.gesture.log.count - PointerState.logLimit)
        }
    }

    /// Asks for the hold check when the pointer was just pressed in the viewer, and calls
    /// it off when the press became something else.
    mutating func askForHoldCheck(before: Pointer) {
        let was = GestureRecognizer.holdCheckTime(before), now = GestureRecognizer.holdCheckTime(state.gesture.pointer)
        guard was != now else { return }
        if let now {
            effects.append(.wake(.hold, after: max(0, now - state.now.uptime)))
        } else {
            effects.append(.cancel(.wake(.hold)))
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
                        state.viewing.transition = .cube(leaving: leaving, arriving: arriving, forward: direction, from: moved, at: now)
                        deferPlayback()
                    }
                    return
                }
                // Nowhere to go (before the first story): it snaps back like a short drag.
            }
            syncPlayback()
            guard !state.reduceMotion, moved > 0 else { return }
            let neighbour = ViewerState(storyIndex: viewer.storyIndex + (forward ? 1 : -1), itemIndex: 0, startedAt: now)
            state.viewing.transition = .cube(leaving: viewer, arriving: neighbour, forward: forward, from: moved, to: 0, at: now)
        case .dismiss(let offset):
            let scale = max(0, 1 - min(1, offset))
            if commit {
                dismiss()
                if state.viewing.transition != nil {
                    state.viewing.transition = .zoom(viewer, from: scale, to: 0, fullDuration: Transition.dismissDuration, at: now)
                }
            } else {
                syncPlayback()
                guard !state.reduceMotion, scale < 1 else { return }
                state.viewing.transition = .zoom(viewer, from: scale, to: 1, fullDuration: Transition.dismissDuration, at: now)
            }
        }
    }
}
