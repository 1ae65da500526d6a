extension GestureRecognizer {
    // MARK: - Mouse

    static func recognizeMouse(_ mouse: MouseEvent, at time: Double, state: AppState, pointer: inout Pointer,
                                   decision: inout GestureDecision, steps: inout [GestureStep]) {
        if let modal = state.chrome.modal {
            let handler = modal == .help ? "overlay.help" : "overlay.problems"
            switch mouse.kind {
            case .press:
                decision.gesture = "click"
                decision.handler = handler
                // A click on the hint line's scroll keys scrolls, as the keys do; any other
                // click closes the box.
                if let hinted = HintLine.command(atColumn: mouse.column, row: mouse.row, state: state),
                   hinted == .screenfulNext || hinted == .screenfulPrevious {
                    steps.append(.command(hinted))
                } else {
                    steps.append(.command(.closeBox))
                }
            case .wheelDown, .wheelUp:
                decision.gesture = "scroll"
                decision.handler = handler
                steps.append(.command(mouse.kind == .wheelDown ? .screenfulNext : .screenfulPrevious))
            default:
                decision.declined.append(.init("help", "only a click closes the box (the wheel scrolls it)"))
            }
            pointer = .idle
            return
        }
        if state.row.search != nil, case .press = mouse.kind {
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
            recognizeViewer(mouse, at: time, state: state, pointer: &pointer, decision: &decision, steps: &steps)
        } else {
            recognizeHome(mouse, state: state, pointer: &pointer, decision: &decision, steps: &steps)
        }
    }

    static func recognizeHome(_ mouse: MouseEvent, state: AppState, pointer: inout Pointer,
                                  decision: inout GestureDecision, steps: inout [GestureStep]) {
        let bubbleAt = { RingLayout.bubbleIndex(atColumn: $0, row: $1, state: state) }
        let cellAt = { HomeGeometry.cell(atColumn: $0, row: $1, state: state) }
        switch mouse.kind {
        case .wheelDown, .wheelRight, .wheelUp, .wheelLeft:
            let forward = mouse.kind == .wheelDown || mouse.kind == .wheelRight
            decision.gesture = forward ? "scroll on" : "scroll back"
            decision.handler = state.home.level.focus == nil ? "home.ring" : "home.sections"
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

    static func recognizeViewer(_ mouse: MouseEvent, at time: Double, state: AppState, pointer: inout Pointer,
                                    decision: inout GestureDecision, steps: inout [GestureStep]) {
        let width = max(1, state.screenWidth), height = max(1, state.screenHeight)
        switch mouse.kind {
        case .press(.left):
            pointer = .pressed(column: mouse.column, row: mouse.row, at: time)
            decision.gesture = "press"
            decision.handler = "recognizer"
            decision.notes.append("waiting: tap on release, hold at \(milliseconds(holdDelay)), or drag")
        case .drag(.left):
            let start: (column: Int, row: Int, holding: Bool)
            switch pointer {
            case .pressed(let column, let row, _): start = (column, row, false)
            case .holding(let column, let row): start = (column, row, true)
            case .dragging(let axis, let column, let row, _):
                follow(axis, from: (column, row), to: mouse, width: width, height: height, rightToLeft: state.isRightToLeft,
                       pointer: &pointer, decision: &decision)
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
                decision.handler = "recognizer"
                decision.declined += [.init("swipe", "moved \(abs(dx)) columns, under 2"), .init("pullDown", "moved \(abs(dy)) rows, under 1")]
                return
            }
            if start.holding { decision.notes.append("the hold became a drag (which pauses in its own right)") }
            decision.declined.append(axis == .horizontal
                ? .init("pullDown", "locked to horizontal: \(abs(dx)) columns against \(abs(dy)) rows")
                : .init("swipe", "locked to vertical: \(abs(dy)) rows against \(abs(dx)) columns"))
            follow(axis, from: (start.column, start.row), to: mouse, width: width, height: height, rightToLeft: state.isRightToLeft,
                   pointer: &pointer, decision: &decision)
        case .release(.left):
            defer { pointer = .idle }
            switch pointer {
            case .pressed(let column, _, let pressedAt):
                // The back zone is the third the reading starts from: the left, or right to left the right.
                let zoneEdge = width / 3
                let rightToLeft = state.isRightToLeft
                let back = rightToLeft ? column >= width - zoneEdge : column < zoneEdge
                decision.gesture = back == rightToLeft ? "tap right" : "tap left"
                decision.handler = "viewer.tapZones"
                decision.declined = [.init("hold", "released after \(milliseconds(time - pressedAt)), under \(milliseconds(holdDelay))"),
                                     .init("swipe", "moved \(abs(mouse.column - column)) columns, under 2")]
                if rightToLeft {
                    decision.notes.append("right to left: column \(column) is in the \(back ? "right third (\(width - zoneEdge)–\(width - 1)), back" : "left two thirds (0–\(width - zoneEdge - 1)), forward")")
                } else {
                    decision.notes.append("column \(column) is in the \(back ? "left third (0–\(zoneEdge - 1))" : "right two thirds (\(zoneEdge)–\(width - 1))")")
                }
                steps.append(.command(back ? .previousItem : .nextItem))
            case .holding:
                decision.gesture = "hold ended"
                decision.handler = "viewer.playback"
                decision.declined = [.init("tap", "released after a hold")]
                decision.result.append("release hold (play)")
            case .dragging(let axis, let column, let row, let drag):
                // Right to left, a swipe to the right goes to the next story: `dx` is read as the
                // left-to-right screen would have it.
                let dx = (mouse.column - column) * (state.isRightToLeft ? -1 : 1), dy = mouse.row - row
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
    static func follow(_ axis: DragAxis, from start: (column: Int, row: Int), to mouse: MouseEvent, width: Int, height: Int,
                       rightToLeft: Bool = false, pointer: inout Pointer, decision: inout GestureDecision) {
        // The offset is the reading's: negative towards the next story (to the right, right to left).
        let dx = (mouse.column - start.column) * (rightToLeft ? -1 : 1), dy = mouse.row - start.row
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

    static func dragOffset(_ axis: DragAxis, dx: Int, dy: Int, width: Int, height: Int) -> Drag? {
        switch axis {
        case .horizontal: .swipe(offset: max(-1, min(1, Double(dx) / Double(width))))
        case .vertical: .dismiss(offset: max(0, min(1, Double(dy) / Double(height))))
        }
    }

    /// Rows a pull-down must travel to dismiss: a fifth of the height, at least 2.
    public static func pullDownThreshold(height: Int) -> Int { max(2, height / 5) }

    /// Inputs that interrupt an animation: everything but a pointer merely moving.
    static func isDeliberate(_ event: InputEvent) -> Bool {
        if case .mouse(let mouse) = event, mouse.kind == .move { return false }
        return true
    }
}
