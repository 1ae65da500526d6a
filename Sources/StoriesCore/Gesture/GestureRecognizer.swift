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
        if let modal = state.modal {
            self = modal == .help ? .help : .problems
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
        var pointer = state.pointer
        let phase = GesturePhase(state)
        if state.transition != nil, isDeliberate(event) {
            steps.append(.completeTransition)
            decision.notes.append("the \(phase.rawValue) animation ended at once, then the input applied")
        }
        switch event {
        case .key:
            if !pointer.isIdle {
                pointer = .idle
                decision.notes.append("a key calls off the mouse gesture in progress")
            }
            routeKey(event, state: state, decision: &decision, steps: &steps)
        case .mouse(let mouse):
            // Coordinates are already within `InputLimits` (held there by `MouseEvent` itself).
            if !state.isUsable {
                pointer = .idle
                decision.declined.append(.init("all", "the terminal is too small to use"))
            } else {
                routeMouse(mouse, at: time, state: state, pointer: &pointer, decision: &decision, steps: &steps)
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
        guard case .pressed(let column, let row, let pressedAt) = state.pointer, state.viewer != nil,
              time + 1e-9 >= pressedAt + holdDelay else { return nil }
        var decision = GestureDecision(time: time, input: "timer: pressed \(milliseconds(time - pressedAt)) without moving",
                                       gesture: "hold", handler: "viewer.playback")
        decision.declined = [.init("tap", "still pressed after \(milliseconds(holdDelay))"),
                             .init("swipe", "no movement"), .init("pullDown", "no movement")]
        decision.result = ["hold (pause)"]
        return Recognition(pointer: .holding(column: column, row: row), steps: [], decision: decision)
    }

    // MARK: - Keys

    private static func routeKey(_ event: InputEvent, state: AppState, decision: inout GestureDecision, steps: inout [GestureStep]) {
        // The `/` field has the keyboard on the row (never in the viewer); Ctrl-L still redraws.
        if state.search != nil, state.modal == nil, state.viewer == nil,
           state.bindings.command(for: event, in: .home) != .redraw {
            routeSearchKey(event, decision: &decision, steps: &steps)
            return
        }
        let context = state.inputContext
        guard let command = state.bindings.command(for: event, in: context) else {
            decision.declined.append(.init("keys.\(context.rawValue)", "no binding for \(event)"))
            return
        }
        let (gesture, handler) = Self.meaning(of: command, in: state)
        decision.gesture = gesture
        decision.handler = handler
        steps.append(.command(command))
    }

    /// The `/` field takes the keyboard: the keys edit it, they are not bindings.
    private static func routeSearchKey(_ event: InputEvent, decision: inout GestureDecision, steps: inout [GestureStep]) {
        guard case .key(let key, let modifiers) = event else { return }
        let edit: SearchEdit?
        switch key {
        case .character(let c) where modifiers.isDisjoint(with: [.control, .alt]): edit = .insert(c)
        case .character("u") where modifiers == .control: edit = .clear
        case .backspace, .delete: edit = .deleteBackward
        case .enter: edit = .submit
        case .escape: edit = .cancel
        case .tab: edit = modifiers.contains(.shift) ? .previous : .next
        case .down: edit = .next
        case .up: edit = .previous
        default: edit = nil
        }
        guard let edit else {
            decision.declined.append(.init("search", "\(event) does nothing in the / field"))
            return
        }
        decision.gesture = "type in the / field"
        decision.handler = "home.search"
        steps.append(.searchEdit(edit))
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
            else if state.opening != nil { ("stop opening", "home.loadingRing") }
            else if state.homeLevels.count > 1 { ("back", "home.sections") }
            else { ("back to the row", "home.sections") }
        case .togglePause: ("hold (toggle)", "viewer.playback")
        case .toggleFit: ("fit or fill", "viewer.photo")
        case .open: state.homeLevel.focus == nil ? ("open", "home.ring") : ("run the cell's action", "home.sections")
        case .selectNext, .selectPrevious, .selectFirst, .selectLast:
            state.homeLevel.focus == nil ? ("choose a story", "home.ring") : ("choose a cell", "home.sections")
        case .focusUp, .focusDown: ("move between sections", "home.sections")
        case .toggleHelp: ("help", "overlay.help")
        case .closeHelp: state.modal == .problems ? ("close", "overlay.problems") : ("close", "overlay.help")
        case .toggleProblems: ("feed problems", "overlay.problems")
        case .pageNext, .pagePrevious:
            if state.modal != nil { ("scroll", state.modal == .problems ? "overlay.problems" : "overlay.help") }
            else { state.homeLevel.focus == nil ? ("a screenful", "home.ring") : ("a screenful", "home.sections") }
        case .nextUnseen: state.viewer == nil ? ("next unseen story", "home.ring") : ("next unseen story", "viewer.cube")
        case .search: ("find by name", "home.search")
        case .toggleGestures: ("gesture log", "overlay.gestures")
        case .toggleMetrics: ("metrics", "overlay.metrics")
        case .quit: ("quit", "app")
        case .redraw: ("redraw", "app")
        case .openLink: ("open the link", "viewer.link")
        case .toggleLinkAddress: ("show the link's address", "viewer.link")
        case .copyLink: ("copy the link", "viewer.link")
        }
    }

    // MARK: - Mouse

    private static func routeMouse(_ mouse: MouseEvent, at time: Double, state: AppState, pointer: inout Pointer,
                                   decision: inout GestureDecision, steps: inout [GestureStep]) {
        if let modal = state.modal {
            let handler = modal == .help ? "overlay.help" : "overlay.problems"
            switch mouse.kind {
            case .press:
                decision.gesture = "click"
                decision.handler = handler
                steps.append(.command(.closeHelp))
            case .wheelDown, .wheelUp:
                decision.gesture = "scroll"
                decision.handler = handler
                steps.append(.command(mouse.kind == .wheelDown ? .pageNext : .pagePrevious))
            default:
                decision.declined.append(.init("help", "only a click closes the box (the wheel scrolls it)"))
            }
            pointer = .idle
            return
        }
        if state.search != nil, case .press = mouse.kind {
            decision.notes.append("a click ends the / field where it is")
            steps.append(.searchEdit(.close))
        }
        // A press on a key of the hint line, or on the ring row's ‹ ›, is a button: its
        // release over the same place runs it.
        if case .press(.left) = mouse.kind, let command = button(atColumn: mouse.column, row: mouse.row, state: state) {
            pointer = .pressedButton(command)
            decision.gesture = "press on \(command.rawValue)"
            decision.handler = "hints"
            decision.notes.append("runs on release over the same key")
            return
        }
        if case .pressedButton(let command) = pointer {
            if case .release(.left) = mouse.kind {
                pointer = .idle
                guard button(atColumn: mouse.column, row: mouse.row, state: state) == command else {
                    decision.declined.append(.init("click", "released off the key for \(command.rawValue)"))
                    return
                }
                let (gesture, handler) = meaning(of: command, in: state)
                decision.gesture = "click: " + gesture
                decision.handler = handler
                steps.append(.command(command))
            } else {
                decision.declined.append(.init("click", "a key of the hint line does not drag"))
            }
            return
        }
        if state.viewer != nil {
            routeViewer(mouse, at: time, state: state, pointer: &pointer, decision: &decision, steps: &steps)
        } else {
            routeHome(mouse, state: state, pointer: &pointer, decision: &decision, steps: &steps)
        }
    }

    private static func routeHome(_ mouse: MouseEvent, state: AppState, pointer: inout Pointer,
                                  decision: inout GestureDecision, steps: inout [GestureStep]) {
        let bubbleAt = { RingLayout.bubbleIndex(atColumn: $0, row: $1, state: state) }
        let cellAt = { HomeGeometry.cell(atColumn: $0, row: $1, state: state) }
        switch mouse.kind {
        case .wheelDown, .wheelRight, .wheelUp, .wheelLeft:
            let forward = mouse.kind == .wheelDown || mouse.kind == .wheelRight
            decision.gesture = forward ? "scroll on" : "scroll back"
            decision.handler = state.homeLevel.focus == nil ? "home.ring" : "home.sections"
            steps.append(.command(forward ? .selectNext : .selectPrevious))
        case .press(.left):
            if let index = bubbleAt(mouse.column, mouse.row) {
                pointer = .pressedBubble(index)
                decision.gesture = "press on bubble \(index + 1)"
                decision.handler = "home.ring"
                decision.notes.append("opens on release over the same bubble")
            } else if let cell = cellAt(mouse.column, mouse.row) {
                pointer = .pressedCell(section: cell.section, cell: cell.cell)
                decision.gesture = "press on cell \(cell.cell + 1) of section \(cell.section + 1)"
                decision.handler = "home.sections"
                decision.notes.append("runs its action on release over the same cell")
            } else {
                pointer = .idle
                decision.declined.append(.init("open", "no bubble or cell at \(mouse.column),\(mouse.row)"))
            }
        case .release(.left):
            defer { pointer = .idle }
            if case .pressedCell(let section, let cell) = pointer {
                guard let at = cellAt(mouse.column, mouse.row), at.section == section, at.cell == cell else {
                    decision.declined.append(.init("open", "released off cell \(cell + 1) of section \(section + 1)"))
                    return
                }
                decision.gesture = "click on cell \(cell + 1) of section \(section + 1)"
                decision.handler = "home.sections"
                steps += [.focusCell(section: section, cell: cell), .command(.open)]
                return
            }
            guard case .pressedBubble(let index) = pointer else {
                decision.declined.append(.init("open", "no press on a bubble or cell to end"))
                return
            }
            guard bubbleAt(mouse.column, mouse.row) == index else {
                decision.declined.append(.init("open", "released off bubble \(index + 1)"))
                return
            }
            decision.gesture = "click on bubble \(index + 1)"
            decision.handler = "home.ring"
            steps += [.select(index), .command(.open)]
        case .drag(.left):
            decision.declined.append(.init("open", "the row does not drag"))
        default:
            decision.declined.append(.init("all", "\(describe(.mouse(mouse))) means nothing on the row"))
        }
    }

    private static func routeViewer(_ mouse: MouseEvent, at time: Double, state: AppState, pointer: inout Pointer,
                                    decision: inout GestureDecision, steps: inout [GestureStep]) {
        let width = max(1, state.screenWidth), height = max(1, state.screenHeight)
        switch mouse.kind {
        case .press(.left):
            pointer = .pressed(column: mouse.column, row: mouse.row, at: time)
            decision.gesture = "press"
            decision.handler = "router"
            decision.notes.append("waiting: tap on release, hold at \(milliseconds(holdDelay)), or drag")
        case .drag(.left):
            let start: (column: Int, row: Int, holding: Bool)
            switch pointer {
            case .pressed(let column, let row, _): start = (column, row, false)
            case .holding(let column, let row): start = (column, row, true)
            case .dragging(let axis, let column, let row, _):
                follow(axis, from: (column, row), to: mouse, width: width, height: height, pointer: &pointer, decision: &decision)
                return
            default:
                decision.declined.append(.init("swipe", "no press to drag from"))
                return
            }
            let dx = mouse.column - start.column, dy = mouse.row - start.row
            // The first axis to dominate wins: a column is half as tall as a row.
            let axis: DragAxis
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
            if start.holding { decision.notes.append("the hold became a drag (which pauses in its own right)") }
            decision.declined.append(axis == .horizontal
                ? .init("pullDown", "locked to horizontal: \(abs(dx)) columns against \(abs(dy)) rows")
                : .init("swipe", "locked to vertical: \(abs(dy)) rows against \(abs(dx)) columns"))
            follow(axis, from: (start.column, start.row), to: mouse, width: width, height: height, pointer: &pointer, decision: &decision)
        case .release(.left):
            defer { pointer = .idle }
            switch pointer {
            case .pressed(let column, _, let pressedAt):
                let zoneEdge = width / 3
                let back = column < zoneEdge
                decision.gesture = back ? "tap left" : "tap right"
                decision.handler = "viewer.tapZones"
                decision.declined = [.init("hold", "released after \(milliseconds(time - pressedAt)), under \(milliseconds(holdDelay))"),
                                     .init("swipe", "moved \(abs(mouse.column - column)) columns, under 2")]
                decision.notes.append("column \(column) is in the \(back ? "left third (0–\(zoneEdge - 1))" : "right two thirds (\(zoneEdge)–\(width - 1))")")
                steps.append(.command(back ? .previousItem : .nextItem))
            case .holding:
                decision.gesture = "hold ended"
                decision.handler = "viewer.playback"
                decision.declined = [.init("tap", "released after a hold")]
                decision.result.append("release hold (play)")
            case .dragging(let axis, let column, let row, let drag):
                let dx = mouse.column - column, dy = mouse.row - row
                let commit: Bool
                switch axis {
                case .horizontal:
                    commit = abs(dx) * 4 >= width
                    decision.gesture = commit ? (dx < 0 ? "swipe to the next story" : "swipe to the previous story") : "swipe cancelled (snaps back)"
                    decision.handler = "viewer.cube"
                    decision.notes.append("\(abs(dx)) of \(width) columns, \(commit ? "at least" : "under") a quarter")
                case .vertical:
                    let threshold = pullDownThreshold(height: height)
                    commit = dy >= threshold
                    decision.gesture = commit ? "pull down (dismiss)" : "pull down cancelled (snaps back)"
                    decision.handler = "viewer.pullDown"
                    decision.notes.append("\(max(0, dy)) rows down, \(commit ? "at least" : "under") \(threshold)")
                }
                decision.declined = [.init("tap", "the pointer moved")]
                // The release point is where the screen snaps back or runs on from.
                steps.append(.endDrag(dragOffset(axis, dx: dx, dy: dy, width: width, height: height) ?? drag, commit: commit))
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

    /// The command a click at this cell runs as a button: a key of the hint line, or the
    /// ring row's ‹ and › (a screenful back and on).
    public static func button(atColumn column: Int, row: Int, state: AppState) -> Command? {
        if let command = HintLine.command(atColumn: column, row: row, state: state) { return command }
        return RingLayout.arrow(atColumn: column, row: row, state: state)
    }

    /// The screen follows a drag locked to an axis.
    private static func follow(_ axis: DragAxis, from start: (column: Int, row: Int), to mouse: MouseEvent, width: Int, height: Int,
                               pointer: inout Pointer, decision: inout GestureDecision) {
        let dx = mouse.column - start.column, dy = mouse.row - start.row
        let drag = dragOffset(axis, dx: dx, dy: dy, width: width, height: height) ?? .swipe(offset: 0)
        pointer = .dragging(axis, column: start.column, row: start.row, drag: drag)
        switch axis {
        case .horizontal:
            decision.gesture = "swipe (following)"
            decision.handler = "viewer.cube"
        case .vertical:
            decision.gesture = dy > 0 ? "pull down (following)" : "drag up"
            decision.handler = "viewer.pullDown"
            if dy <= 0 { decision.declined.append(.init("pullDown", "moving up")) }
        }
        decision.result.append(describe(drag))
    }

    private static func dragOffset(_ axis: DragAxis, dx: Int, dy: Int, width: Int, height: Int) -> Drag? {
        switch axis {
        case .horizontal: .swipe(offset: max(-1, min(1, Double(dx) / Double(width))))
        case .vertical: .dismiss(offset: max(0, min(1, Double(dy) / Double(height))))
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

    public static func describe(_ step: GestureStep) -> String {
        switch step {
        case .command(let command): command.rawValue
        case .select(let index): "select \(index + 1)"
        case .focusCell(let section, let cell): "focus cell \(cell + 1) of section \(section + 1)"
        case .endDrag(_, let commit): commit ? "end drag: complete" : "end drag: snap back"
        case .completeTransition: "completeTransition"
        case .searchEdit(let edit): "search \(edit)"
        }
    }

    public static func describe(_ drag: Drag) -> String {
        switch drag {
        case .swipe(let offset): "drag swipe \(format(offset))"
        case .dismiss(let offset): "drag down \(format(offset))"
        }
    }

    private static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        return "\(sign)\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
    }
}
