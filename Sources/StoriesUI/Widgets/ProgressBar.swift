import StoriesCells
import StoriesCore

/// The viewer's segmented progress bar: one segment per item, the ones before the current
/// item full, the current one filled to `fraction` at half-cell resolution.
public struct ProgressBar {
    public var segments: Int
    public var current: Int
    public var fraction: Double
    /// Right to left (issue 33): the first segment at the right, each filling leftwards.
    public var rightToLeft: Bool

    public init(segments: Int, current: Int, fraction: Double, rightToLeft: Bool = false) {
        self.segments = segments
        self.current = current
        self.fraction = min(1, max(0, fraction))
        self.rightToLeft = rightToLeft
    }

    /// Each segment's width and the gap between segments for a bar `width` cells wide: the
    /// remainder is spread over the first segments so the bar fills the row.
    public static func layout(width: Int, segments: Int) -> (widths: [Int], gap: Int) {
        guard segments > 0, width > 0 else { return ([], 0) }
        let gaps = segments - 1
        let gap = width - gaps >= segments ? 1 : 0
        let available = width - gaps * gap
        let widths = (0..<segments).map { available / segments + ($0 < available % segments ? 1 : 0) }
        return (widths, gap)
    }

    public func draw(into canvas: inout Canvas, in rect: Rect) {
        let (widths, gapWidth) = Self.layout(width: rect.width, segments: segments)
        let done = Style(foreground: Theme.progressDone)
        let todo = Style(foreground: Theme.progressTodo)
        var x = rect.x
        for (index, width) in widths.enumerated() {
            let halves: Int
            if index < current { halves = width * 2 }
            else if index == current { halves = Int((fraction * Double(width * 2)).rounded(.down)) }
            else { halves = 0 }
            for cell in 0..<width {
                let filled = halves - cell * 2
                let half = rightToLeft ? "╺" : "╸" // the filled half: the side the fill comes from
                let (glyph, style) = filled >= 2 ? ("━", done) : (filled == 1 ? (half, done) : ("─", todo))
                let column = x + cell
                canvas.text(glyph, x: rightToLeft ? rect.x + rect.maxX - 1 - column : column, y: rect.y, style: style)
            }
            x += width + gapWidth
        }
    }
}
