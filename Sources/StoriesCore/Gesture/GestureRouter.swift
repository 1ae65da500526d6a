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

    public init(_ state: AppState) {
        if state.showsHelp {
            self = .help
        } else if let transition = state.transition {
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
            self = state.opening == nil ? .home : .loading
        }
    }
}

/// What the router needs to know about the screen: its size and which bubble covers a cell
/// (the layout lives in StoriesUI, which passes this in).
public struct GestureSurface {
    public var width: Int
    public var height: Int
    /// False when the terminal is too small to draw the app: the mouse does nothing then.
    public var isUsable: Bool
    public var bubbleAt: (_ column: Int, _ row: Int) -> Int?

    public init(width: Int, height: Int, isUsable: Bool = true, bubbleAt: @escaping (_ column: Int, _ row: Int) -> Int? = { _, _ in nil }) {
        self.width = width
        self.height = height
        self.isUsable = isUsable
        self.bubbleAt = bubbleAt
    }
}

/// The one dispatcher for every input (the LinkedIn design): keys through the key bindings,
/// the mouse through recognizers for tap, hold, swipe, pull-down and open. It keeps the
/// pointer's story (pressed, held, dragging on an axis) and, for each input, sends the
/// actions it became and then a `GestureDecision` saying why. The rules are written down
/// in docs/gestures.md:
///
/// - a viewer click is a tap when released within `holdDelay` without moving: the left
///   third (columns `0 ..< width/3`) goes back, the rest forward;
/// - held still for `holdDelay`, it is a hold: paused until release, and that release never
///   also taps;
/// - a drag locks to the first axis that dominates (cells are twice as tall as wide, so a
///   column counts half a row) and keeps it to the release; horizontal turns the cube,
///   down pulls the viewer towards its bubble; past a quarter of the width (a fifth of the
///   height, at least 2 rows) the release completes it, short of that it snaps back;
/// - any input during an animation first completes the animation, then applies.
public struct GestureRouter: Sendable {
    public static let holdDelay = 0.25

    private enum Axis: String, Sendable { case horizontal, vertical }

    private enum Pointer: Equatable, Sendable {
        case idle
        /// Pressed in the viewer; a tap, a hold or a drag is still possible.
        case pressed(column: Int, row: Int, at: Double)
        /// Held past `holdDelay`: paused until the release.
        case holding(column: Int, row: Int)
        case dragging(Axis, column: Int, row: Int)
        /// Pressed on a bubble of the ring row: the release on the same bubble opens it.
        case pressedBubble(Int)
    }

    public var bindings: KeyBindings
    private var pointer: Pointer = .idle

    public init(bindings: KeyBindings = .standard) {
        self.bindings = bindings
    }

    /// When the router wants `wake(at:)` called (the hold check), if it does.
    public var wakeAt: Double? {
        if case .pressed(_, _, let time) = pointer { return time + Self.holdDelay }
        return nil
    }

    /// Routes one input. `state` is read afresh for each step, since `send` applies each
    /// action at once (an unbound Alt+key is read as Esc then the key, the second in the
    /// context the first left).
    public mutating func route(_ event: InputEvent, at time: Double, surface: GestureSurface,
                               state: () -> AppState, send: (AppAction) -> Void) {
        var decision = GestureDecision(time: time, input: Self.describe(event), gesture: "none", handler: "-")
        var actions: [AppAction] = []
        let phase = GesturePhase(state())
        if state().transition != nil, Self.isDeliberate(event) {
            send(.completeTransition)
            decision.result.append(Self.describe(.completeTransition))
            decision.notes.append("the \(phase.rawValue) animation ended at once, then the input applied")
        }
        switch event {
        case .key:
            let keys = bindings.resolving(event, in: state().inputContext)
            guard keys == [event] else {
                decision.gesture = "Esc then \(keys.last.map { Self.describe($0) } ?? "")"
                decision.handler = "keys"
                decision.notes.append("read as two keys (no binding for \(event))")
                send(.gestureDecided(decision))
                for key in keys { route(key, at: time, surface: surface, state: state, send: send) }
                return
            }
            routeKey(event, state: state(), decision: &decision, actions: &actions)
        case .mouse(let mouse):
            if !surface.isUsable {
                decision.declined.append(.init("all", "the terminal is too small to use"))
            } else {
                routeMouse(mouse, at: time, surface: surface, state: state(), decision: &decision, actions: &actions)
            }
        }
        for action in actions { send(action) }
        decision.result += actions.map(Self.describe)
        send(.gestureDecided(decision))
    }

    /// The hold check: called at `wakeAt`. A pointer still pressed there, unmoved, becomes a
    /// hold and pauses the viewer.
    public mutating func wake(at time: Double, send: (AppAction) -> Void) {
        guard case .pressed(let column, let row, let pressedAt) = pointer, time + 1e-9 >= pressedAt + Self.holdDelay else { return }
        pointer = .holding(column: column, row: row)
        var decision = GestureDecision(time: time, input: "timer: pressed \(Self.milliseconds(time - pressedAt)) without moving",
                                       gesture: "hold", handler: "viewer.playback")
        decision.declined = [.init("tap", "still pressed after \(Self.milliseconds(Self.holdDelay))"),
                             .init("swipe", "no movement"), .init("pullDown", "no movement")]
        send(.hold(true))
        decision.result = [Self.describe(.hold(true))]
        send(.gestureDecided(decision))
    }

    // MARK: - Keys

    private func routeKey(_ event: InputEvent, state: AppState, decision: inout GestureDecision, actions: inout [AppAction]) {
        let context = state.inputContext
        guard let command = bindings.command(for: event, in: context) else {
            decision.declined.append(.init("keys.\(context.rawValue)", "no binding for \(event)"))
            return
        }
        let (gesture, handler) = Self.meaning(of: command, in: state)
        decision.gesture = gesture
        decision.handler = handler
        actions.append(.command(command))
    }

    /// The gesture a command stands for and the handler that takes it.
    public static func meaning(of command: Command, in state: AppState) -> (String, String) {
        switch command {
        case .nextItem: ("tap right", "viewer.tapZones")
        case .previousItem: ("tap left", "viewer.tapZones")
        case .nextStory: ("swipe to the next story", "viewer.cube")
        case .previousStory: ("swipe to the previous story", "viewer.cube")
        case .dismiss: state.viewer == nil ? ("stop opening", "home.loadingRing") : ("pull down (dismiss)", "viewer.pullDown")
        case .togglePause: ("hold (toggle)", "viewer.playback")
        case .toggleFit: ("fit or fill", "viewer.photo")
        case .open: ("open", "home.ring")
        case .selectNext, .selectPrevious, .selectFirst, .selectLast: ("choose a story", "home.ring")
        case .toggleHelp, .closeHelp: ("help", "overlay.help")
        case .toggleGestures: ("gesture log", "overlay.gestures")
        case .toggleMetrics: ("metrics", "overlay.metrics")
        case .quit: ("quit", "app")
        }
    }

    // MARK: - Mouse

    private mutating func routeMouse(_ mouse: MouseEvent, at time: Double, surface: GestureSurface, state: AppState,
                                     decision: inout GestureDecision, actions: inout [AppAction]) {
        if state.showsHelp {
            if case .press = mouse.kind {
                decision.gesture = "click"
                decision.handler = "overlay.help"
                actions.append(.command(.closeHelp))
            } else {
                decision.declined.append(.init("help", "only a click closes the help"))
            }
            pointer = .idle
            return
        }
        if state.viewer != nil {
            routeViewer(mouse, at: time, surface: surface, state: state, decision: &decision, actions: &actions)
        } else {
            routeHome(mouse, surface: surface, decision: &decision, actions: &actions)
        }
    }

    private mutating func routeHome(_ mouse: MouseEvent, surface: GestureSurface,
                                    decision: inout GestureDecision, actions: inout [AppAction]) {
        switch mouse.kind {
        case .wheelDown, .wheelRight, .wheelUp, .wheelLeft:
            let forward = mouse.kind == .wheelDown || mouse.kind == .wheelRight
            decision.gesture = forward ? "scroll on" : "scroll back"
            decision.handler = "home.ring"
            actions.append(.command(forward ? .selectNext : .selectPrevious))
        case .press(.left):
            if let index = surface.bubbleAt(mouse.column, mouse.row) {
                pointer = .pressedBubble(index)
                decision.gesture = "press on bubble \(index + 1)"
                decision.handler = "home.ring"
                decision.notes.append("opens on release over the same bubble")
            } else {
                pointer = .idle
                decision.declined.append(.init("open", "no bubble at \(mouse.column),\(mouse.row)"))
            }
        case .release(.left):
            defer { pointer = .idle }
            guard case .pressedBubble(let index) = pointer else {
                decision.declined.append(.init("open", "no press on a bubble to end"))
                return
            }
            guard surface.bubbleAt(mouse.column, mouse.row) == index else {
                decision.declined.append(.init("open", "released off bubble \(index + 1)"))
                return
            }
            decision.gesture = "click on bubble \(index + 1)"
            decision.handler = "home.ring"
            actions += [.select(index), .command(.open)]
        case .drag(.left):
            decision.declined.append(.init("open", "the row does not drag"))
        default:
            decision.declined.append(.init("all", "\(Self.describe(.mouse(mouse))) means nothing on the row"))
        }
    }

    private mutating func routeViewer(_ mouse: MouseEvent, at time: Double, surface: GestureSurface, state: AppState,
                                      decision: inout GestureDecision, actions: inout [AppAction]) {
        let width = max(1, surface.width), height = max(1, surface.height)
        switch mouse.kind {
        case .press(.left):
            pointer = .pressed(column: mouse.column, row: mouse.row, at: time)
            decision.gesture = "press"
            decision.handler = "router"
            decision.notes.append("waiting: tap on release, hold at \(Self.milliseconds(Self.holdDelay)), or drag")
        case .drag(.left):
            let start: (column: Int, row: Int, holding: Bool)
            switch pointer {
            case .pressed(let column, let row, _): start = (column, row, false)
            case .holding(let column, let row): start = (column, row, true)
            case .dragging(let axis, let column, let row):
                follow(axis, dx: mouse.column - column, dy: mouse.row - row, width: width, height: height,
                       decision: &decision, actions: &actions)
                return
            default:
                decision.declined.append(.init("swipe", "no press to drag from"))
                return
            }
            let dx = mouse.column - start.column, dy = mouse.row - start.row
            // The first axis to dominate wins: a column is half as tall as a row.
            let axis: Axis
            if abs(dx) >= 2, abs(dx) >= 2 * abs(dy) {
                axis = .horizontal
            } else if abs(dy) >= 1, 2 * abs(dy) > abs(dx) {
                axis = .vertical
            } else {
                decision.gesture = "drag (still under the slop)"
                decision.handler = "router"
                decision.declined += [.init("swipe", "moved \(abs(dx)) columns, under 2"), .init("pullDown", "moved \(abs(dy)) rows, under 1")]
                return
            }
            pointer = .dragging(axis, column: start.column, row: start.row)
            if start.holding { actions.append(.hold(false)) } // the drag pauses in its own right
            decision.declined.append(axis == .horizontal
                ? .init("pullDown", "locked to horizontal: \(abs(dx)) columns against \(abs(dy)) rows")
                : .init("swipe", "locked to vertical: \(abs(dy)) rows against \(abs(dx)) columns"))
            follow(axis, dx: dx, dy: dy, width: width, height: height, decision: &decision, actions: &actions)
        case .release(.left):
            defer { pointer = .idle }
            switch pointer {
            case .pressed(let column, _, let pressedAt):
                let zoneEdge = width / 3
                let back = column < zoneEdge
                decision.gesture = back ? "tap left" : "tap right"
                decision.handler = "viewer.tapZones"
                decision.declined = [.init("hold", "released after \(Self.milliseconds(time - pressedAt)), under \(Self.milliseconds(Self.holdDelay))"),
                                     .init("swipe", "moved \(abs(mouse.column - column)) columns, under 2")]
                decision.notes.append("column \(column) is in the \(back ? "left third (0–\(zoneEdge - 1))" : "right two thirds (\(zoneEdge)–\(width - 1))")")
                actions.append(.command(back ? .previousItem : .nextItem))
            case .holding:
                decision.gesture = "hold ended"
                decision.handler = "viewer.playback"
                decision.declined = [.init("tap", "released after a hold")]
                actions.append(.hold(false))
            case .dragging(let axis, let column, let row):
                let dx = mouse.column - column, dy = mouse.row - row
                let commit: Bool
                switch axis {
                case .horizontal:
                    commit = abs(dx) * 4 >= width
                    decision.gesture = commit ? (dx < 0 ? "swipe to the next story" : "swipe to the previous story") : "swipe cancelled (snaps back)"
                    decision.handler = "viewer.cube"
                    decision.notes.append("\(abs(dx)) of \(width) columns, \(commit ? "at least" : "under") a quarter")
                case .vertical:
                    let threshold = Self.pullDownThreshold(height: height)
                    commit = dy >= threshold
                    decision.gesture = commit ? "pull down (dismiss)" : "pull down cancelled (snaps back)"
                    decision.handler = "viewer.pullDown"
                    decision.notes.append("\(max(0, dy)) rows down, \(commit ? "at least" : "under") \(threshold)")
                }
                decision.declined = [.init("tap", "the pointer moved")]
                actions.append(.endDrag(commit: commit))
            default:
                decision.declined.append(.init("tap", "no press to end"))
            }
        case .wheelUp, .wheelDown, .wheelLeft, .wheelRight:
            decision.declined.append(.init("all", "the wheel means nothing in the viewer"))
        case .press, .release, .drag:
            decision.declined.append(.init("all", "only the left button taps, holds and drags"))
        case .move:
            decision.declined.append(.init("all", "no button held"))
        }
    }

    /// The screen follows a drag locked to an axis.
    private func follow(_ axis: Axis, dx: Int, dy: Int, width: Int, height: Int,
                        decision: inout GestureDecision, actions: inout [AppAction]) {
        switch axis {
        case .horizontal:
            decision.gesture = "swipe (following)"
            decision.handler = "viewer.cube"
            actions.append(.drag(.swipe(offset: max(-1, min(1, Double(dx) / Double(width))))))
        case .vertical:
            decision.gesture = dy > 0 ? "pull down (following)" : "drag up"
            decision.handler = "viewer.pullDown"
            if dy <= 0 { decision.declined.append(.init("pullDown", "moving up")) }
            actions.append(.drag(.dismiss(offset: max(0, min(1, Double(dy) / Double(height))))))
        }
    }

    /// Rows a pull-down must travel to dismiss: a fifth of the height, at least 2.
    public static func pullDownThreshold(height: Int) -> Int { max(2, height / 5) }

    /// Inputs that interrupt an animation: everything but a pointer merely moving.
    private static func isDeliberate(_ event: InputEvent) -> Bool {
        if case .mouse(let mouse) = event, mouse.kind == .move { return false }
        return true
    }

    // MARK: - Words

    static func milliseconds(_ seconds: Double) -> String { "\(Int((seconds * 1000).rounded())) ms" }

    public static func describe(_ event: InputEvent) -> String {
        switch event {
        case .key: return "key \(event)"
        case .mouse(let mouse):
            let kind: String
            switch mouse.kind {
            case .press(let button): kind = "press \(button)"
            case .release(let button): kind = "release \(button)"
            case .drag(let button): kind = "drag \(button)"
            case .move: kind = "move"
            case .wheelUp: kind = "wheel up"
            case .wheelDown: kind = "wheel down"
            case .wheelLeft: kind = "wheel left"
            case .wheelRight: kind = "wheel right"
            }
            return "mouse \(kind) at \(mouse.column),\(mouse.row)"
        }
    }

    public static func describe(_ action: AppAction) -> String {
        switch action {
        case .command(let command): return command.rawValue
        case .select(let index): return "select \(index + 1)"
        case .hold(let held): return held ? "hold (pause)" : "release hold (play)"
        case .drag(.swipe(let offset)): return "drag swipe \(format(offset))"
        case .drag(.dismiss(let offset)): return "drag down \(format(offset))"
        case .endDrag(let commit): return commit ? "end drag: complete" : "end drag: snap back"
        case .completeTransition: return "completeTransition"
        default: return "\(action)"
        }
    }

    private static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        return "\(sign)\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
    }
}
