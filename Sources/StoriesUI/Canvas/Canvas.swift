import StoriesCells
import StoriesCore

/// One screen cell: a grapheme and its style. A wide grapheme (display width 2) sits in its
/// first cell and the next cell holds `Cell.continuation`. Text is put in as the cells
/// `DisplayWidth.forEachCell` gives, so a cell's grapheme is what a terminal shows in it.
///
/// The grapheme is kept as a `Glyph` (four bytes, no string): a cell is a plain value that
/// frames copy, compare and write without reference counting (issue 48, point 1).
public struct Cell: Equatable, Sendable {
    public var glyph: Glyph
    public var style: Style

    /// The grapheme as a character (nil: a wide grapheme's right half).
    public var grapheme: Character? {
        get { glyph.character }
        set { glyph = Glyph(newValue) }
    }

    public init(_ grapheme: Character? = " ", style: Style = .plain) {
        glyph = Glyph(grapheme)
        self.style = style
    }

    @inline(__always) public init(glyph: Glyph, style: Style) {
        self.glyph = glyph
        self.style = style
    }

    public static let blank = Cell(glyph: .space, style: .plain)
    /// The right half of a wide grapheme.
    public static func continuation(_ style: Style) -> Cell { Cell(glyph: .none, style: style) }
    @inline(__always) public var isContinuation: Bool { glyph == .none }
}

/// The screen as a flat grid of cells. Screens draw into it; the ncurses backend and the
/// snapshot format read it. It never holds half a wide character: writes that would split
/// one blank the other half, and a wide grapheme that does not fit at an edge becomes a space.
public struct Canvas: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Runs of cells that are a link (its title or address): a terminal that knows OSC 8
    /// makes them clickable. Not part of the cells: the diff and the test screen ignore them.
    public var links: [LinkRegion] = []

    public struct LinkRegion: Equatable, Sendable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var url: String

        public init(x: Int, y: Int, width: Int, url: String) {
            self.x = x
            self.y = y
            self.width = width
            self.url = url
        }
    }

    /// Where real pixels lie over the cells (issue 31): a terminal that shows them writes
    /// each picture's rows there; the cells beneath are the same picture in cells, what
    /// every other terminal (and the test screen) shows. Not part of the cells either.
    public var pictures: [PictureRegion] = []
    /// A frame of a motion (cube, zoom, dismiss): the terminal backend may write it by
    /// itself, past its screen library, and make its screen whole again when the motion ends.
    public var isMotion = false
    /// Where what has focus begins (issue 33): the selected bubble's name, the focused
    /// section cell, the viewer's author line, the search field's end, the box's first line.
    /// A terminal that shows its cursor (`cursor = focus`) puts it here, so a screen reader
    /// or a braille display reads what has focus. Nil: nothing has focus (a motion).
    public var cursor: Spot?
    /// Right-to-left text is put in visual order and shaped as it is drawn (`Bidi`): for
    /// terminals that show cells as they come (`bidi = app`, the default). Off, text goes
    /// in as stored, for a terminal that reorders by itself (Konsole, mlterm).
    public var reordersText = false

    /// A cell on the canvas.
    public struct Spot: Equatable, Sendable {
        public var x: Int
        public var y: Int
        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// Puts the focus at a cell (kept on the canvas).
    public mutating func focus(x: Int, y: Int) {
        guard width > 0, height > 0 else { return }
        cursor = Spot(x: min(max(0, x), width - 1), y: min(max(0, y), height - 1))
    }

    /// Two canvases are equal when they show the same: their cells and links. How a
    /// terminal may write them (and where its cursor stands) (`pictures` over the cells, `isMotion`) is not what they show.
    public static func == (a: Canvas, b: Canvas) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.links == b.links
    }

    /// Part of a picture in real pixels on screen: the picture's cells from `sourceRow`
    /// (whole rows, all its columns), at `rect`. `source` names what it shows (a media
    /// location): a new picture of the same source at the same place is a video's next frame.
    public struct PictureRegion: Equatable, Sendable {
        public var rect: Rect
        public var picture: PixelPicture
        public var sourceRow: Int
        public var source: String

        public init(rect: Rect, picture: PixelPicture, sourceRow: Int, source: String = "") {
            self.rect = rect
            self.picture = picture
            self.sourceRow = sourceRow
            self.source = source
        }
    }

    public init(width: Int, height: Int, fill: Cell = .blank) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: fill, count: self.width * self.height)
    }

    /// A canvas from cells in reading order (a screen that keeps what it was sent rebuilds
    /// what it shows); cells short of `width × height` are blank, extra ones dropped.
    public init(width: Int, height: Int, cells: [Cell]) {
        self.width = max(0, width)
        self.height = max(0, height)
        let count = self.width * self.height
        if cells.count == count {
            self.cells = cells // taken as it is (a video frame is one of these)
        } else {
            var all = Array(cells.prefix(count))
            all += repeatElement(Cell.blank, count: count - all.count)
            self.cells = all
        }
    }

    /// Takes `rect`'s cells (clipped to both) from `other`, a canvas of the same size: what
    /// lies under a picture in real pixels stays as the terminal last had it.
    public mutating func keepCells(_ rect: Rect, from other: Canvas) {
        guard other.width == width, other.height == height else { return }
        let x0 = max(0, rect.x), x1 = min(width, rect.maxX), y0 = max(0, rect.y), y1 = min(height, rect.maxY)
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 { cells.replaceSubrange((y * width + x0)..<(y * width + x1), with: other.cells[(y * width + x0)..<(y * width + x1)]) }
    }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Fills a rectangle (clipped to the canvas) with blanks in a style.
    public mutating func fill(_ rect: Rect, style: Style, with grapheme: Character = " ") {
        let x0 = max(0, rect.x), x1 = min(width, rect.maxX)
        let y0 = max(0, rect.y), y1 = min(height, rect.maxY)
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            for x in x0..<x1 { set(x: x, y: y, Cell(grapheme, style: style)) }
        }
    }

    /// Draws text on one row from column `x`, at most `maxWidth` columns (default: to the
    /// right edge), cut with "…" when it does not fit. Returns the columns used.
    @discardableResult
    public mutating func text(_ string: String, x: Int, y: Int, style: Style = .plain,
                              maxWidth: Int? = nil, ellipsis: Bool = true) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(maxWidth ?? Int.max, width - x)
        guard limit > 0 else { return 0 }
        // Cut in reading order (the end of the text goes), then put in the terminal's order.
        var shown = string.truncated(toWidth: limit, ellipsis: ellipsis)
        if reordersText { shown = Bidi.visual(shown) }
        var column = x
        for character in shown {
            DisplayWidth.forEachCell(of: character) { cell, w in
                if column >= 0 { put(cell, width: w, x: column, y: y, style: style) }
                column += w
            }
        }
        return column - x
    }

    /// Text centred in a rectangle's row.
    @discardableResult
    public mutating func centered(_ string: String, in rect: Rect, y: Int, style: Style = .plain) -> Int {
        let shown = string.truncated(toWidth: rect.width)
        let x = rect.x + max(0, (rect.width - shown.displayWidth) / 2)
        return text(shown, x: x, y: y, style: style, maxWidth: rect.width)
    }

    /// Copies whole rows from a canvas of the same size (clipped to both).
    public mutating func copyRows(_ rows: Range<Int>, from other: Canvas) {
        guard other.width == width else { return }
        let low = max(0, rows.lowerBound), high = min(height, other.height, rows.upperBound)
        guard low < high else { return }
        cells.replaceSubrange(low * width..<high * width, with: other.cells[low * width..<high * width])
    }

    /// Darkens a band of rows in place: each cell becomes a blank whose background is the
    /// cell's own colour (for a picture cell of two colours, their mean; `█`, its own) at `factor`, so
    /// text drawn over a photo stays readable and the photo still shows through.
    public mutating func darken(rows: Range<Int>, columns: Range<Int>? = nil, factor: Double = 0.4) {
        let columns = (columns ?? 0..<width).clamped(to: 0..<width)
        for y in rows where y >= 0 && y < height {
            for x in columns {
                let cell = self[x, y]
                let back = Self.rgb(cell.style.background)
                let front = Self.rgb(cell.style.foreground)
                // A picture cell of two colours (half, quadrant, sextant, octant): their mean.
                let full = cell.glyph == .fullBlock
                let twoColours = !full && (cell.glyph.scalar.map(CellSymbols.isBlockSymbol) ?? false)
                let mixed = twoColours
                    ? ((Int(back.0) + Int(front.0)) / 2, (Int(back.1) + Int(front.1)) / 2, (Int(back.2) + Int(front.2)) / 2)
                    : full ? (Int(front.0), Int(front.1), Int(front.2)) : (Int(back.0), Int(back.1), Int(back.2))
                let dark = Color.rgb(UInt8(Double(mixed.0) * factor), UInt8(Double(mixed.1) * factor), UInt8(Double(mixed.2) * factor))
                set(x: x, y: y, Cell(" ", style: Style(background: dark)))
            }
        }
    }

    /// Draws text over whatever backgrounds the cells already have (a darkened photo band).
    @discardableResult
    public mutating func overlay(_ string: String, x: Int, y: Int, foreground: Color, attributes: Attributes = [],
                                 maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(maxWidth ?? Int.max, width - x)
        guard limit > 0 else { return 0 }
        var column = x
        let shown = string.truncated(toWidth: limit)
        for character in reordersText ? Bidi.visual(shown) : shown {
            DisplayWidth.forEachCell(of: character) { cell, w in
                if column >= 0 {
                    let background = self[column, y].style.background
                    put(cell, width: w, x: column, y: y,
                        style: Style(foreground: foreground, background: background, attributes: attributes))
                }
                column += w
            }
        }
        return column - x
    }

    private static func rgb(_ color: Color) -> (UInt8, UInt8, UInt8) {
        switch color {
        case .default: (0, 0, 0)
        case .rgb(let r, let g, let b): (r, g, b)
        case .palette(let index): ColorMapping.rgb(ofPaletteIndex: index)
        }
    }

    /// Writes one grapheme of display width `w` (1 or 2) at a cell.
    public mutating func put(_ character: Character, width w: Int, x: Int, y: Int, style: Style) {
        guard y >= 0, y < height, x >= 0, x < width else { return }
        if w == 2 && x + 1 >= width {
            set(x: x, y: y, Cell(" ", style: style)) // never split a wide character at the edge
            return
        }
        set(x: x, y: y, Cell(character, style: style))
        if w == 2 { set(x: x + 1, y: y, .continuation(style)) }
    }

    /// Puts a one-column glyph at a cell (a picture's, a sampled face's): as `put` with width 1.
    @inline(__always)
    public mutating func put(_ glyph: Glyph, x: Int, y: Int, style: Style) {
        guard y >= 0, y < height, x >= 0, x < width else { return }
        set(x: x, y: y, Cell(glyph: glyph, style: style))
    }

    /// Writes the cells of one row's `columns` (clipped) in one pass, each made by `make` from
    /// its column: one-column cells only (a right half made is written as a blank). A wide
    /// grapheme cut at either end of the run is repaired, as `put` does.
    public mutating func writeRun(y: Int, columns: Range<Int>, _ make: (Int) -> Cell) {
        guard y >= 0, y < height else { return }
        let x0 = max(0, columns.lowerBound), x1 = min(width, columns.upperBound)
        guard x0 < x1 else { return }
        let row = y * width
        if x0 > 0, cells[row + x0].isContinuation, !cells[row + x0 - 1].isContinuation { cells[row + x0 - 1].glyph = .space }
        if x1 < width, cells[row + x1].isContinuation { cells[row + x1].glyph = .space }
        cells.withUnsafeMutableBufferPointer { all in
            for x in x0..<x1 {
                var cell = make(x)
                if cell.isContinuation { cell.glyph = .space }
                all[row + x] = cell
            }
        }
    }

    /// Puts a cell as it is, at an index in reading order (a writer recording what the
    /// terminal now shows, wide graphemes and their halves included).
    mutating func record(_ cell: Cell, at index: Int) {
        cells[index] = cell
    }

    /// Changes one cell's style and nothing else (shading an animation's frame).
    mutating func setStyle(at index: Int, _ style: Style) {
        cells[index].style = style
    }

    /// Sets a cell and repairs any wide character it cut in half.
    private mutating func set(x: Int, y: Int, _ cell: Cell) {
        let index = y * width + x
        let old = cells[index]
        if old.isContinuation, x > 0, !cells[index - 1].isContinuation {
            cells[index - 1].glyph = .space
        }
        if !old.isContinuation, x + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1].glyph = .space
        }
        cells[index] = cell
    }
}
