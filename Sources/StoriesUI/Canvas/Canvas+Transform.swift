import StoriesCells
import StoriesCore

/// Whole-canvas operations for animations: darkening and scaled copies. Scaling samples
/// the nearest cell; a wide grapheme that would be cut becomes a blank in its style, so a
/// scaled canvas never holds half a character.
extension Canvas {
    /// Every cell's colours at `factor` of their brightness (1: unchanged, 0: black); the
    /// glyphs stay. The terminal's default colours count as `defaults` has them (its
    /// background as the display knows it: a light terminal's white darkens through greys,
    /// not from black).
    public mutating func shade(_ factor: Double, defaults: ShadeDefaults = .dark) {
        guard factor < 1 else { return }
        // Colours only, in place: a wide grapheme keeps both its cells.
        for index in cells.indices { setStyle(at: index, Self.shaded(cells[index].style, factor, defaults: defaults)) }
    }

    /// What the terminal's default text and background colours are taken to be when they
    /// are darkened (they have to become real colours to be darker).
    public struct ShadeDefaults: Equatable, Sendable {
        public var foreground: RGB
        public var background: RGB
        public static let dark = ShadeDefaults(foreground: RGB(208, 208, 208), background: Display.dark)

        public init(foreground: RGB, background: RGB) {
            self.foreground = foreground
            self.background = background
        }

        /// As the display has them: its background, and black or light grey text on it.
        public init(_ display: Display) {
            self.init(foreground: display.isLight ? RGB(0, 0, 0) : RGB(208, 208, 208), background: display.background)
        }
    }

    static func shaded(_ style: Style, _ factor: Double, defaults: ShadeDefaults = .dark) -> Style {
        func scale(_ color: Color, default light: RGB) -> Color {
            let (r, g, b): (UInt8, UInt8, UInt8)
            switch color {
            case .default: (r, g, b) = (light.red, light.green, light.blue)
            case .rgb(let red, let green, let blue): (r, g, b) = (red, green, blue)
            case .palette(let index): (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
            }
            let f = max(0, min(1, factor))
            return .rgb(UInt8(Double(r) * f), UInt8(Double(g) * f), UInt8(Double(b) * f))
        }
        var copy = style
        copy.foreground = scale(style.foreground, default: defaults.foreground)
        copy.background = style.background == .default && factor >= 0.999 ? .default : scale(style.background, default: defaults.background)
        return copy
    }

    /// The cell of `source` that lands on a cell of a copy scaled into `rect`, as a
    /// one-column grapheme and its style.
    @inline(__always)
    static func sample(_ source: Canvas, x: Int, y: Int) -> (Glyph, Style) {
        let cell = source[max(0, min(source.width - 1, x)), max(0, min(source.height - 1, y))]
        return (cell.glyph.isOneColumn ? cell.glyph : .space, cell.style)
    }

    /// Draws `source` scaled into `rect` (clipped to this canvas).
    public mutating func draw(_ source: Canvas, scaledInto rect: Rect) {
        guard rect.width > 0, rect.height > 0, source.width > 0, source.height > 0 else { return }
        for ty in max(0, rect.y)..<min(height, rect.maxY) {
            let sy = (ty - rect.y) * source.height / rect.height
            writeRun(y: ty, columns: rect.x..<rect.maxX) { tx in
                let sx = (tx - rect.x) * source.width / rect.width
                let (glyph, style) = Self.sample(source, x: sx, y: sy)
                return Cell(glyph: glyph, style: style)
            }
        }
    }
}


extension Glyph {
    /// Takes one column: a scalar the width table gives one (ASCII, Latin, box drawing and
    /// block symbols at once, without the table).
    @inline(__always) var isOneColumn: Bool {
        guard let scalar else { return false }
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return true }
        if (0x2500...0x259F).contains(value) || CellSymbols.isBlockSymbol(scalar) { return true }
        return DisplayWidth.of(scalar) == 1
    }
}

/// Text in an animation is moved and clipped with its face, never resampled (a scaled row
/// of letters drops some: "Trinin da at he pacecenre."). A face is drawn in two layers: its
/// pictures and marks scaled, with the text's cells as their background; then each run of
/// text at its own size, at the place its row and start land on, cut where the face ends.
extension Canvas {
    /// A run of text in one row: its cells (wide graphemes with their right halves), where
    /// it starts, and whether it ends at the right edge (kept there as the face narrows).
    struct TextRun: Equatable {
        var y: Int
        var x: Int
        var cells: [Cell]
        var hugsRight: Bool
    }

    /// A grapheme that is text: anything but a space, box drawing and block symbols (the
    /// cells pictures, rings and bars are made of: sextants and octants too).
    @inline(__always)
    static func isText(_ cell: Cell) -> Bool {
        let glyph = cell.glyph
        if glyph == .none { return true } // a wide grapheme's right half
        if glyph == .space { return false }
        guard let scalar = glyph.scalar else { return true } // a grapheme of several scalars
        return !(0x2500...0x259F).contains(scalar.value) && !CellSymbols.isBlockSymbol(scalar)
    }

    /// The runs of text in every row: text cells, with single spaces between words kept in
    /// (two spaces or any other cell end a run).
    func textRuns() -> [TextRun] {
        var runs: [TextRun] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                guard Self.isText(self[x, y]), !self[x, y].isContinuation else {
                    x += 1
                    continue
                }
                var end = x
                while end < width {
                    if Self.isText(self[end, y]) {
                        end += 1
                    } else if self[end, y].glyph == .space, end + 1 < width, Self.isText(self[end + 1, y]), !self[end + 1, y].isContinuation {
                        end += 1
                    } else {
                        break
                    }
                }
                runs.append(TextRun(y: y, x: x, cells: (x..<end).map { self[$0, y] }, hugsRight: end >= width - 2))
                x = end
            }
        }
        return runs
    }

    /// The face without its text: each text cell a blank in its background (so a band
    /// under a caption stays a band).
    func withoutText() -> Canvas {
        var copy = self
        for index in cells.indices where Self.isText(cells[index]) {
            copy.record(Cell(glyph: .space, style: Style(background: cells[index].style.background)), at: index)
        }
        return copy
    }

    /// Takes the text out of `rows` outside `columns` (pictures and marks stay): the rows
    /// where a face growing over this screen drew words, so that no row reads as two
    /// screens at once (the viewer's author line running on into the home's "11 stories").
    mutating func removeText(rows: Set<Int>, outside columns: Range<Int>) {
        for y in rows where y >= 0 && y < height {
            for x in 0..<width where !columns.contains(x) {
                let index = y * width + x
                guard Self.isText(cells[index]) else { continue }
                record(Cell(glyph: .space, style: Style(background: cells[index].style.background)), at: index)
            }
        }
    }

    /// Draws text runs of a face `faceWidth` × `faceHeight` laid into the columns `columns`
    /// of this canvas, each run's row at `row(y)` (nil: not shown), at its own size, cut to
    /// the columns; one run a row (the first to land there), so no two texts mix.
    /// `restyle` shades a run as its face is shaded where the run's middle lands (one shade
    /// a run: its letters read as one).
    /// Returns the rows it drew on.
    @discardableResult
    mutating func drawText(_ runs: [TextRun], faceWidth: Int, columns: Range<Int>, row: (Int) -> Int?,
                           restyle: (Int, Style) -> Style = { $1 }) -> Set<Int> {
        guard faceWidth > 0, !columns.isEmpty else { return [] }
        var taken = Set<Int>()
        for run in runs {
            guard let ty = row(run.y), ty >= 0, ty < height, !taken.contains(ty) else { continue }
            taken.insert(ty)
            let start = run.hugsRight
                ? columns.upperBound - (faceWidth - run.x)
                : columns.lowerBound + run.x * columns.count / faceWidth
            let middle = start + run.cells.count / 2
            var tx = start
            var index = 0
            while index < run.cells.count {
                let cell = run.cells[index]
                let wide = index + 1 < run.cells.count && run.cells[index + 1].isContinuation
                let w = wide ? 2 : 1
                if !cell.isContinuation, tx >= columns.lowerBound, tx + w <= columns.upperBound, tx >= 0, tx + w <= width {
                    if w == 1 {
                        put(cell.glyph, x: tx, y: ty, style: restyle(middle, cell.style))
                    } else if let grapheme = cell.grapheme {
                        put(grapheme, width: w, x: tx, y: ty, style: restyle(middle, cell.style))
                    }
                }
                tx += w
                index += w
            }
        }
        return taken
    }

    /// `draw(_:scaledInto:)` for a face that holds text: its pictures scaled, its text moved.
    /// Words of the screen behind are taken out of the rows where the face put words.
    public mutating func drawFace(_ source: Canvas, scaledInto rect: Rect) {
        guard rect.width > 0, rect.height > 0, source.width > 0, source.height > 0 else { return }
        draw(source.withoutText(), scaledInto: rect)
        let rows = drawText(source.textRuns(), faceWidth: source.width, columns: rect.x..<rect.maxX, row: { y in
            let ty = rect.y + y * rect.height / source.height
            return ty >= rect.y && ty < rect.maxY ? ty : nil
        })
        removeText(rows: rows, outside: rect.x..<rect.maxX)
    }
}
