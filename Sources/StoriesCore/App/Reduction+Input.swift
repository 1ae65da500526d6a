// The parent's side of the Pointer feature: the recognizer reads the whole state, so the
// parent runs it and hands the feature its decision (`PointerFeature`).
extension Reduction {
    /// One input: a key that no binding takes with Alt is read as Esc and then the key,
    /// each recognised in the state the one before left.
    mutating func input(_ event: InputEvent, at time: Double) {
        // The notice was read (not by a stop: `fg` brings the screen back as it was).
        if case .key = event, state.bindings.command(for: event, in: state.inputContext) != .suspend { delegate(.notice(nil)) }
        if case .mouse(let mouse) = event, case .press = mouse.kind { delegate(.notice(nil)) }
        if case .key = event {
            let keys = state.bindings.resolving(event, in: state.inputContext)
            if keys != [event] {
                scope(PointerFeature.self, \.gesture, .splitKey(event, into: keys, at: time), context: state.isUsable)
                for key in keys { apply(GestureRecognizer.recognize(key, at: time, in: state)) }
                return
            }
        }
        apply(GestureRecognizer.recognize(event, at: time, in: state))
    }

    /// What the recognizer decided: the pointer's new gesture, then its steps in order.
    mutating func apply(_ recognition: Recognition) {
        scope(PointerFeature.self, \.gesture, .recognized(recognition), context: state.isUsable)
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
