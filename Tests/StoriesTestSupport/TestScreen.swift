import StoriesUI
import StoriesCells
import StoriesCore

/// A terminal for tests: it takes the same `CanvasDiff`s the ncurses backend takes and
/// keeps what a terminal would then show, wide characters included (writing over half of
/// one blanks the other half). Its `canvas` is what a person would see.
public final class TestScreen {
    public private(set) var canvas: Canvas
    private var last: Canvas?
    /// The pictures in real pixels the last frame asked for (a terminal that shows them
    /// writes these over the cells).
    public var pictures: [Canvas.PictureRegion] { last?.pictures ?? [] }

    public init(width: Int, height: Int) {
        canvas = Canvas(width: width, height: height)
    }

    /// Draws a frame the way the terminal backend does: only what changed since the last.
    public func draw(_ frame: Canvas) {
        apply(frame.diff(from: last))
        last = frame
    }

    public func apply(_ diff: CanvasDiff) {
        var cells = diff.isFull || canvas.width != diff.width || canvas.height != diff.height
            ? Array(repeating: Cell.blank, count: diff.width * diff.height) : canvas.cells
        let width = diff.width
        for change in diff.changes where change.x >= 0 && change.x < width && change.y >= 0 && change.y < diff.height {
            let index = change.y * width + change.x
            // Half of a wide character is overwritten: the terminal blanks the other half.
            if cells[index].isContinuation, change.x > 0 { cells[index - 1] = Cell(" ", style: cells[index - 1].style) }
            if change.x + 1 < width, cells[index + 1].isContinuation { cells[index + 1] = Cell(" ", style: cells[index + 1].style) }
            cells[index] = change.cell
            if let grapheme = change.cell.grapheme, DisplayWidth.of(grapheme) == 2, change.x + 1 < width {
                // Its right half lands on the next cell: a wide character starting there loses its own.
                if change.x + 2 < width, cells[index + 2].isContinuation { cells[index + 2] = Cell(" ", style: cells[index + 2].style) }
                cells[index + 1] = .continuation(change.cell.style)
            }
        }
        canvas = Canvas(width: diff.width, height: diff.height, cells: cells)
    }

    public var lines: [String] { Snapshot.lines(of: canvas) }
    public var text: String { lines.joined(separator: "\n") }
    public func snapshot(styles: Bool = false) -> String { Snapshot.text(of: canvas, styles: styles) }
}
