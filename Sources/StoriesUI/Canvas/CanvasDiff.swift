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
    /// How far (levels a channel) a cell may be from what is shown and be left alone: what
    /// the diff was taken with, and what a writer keeps colours within (0: exact).
    public var tolerance = 0
}

extension Canvas {
    /// The cells that differ from `old` (all of them when there is no `old` of this size).
    ///
    /// `tolerance` (0–255 levels a channel; 0, the screen's, means exact): a cell whose
    /// grapheme and attributes are the same and whose two colours are each within it of
    /// `old`'s is unchanged. `old` is then what the terminal shows — never the frame before —
    /// so a slow drift is written once it adds up to more than the tolerance, and the error
    /// never accumulates (`stories play`). Palette and default colours compare exactly.
    public func diff(from old: Canvas?, tolerance: Int = 0) -> CanvasDiff {
        let previous = old.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        let tolerance = max(0, min(255, tolerance))
        func same(_ a: Cell, _ b: Cell) -> Bool {
            guard tolerance > 0 else { return a == b }
            return a.glyph == b.glyph && a.style.attributes == b.style.attributes
                && a.style.foreground.isClose(to: b.style.foreground, within: tolerance)
                && a.style.background.isClose(to: b.style.background, within: tolerance)
        }
        var changes: [CanvasDiff.Change] = []
        let before = previous?.cells ?? []
        cells.withUnsafeBufferPointer { now in
            before.withUnsafeBufferPointer { old in
                for y in 0..<height {
                    let row = y * width
                    for x in 0..<width {
                        let cell = now[row + x]
                        guard !cell.isContinuation else { continue }
                        if !old.isEmpty, same(old[row + x], cell),
                           x + 1 >= width || old[row + x + 1].isContinuation == now[row + x + 1].isContinuation {
                            continue
                        }
                        changes.append(.init(x: x, y: y, cell: cell))
                    }
                }
            }
        }
        return CanvasDiff(width: width, height: height, isFull: previous == nil, changes: changes, tolerance: tolerance)
    }
}
