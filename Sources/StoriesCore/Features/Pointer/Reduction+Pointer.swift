// The Pointer feature: keys and mouse reports become gestures (`GestureRecognizer`), their
// steps go to the parent (the Navigation feature applies them), and each decision is logged
// for the `g` overlay.
extension Reduction {
    /// One input: a key that no binding takes with Alt is read as Esc and then the key,
    /// each recognised in the state the one before left.
    mutating func input(_ event: InputEvent, at time: Double) {
        if case .key = event { delegate(.notice(nil)) } // the notice was read
        if case .mouse(let mouse) = event, case .press = mouse.kind { delegate(.notice(nil)) }
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
                if case .endDrag(let drag, _) = step { delegate(.step(.endDrag(drag, commit: false))) }
                continue
            }
            delegate(.step(step))
        }
        log(decision)
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
}
