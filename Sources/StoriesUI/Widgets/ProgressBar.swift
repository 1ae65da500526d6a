import StoriesCore

/// The viewer's segmented progress bar: one segment per item, the ones before the current
/// item full, the current one filled to `fraction` at half-cell resolution.
public struct ProgressBar {
    public var segments: Int
    public var current: Int
    public var fraction: Double

    public init(segments: Int, current: Int, fraction: Double) {
        self.segments = segments
        self.current = current
        self.fraction = min(1, max(0, fraction))
    }

    public func draw(into canvas: inout Canvas, in rect: Rect) {
        guard segments > 0, rect.width > 0 else { return }
        let gaps = segments - 1
        let gapWidth = rect.width - gaps >= segments ? 1 : 0
        let available = rect.width - gaps * gapWidth
        let done = Style(foreground: Theme.progressDone)
        let todo = Style(foreground: Theme.progressTodo)
        var x = rect.x
        for index in 0..<segments {
            // Spread the remainder over the first segments so the bar fills the row.
            let width = available / segments + (index < available % segments ? 1 : 0)
            let halves: Int
            if index < current { halves = width * 2 }
            else if index == current { halves = Int((fraction * Double(width * 2)).rounded(.down)) }
            else { halves = 0 }
            for cell in 0..<width {
                let filled = halves - cell * 2
                let (glyph, style) = filled >= 2 ? ("━", done) : (filled == 1 ? ("╸", done) : ("─", todo))
                canvas.text(glyph, x: x + cell, y: rect.y, style: style)
            }
            x += width + gapWidth
        }
    }
}
