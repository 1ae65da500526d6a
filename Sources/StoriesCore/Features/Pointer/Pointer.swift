/// The mouse pointer's gesture in progress. Kept in `PointerState` and changed only by the
/// reducer (through `GestureRecognizer`), so the screen, the progress bar and the gesture
/// log can never disagree about whether something is pressed, held or dragged.
public enum Pointer: Equatable, Sendable {
    case idle
    /// Pressed in the viewer; a tap, a hold or a drag is still possible.
    case pressed(column: Int, row: Int, at: Double)
    /// Held still past `GestureRecognizer.holdDelay`: paused until the release.
    case holding(column: Int, row: Int)
    /// Dragging, locked to an axis, from a start cell; `drag` is what the screen follows.
    case dragging(DragAxis, column: Int, row: Int, drag: Drag)
    /// Pressed on a bubble of the ring row: the release on the same bubble opens it.
    case pressedBubble(Int)
    /// Pressed on a cell of a home section: the release on the same cell runs its action.
    case pressedCell(section: Int, cell: Int)
    /// Pressed on a key of the hint line, or the ring row's ‹ ›: the release there runs it.
    case pressedButton(Command)

    public var drag: Drag? {
        if case .dragging(_, _, _, let drag) = self { return drag }
        return nil
    }

    public var isIdle: Bool { self == .idle }
}
/// The axis a drag locked to.
public enum DragAxis: String, Equatable, Sendable {
    case horizontal, vertical
}
