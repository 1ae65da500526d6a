/// Where the app is, as far as routing goes: the same input means different things in each.
public enum GesturePhase: String, Equatable, Sendable {
    /// The ring row.
    case home
    /// The ring row while a story's items load (the loading ring turns).
    case loading
    /// The viewer growing out of a bubble (or back after a short pull-down).
    case presenting
    /// The viewer, still.
    case viewing
    /// A cube turning between stories, or a swipe being dragged.
    case transitioning
    /// The viewer shrinking into its bubble, or a pull-down being dragged.
    case dismissing
    /// The help overlay has the keyboard.
    case help
    /// The list of feed problems has the keyboard.
    case problems

    public init(_ state: AppState) {
        if let modal = state.chrome.modal {
            self = modal == .help ? .help : .problems
        } else if let transition = state.viewing.transition {
            switch transition.kind {
            case .cube: self = .transitioning
            case .zoom:
                let growing = (transition.timeline.steps.first.map { $0.to > $0.from }) ?? false
                self = growing ? .presenting : .dismissing
            }
        } else if let drag = state.drag {
            switch drag {
            case .swipe: self = .transitioning
            case .dismiss: self = .dismissing
            }
        } else if state.viewer != nil {
            self = .viewing
        } else {
            self = state.row.opening == nil ? .home : .loading
        }
    }
}

/// What one input did, decided by `GestureRecognizer`: the pointer's new gesture, the
/// steps the reducer applies in order, and the decision for the gesture log.
public struct Recognition: Equatable, Sendable {
    public var pointer: Pointer
    public var steps: [GestureStep]
    public var decision: GestureDecision
}

/// A step an input leads to. A hold and a drag being followed need none: they are the
/// pointer's state, which the reducer sets before it applies the steps.
public enum GestureStep: Equatable, Sendable {
    /// Input during an animation: it jumps to its end before the input applies.
    case completeTransition
    case command(Command)
    /// Highlight the story at an index of the ring row (a click on its bubble).
    case select(Int)
    /// Give the keyboard to a cell of a home section (a click on it).
    case focusCell(section: Int, cell: Int)
    /// A drag let go: past its threshold it completes (next story, dismiss), short of it
    /// the screen snaps back from where the pointer left it.
    case endDrag(Drag, commit: Bool)
    /// A key typed into the `/` field.
    case searchEdit(SearchEdit)
}

/// What a key does to the `/` field.
public enum SearchEdit: Equatable, Sendable {
    case insert(Character)
    case deleteBackward
    /// Ctrl-U: the whole text.
    case clear
    /// Tab, ↓: the next story that matches (round to the first); Shift-Tab, ↑: the one before.
    case next, previous
    /// Enter: done where it is, or (nothing loaded matches) look further along the feed.
    case submit
    /// Esc: back to the story selected before.
    case cancel
    /// A click elsewhere: done where it is.
    case close
}

/// The rules that turn an input into a gesture (the LinkedIn design: one dispatcher for
/// every input): keys through the key bindings, the mouse through recognizers for tap,
/// hold, swipe, pull-down and open. A pure function of the input and `AppState` — the
/// pointer's gesture so far is `AppState.pointer` — called by the reducer, which applies
/// what it decided in the same run. The rules are written down in docs/gestures.md:
///
/// - a viewer click is a tap when released within `holdDelay` without moving: the left
///   third (columns `0 ..< width/3`) goes back, the rest forward;
/// - held still for `holdDelay` (the reducer asks the runtime for a wake-up), it is a
///   hold: paused until release, and that release never also taps;
/// - a drag locks to the first axis that dominates (cells are twice as tall as wide, so a
///   column counts half a row) and keeps it to the release; horizontal turns the cube,
///   down pulls the viewer towards its bubble; past a quarter of the width (a fifth of the
///   height, at least 2 rows) the release completes it, short of that it snaps back;
/// - any input during an animation first completes the animation, then applies.
public enum GestureRecognizer {
    public static let holdDelay = 0.25

    /// What a key or mouse input means now. Keys arrive one at a time: an Alt+key that no
    /// binding takes is split by the reducer (`KeyBindings.resolving`) before it comes here.
    public static func recognize(_ event: InputEvent, at time: Double, in state: AppState) -> Recognition {
        var decision = GestureDecision(time: time, input: describe(event), gesture: "none", handler: "-")
        var steps: [GestureStep] = []
        var pointer = state.gesture.pointer
        let phase = GesturePhase(state)
        if state.viewing.transition != nil, isDeliberate(event) {
            steps.append(.completeTransition)
            decision.notes.append("the \(phase.rawValue) animation ended at once, then the input applied")
        }
        switch event {
        case .key:
            if !pointer.isIdle {
                pointer = .idle
                decision.notes.append("a key calls off the mouse gesture in progress")
            }
            recognizeKey(event, state: state, decision: &decision, steps: &steps)
        case .mouse(let mouse):
            // Coordinates are already within `InputLimits` (held there by `MouseEvent` itself).
            if !state.isUsable {
                pointer = .idle
                decision.declined.append(.init("all", "the terminal is too small to use"))
            } else {
                recognizeMouse(mouse, at: time, state: state, pointer: &pointer, decision: &decision, steps: &steps)
            }
        }
        decision.result = steps.map(describe) + decision.result
        return Recognition(pointer: pointer, steps: steps, decision: decision)
    }

    /// When the pointer wants the hold check (`wake(.hold)`), if it does.
    public static func holdCheckTime(_ pointer: Pointer) -> Double? {
        if case .pressed(_, _, let time) = pointer { return time + holdDelay }
        return nil
    }

    /// The hold check, at its time: a pointer still pressed there, unmoved, becomes a hold
    /// and pauses the viewer. Nil when the press has already become something else.
    public static func holdCheck(at time: Double, in state: AppState) -> Recognition? {
        guard case .pressed(let column, let row, let pressedAt) = state.gesture.pointer, state.viewer != nil,
              time + 1e-9 >= pressedAt + holdDelay else { return nil }
        var decision = GestureDecision(time: time, input: "timer: pressed \(milliseconds(time - pressedAt)) without moving",
                                       gesture: "hold", handler: "viewer.playback")
        decision.declined = [.init("tap", "still pressed after \(milliseconds(holdDelay))"),
                             .init("swipe", "no movement"), .init("pullDown", "no movement")]
        decision.result = ["hold (pause)"]
        return Recognition(pointer: .holding(column: column, row: row), steps: [], decision: decision)
    }

    // MARK: - Keys

    private static func recognizeKey(_ event: InputEvent, state: AppState, decision: inout GestureDecision, steps: inout [GestureStep]) {
        let context = state.inputContext
        // The `/` field has the keyboard on the row: its keys are bindings of context
        // `search` like any other (keys.conf can change them); a printable key types.
        if context == .search {
            recognizeSearchKey(event, state: state, decision: &decision, steps: &steps)
            return
        }
        guard var command = state.bindings.command(for: event, in: context) else {
            decision.declined.append(.init("keys.\(context.rawValue)", "no binding for \(event)"))
            return
        }
        // Right to left, a key that points along the screen goes the way it points: ← to
        // the next item or story (the ring row runs from the right; the sections do not).
        let mirrorsHere = context == .viewer || (context == .home && state.home.level.focus == nil)
        if state.isRightToLeft, mirrorsHere, event.isSideways, let mirrored = command.mirrored {
            decision.notes.append("right to left: \(event) is \(mirrored.rawValue), not \(command.rawValue)")
            command = mirrored
        }
        let (gesture, handler) = Self.meaning(of: command, in: state)
        decision.gesture = gesture
        decision.handler = handler
        steps.append(.command(command))
    }

    /// The `/` field has the keyboard: a binding of context `search` (an edit, or Ctrl-L's
    /// redraw), else a printable key types into it.
    private static func recognizeSearchKey(_ event: InputEvent, state: AppState, decision: inout GestureDecision,
                                       steps: inout [GestureStep]) {
        guard case .key(let key, let modifiers) = event else { return }
        if let command = state.bindings.command(for: event, in: .search) {
            // An edit is the field's; any other command (Ctrl-L's redraw) is whose it always is.
            (decision.gesture, decision.handler) = command.searchEdit == nil ? Self.meaning(of: command, in: state)
                : ("edit the / field", "keys.search")
            steps.append(command.searchEdit.map(GestureStep.searchEdit) ?? .command(command))
            return
        }
        guard case .character(let c) = key, modifiers.isDisjoint(with: [.control, .alt]) else {
            decision.declined.append(.init("keys.search", "\(event) does nothing in the / field"))
            return
        }
        decision.gesture = "type in the / field"
        decision.handler = "home.search"
        steps.append(.searchEdit(.insert(c)))
    }

    /// The gesture a command stands for and the handler that takes it.
    public static func meaning(of command: Command, in state: AppState) -> (String, String) {
        switch command {
        case .nextItem: ("tap right", "viewer.tapZones")
        case .previousItem: ("tap left", "viewer.tapZones")
        case .nextStory: ("swipe to the next story", "viewer.cube")
        case .previousStory: ("swipe to the previous story", "viewer.cube")
        case .dismiss:
            if state.viewer != nil { ("pull down (dismiss)", "viewer.pullDown") }
            else if state.row.opening != nil { ("stop opening", "home.loadingRing") }
            else if state.home.levels.count > 1 { ("back", "home.sections") }
            else { ("back to the row", "home.sections") }
        case .togglePause: ("hold (toggle)", "viewer.playback")
        case .toggleFit: ("fit or fill", "viewer.photo")
        case .toggleSound: ("sound off or on", "viewer.sound")
        case .open: state.home.level.focus == nil ? ("open", "home.ring") : ("run the cell's action", "home.sections")
        case .selectNext, .selectPrevious, .selectFirst, .selectLast:
            state.home.level.focus == nil ? ("choose a story", "home.ring") : ("choose a cell", "home.sections")
        case .focusUp, .focusDown: ("move between sections", "home.sections")
        case .toggleHelp: ("help", "overlay.help")
        case .closeBox: state.chrome.modal == .problems ? ("close", "overlay.problems") : ("close", "overlay.help")
        case .toggleProblems: ("feed problems", "overlay.problems")
        case .screenfulNext, .screenfulPrevious:
            if state.chrome.modal != nil { ("scroll", state.chrome.modal == .problems ? "overlay.problems" : "overlay.help") }
            else { state.home.level.focus == nil ? ("a screenful", "home.ring") : ("a screenful", "home.sections") }
        case .nextUnseen: state.viewer == nil ? ("next unseen story", "home.ring") : ("next unseen story", "viewer.cube")
        case .search: ("find by name", "home.search")
        case .toggleGestures: ("gesture log", "overlay.gestures")
        case .toggleMetrics: ("metrics", "overlay.metrics")
        case .quit: ("quit", "app")
        case .redraw: ("redraw", "app")
        case .suspend: ("stop the process", "app")
        case .openLink: ("open the link", "viewer.link")
        case .toggleLinkAddress: ("show the link's address", "viewer.link")
        case .copyLink: ("copy the link", "viewer.link")
        case .searchNext, .searchPrevious, .searchSubmit, .searchCancel, .searchDeleteBackward, .searchClear:
            ("edit the / field", "home.search")
        case .stepNext, .stepFrame: ("step the replay", "replay.step")
        }
    }


}
