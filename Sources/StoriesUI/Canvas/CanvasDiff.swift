/// What to write to turn the screen showing one canvas into another: the ncurses backend
/// writes exactly these cells, and so does `TestScreen`, so tests see what the terminal
/// was sent. A wide grapheme is one change at its first cell (the terminal fills the
/// continuation); a cell is also rewritten when the cell after it stops or starts being a
/// continuation, since the terminal's wide character there was split or made.
public struct CanvasDiff: Equatable, Sendable {
    public struct Change: Equatable, Sendable {
        public var x: Int
        public var y: Int
        public var cell: Cell
    }

    public var width: Int
    public var height: Int
    /// Nothing can be kept (no earlier frame, or another size): clear, then write all.
    public var isFull: Bool
    /// In reading order.
    public var changes: [Change]
}

extension Canvas {
    /// The cells that differ from `old` (all of them when there is no `old` of this size).
    public func diff(from old: Canvas?) -> CanvasDiff {
        let previous = old.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        var changes: [CanvasDiff.Change] = []
        for y in 0..<height {
            for x in 0..<width {
                let cell = self[x, y]
                guard !cell.isContinuation else { continue }
                if let previous, previous[x, y] == cell,
                   x + 1 >= width || previous[x + 1, y].isContinuation == self[x + 1, y].isContinuation {
                    continue
                }
                changes.append(.init(x: x, y: y, cell: cell))
            }
        }
        return CanvasDiff(width: width, height: height, isFull: previous == nil, changes: changes)
    }
}
