/// The Pointer feature: keys and mouse reports become gestures (`GestureRecognizer`, run by
/// the parent on the whole state), their steps go to the parent (the Navigation feature
/// applies them), and each decision is logged for the `g` overlay. A scoped reducer
/// (`FeatureReducer`): it sees only `PointerState`, and whether the screen can show
/// anything. (The decision joins the log before the parent applies its steps; nothing the
/// steps do reads the log.)
enum PointerFeature: FeatureReducer {
    enum Action {
        /// What the recognizer decided, in the state as the parent had it.
        case recognized(Recognition)
        /// A key no binding takes with Alt, read as Esc and then the key.
        case splitKey(InputEvent, into: [InputEvent], at: Double)
        /// A decision made elsewhere (a resize) joins the log.
        case log(GestureDecision)
    }

    /// Whether the screen is large enough to show anything (`AppState.isUsable`).
    typealias Context = Bool

    static func reduce(_ gesture: inout PointerState, _ action: Action, context isUsable: Bool, into out: inout FeatureOutput) {
        switch action {
        case .recognized(let recognition):
            gesture.pointer = recognition.pointer
            var decision = recognition.decision
            for step in recognition.steps {
                // Nobody can see anything on a screen too small to draw the app: nothing moves
                // on or is marked seen; only leaving (quit, close the viewer or the help) works.
                if !isUsable, !Reduction.worksWhileTooSmall(step) {
                    decision.notes.append("ignored: the terminal is too small to show anything")
                    decision.result = []
                    // A drag still ends, going back rather than on.
                    if case .endDrag(let drag, _) = step { out.delegate(.step(.endDrag(drag, commit: false))) }
                    continue
                }
                out.delegate(.step(step))
            }
            log(decision, in: &gesture)
        case .splitKey(let event, let keys, let time):
            var decision = GestureDecision(time: time, input: GestureRecognizer.describe(event),
                                           gesture: "Esc then \(keys.last.map { GestureRecognizer.describe($0) } ?? "")",
                                           handler: "keys")
            decision.notes.append("read as two keys (no binding for \(event))")
            log(decision, in: &gesture)
        case .log(let decision):
            log(decision, in: &gesture)
        }
    }

    private static func log(_ decision: GestureDecision, in gesture: inout PointerState) {
        gesture.decisionCount += 1
        gesture.log.append(decision)
        if gesture.log.count > PointerState.logLimit {
            gesture.log.removeFirst(gesture.log.count - PointerState.logLimit)
        }
    }
}
