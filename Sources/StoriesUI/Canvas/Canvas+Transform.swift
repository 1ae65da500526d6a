import StoriesCells
import StoriesCore

/// Whole-canvas operations for animations: darkening and scaled copies. Scaling samples
/// the nearest cell; a wide grapheme that would be cut becomes a blank in its style, so a
/// scaled canvas never holds half a character.
extension Canvas {
    /// Every cell's colours at `factor` of their brightness (1: unchanged, 0: black); the
    /// glyphs stay. The terminal's default colours count as light grey on black.
    public mutating func shade(_ factor: Double) {
        guard factor < 1 else { return }
        // Colours only, in place: a wide grapheme keeps both its cells.
        for index in cells.indices { setStyle(at: index, Self.shaded(cells[index].style, factor)) }
    }

    static func shaded(_ style: Style, _ factor: Double) -> Style {
        func scale(_ color: Color, default light: (UInt8, UInt8, UInt8)) -> Color {
            let (r, g, b): (UInt8, UInt8, UInt8)
            switch color {
            case .default: (r, g, b) = light
            case .rgb(let red, let green, let blue): (r, g, b) = (red, green, blue)
            case .palette(let index): (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
            }
            let f = max(0, min(1, factor))
            return .rgb(UInt8(Double(r) * f), UInt8(Double(g) * f), UInt8(Double(b) * f))
        }
        var copy = style
        copy.foreground = scale(style.foreground, default: (208, 208, 208))
        copy.background = style.background == .default && factor >= 0.999 ? .default : scale(style.background, default: (0, 0, 0))
        return copy
    }

    /// The cell of `source` that lands on a cell of a copy scaled into `rect`, as a
    /// one-column grapheme and its style.
    static func sample(_ source: Canvas, x: Int, y: Int) -> (Character, Style) {
        let cell = source[max(0, min(source.width - 1, x)), max(0, min(source.height - 1, y))]
        guard let grapheme = cell.grapheme, DisplayWidth.of(grapheme) == 1 else { return (" ", cell.style) }
        return (grapheme, cell.style)
    }

    /// Draws `source` scaled into `rect` (clipped to this canvas).
    public mutating func draw(_ source: Canvas, scaledInto rect: Rect) {
        guard rect.width > 0, rect.height > 0, source.width > 0, source.height > 0 else { return }
        for ty in max(0, rect.y)..<min(height, rect.maxY) {
            let sy = (ty - rect.y) * source.height / rect.height
            for tx in max(0, rect.x)..<min(width, rect.maxX) {
                let sx = (tx - rect.x) * source.width / rect.width
                let (grapheme, style) = Self.sample(source, x: sx, y: sy)
                put(grapheme, width: 1, x: tx, y: ty, style: style)
            }
        }
    }
}

