import StoriesCells

/// Writes a `CanvasDiff` — the one frame diff, the same the ncurses backend and the test
/// screen consume — as terminal bytes by itself, for a picture drawn below the cursor with
/// no screen library (`stories play`): cursor moves relative to the picture's top-left
/// corner (which is in the terminal's first column), SGR colours through the one encoder
/// (`SGR`), only the changed cells.
///
/// A short gap of unchanged cells inside a run is rewritten (cheaper than a cursor move); a
/// longer one is jumped over. With a `tolerance`, a colour within it of the one already set
/// is kept (the cell is recorded as written in that colour), and a half block whose two
/// halves are alike is a space in the background colour; a half block whose colours, swapped,
/// need fewer changes from the colours set is a lower half block. `shown` — what the terminal shows —
/// is brought up to date with what was written: the next diff is taken from it. Colours are
/// reset at the end, and the cursor goes back to the top-left corner, so nothing bleeds if
/// the program stops between frames.
public enum FrameWriter {
    /// The bytes for `diff` (taken from `shown` to `next`, the same size); `shown` becomes
    /// what the terminal shows afterwards.
    /// Colours are kept within the tolerance the diff was taken with, so what `shown`
    /// records stays within it of every frame.
    public static func bytes(for diff: CanvasDiff, of next: Canvas, shown: inout Canvas, depth: ColorDepth) -> [UInt8] {
        var out: [UInt8] = []
        write(diff, of: next, shown: &shown, depth: depth, into: &out)
        return out
    }

    /// The same bytes appended to `out` (nothing when nothing changed): a screen that writes
    /// a frame 30 times a second keeps one buffer, not a new one of a few hundred kilobytes
    /// each time.
    public static func write(_ diff: CanvasDiff, of next: Canvas, shown: inout Canvas, depth: ColorDepth, into out: inout [UInt8]) {
        var memo = PaletteMemo(depth: depth)
        write(diff, of: next, shown: &shown, memo: &memo, into: &out)
    }

    /// The same, each colour's palette number taken from `memo` (at its depth), which a
    /// screen keeps from frame to frame: below 24-bit colour a frame of the cube shades its
    /// cells into thousands of colours, the same ones frame after frame.
    public static func write(_ diff: CanvasDiff, of next: Canvas, shown: inout Canvas, memo: inout PaletteMemo, into out: inout [UInt8]) {
        guard !diff.changes.isEmpty, next.width == shown.width, next.height == shown.height,
              diff.width == next.width, diff.height == next.height else { return }
        let tolerance = diff.tolerance
        let depth = memo.depth
        out.reserveCapacity(out.count + diff.changes.count * (depth == .direct ? 24 : 12) + 64)
        func number(_ color: Color) -> Int { memo.number(color) }
        // The bytes go into a span of `scratch`, moved into `out` whenever less than a cell's
        // most is left (a pointer store a byte, not an array's check and growth).
        let scratchSize = 16_384
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: scratchSize)
        defer { scratch.deallocate() }
        var span = ByteSpan(base: scratch, capacity: scratchSize)
        func flush() {
            out.append(contentsOf: span.written)
            span.count = 0
        }
        var cursorY = 0
        // Every frame ends with a reset (and a picture written whole ends each row with one):
        // the terminal starts each frame in its own colours.
        var pen = Style.plain
        func close(_ a: Color, _ b: Color) -> Bool { tolerance == 0 ? a == b : a.isClose(to: b, within: tolerance) }
        func appendColors(foreground: Color?, background: Color?) {
            span.put(0x1B, 0x5B) // ESC [
            if let foreground { _ = SGR.appendColor(foreground, background: false, depth: depth, to: &span, palette: number) }
            if foreground != nil, background != nil { span.put(0x3B) }
            if let background { _ = SGR.appendColor(background, background: true, depth: depth, to: &span, palette: number) }
            span.put(0x6D) // m
        }

        var index = 0
        let changes = diff.changes
        while index < changes.count {
            let first = changes[index]
            let y = first.y
            if span.room < 64 { flush() }
            if y > cursorY {
                span.put(0x1B, 0x5B) // ESC [ n B
                span.putNumber(y - cursorY)
                span.put(0x42)
            }
            cursorY = y
            span.put(0x1B, 0x5B) // ESC [ n G
            span.putNumber(first.x + 1)
            span.put(0x47)
            // The run: this change and every later one on the row at most `gap` cells after
            // the last, the cells between them written again as they are.
            var end = first.x
            index += 1
            while index < changes.count, changes[index].y == y, changes[index].x - end <= 4 {
                end = changes[index].x
                index += 1
            }
            for x in first.x...end {
                var cell = next[x, y]
                let at = y * next.width + x
                let glyph = cell.glyph
                if glyph == .none {
                    shown.record(cell, at: at) // the wide grapheme before it covers it
                    continue
                }
                // A cell's most: its colours (or a whole style) and one scalar.
                if span.room < 2 * SGR.colorBound + 40 { flush() }
                if depth != .none {
                    let style = cell.style
                    // The terminal's own colours are not one colour as a foreground and as a
                    // background: a half block in either is written as it is.
                    let plainHalf = glyph == .upperHalf && style.attributes.isEmpty && pen.attributes.isEmpty
                        && style.foreground != .default && style.background != .default
                    if plainHalf, close(style.foreground, style.background) {
                        // Both halves alike: a space in the background colour looks the same
                        // and needs no foreground.
                        let colour: Color
                        if close(pen.background, style.foreground), close(pen.background, style.background) {
                            colour = pen.background
                        } else {
                            colour = style.background
                            appendColors(foreground: nil, background: colour)
                            pen.background = colour
                        }
                        span.put(0x20)
                        shown.record(Cell(glyph: .upperHalf, style: Style(foreground: colour, background: colour)), at: at)
                        continue
                    }
                    if plainHalf {
                        // ▄ with the colours swapped shows the same: taken when it needs fewer
                        // colour changes from the pen.
                        let asIs = (close(style.foreground, pen.foreground) ? 0 : 1) + (close(style.background, pen.background) ? 0 : 1)
                        let swapped = (close(style.background, pen.foreground) ? 0 : 1) + (close(style.foreground, pen.background) ? 0 : 1)
                        if swapped < asIs {
                            let newForeground = !close(style.background, pen.foreground)
                            let newBackground = !close(style.foreground, pen.background)
                            if newForeground || newBackground {
                                appendColors(foreground: newForeground ? style.background : nil, background: newBackground ? style.foreground : nil)
                            }
                            if newForeground { pen.foreground = style.background }
                            if newBackground { pen.background = style.foreground }
                            Glyph.lowerHalf.appendUTF8(to: &span)
                            // Recorded as the upper half it shows: the pen's background on top.
                            shown.record(Cell(glyph: .upperHalf, style: Style(foreground: pen.background, background: pen.foreground)), at: at)
                            continue
                        }
                    }
                    if pen.attributes == style.attributes {
                        // A colour within the tolerance of the one already set is kept.
                        let newForeground = !close(style.foreground, pen.foreground)
                        let newBackground = !close(style.background, pen.background)
                        if !newForeground { cell.style.foreground = pen.foreground }
                        if !newBackground { cell.style.background = pen.background }
                        if newForeground || newBackground {
                            appendColors(foreground: newForeground ? style.foreground : nil,
                                         background: newBackground ? style.background : nil)
                            pen = cell.style
                        }
                    } else {
                        flush()
                        out += SGR.sequence(for: style, depth: depth, palette: number)
                        pen = style
                    }
                }
                if glyph.isCluster {
                    // A grapheme of several scalars may be longer than any room kept.
                    flush()
                    glyph.appendUTF8(to: &out)
                } else {
                    glyph.appendUTF8(to: &span)
                }
                shown.record(cell, at: at)
                // A wide grapheme's right half comes with it, inside the run or not.
                if x + 1 < next.width, next[x + 1, y].isContinuation { shown.record(next[x + 1, y], at: at + 1) }
            }
        }
        flush()
        if depth != .none { out += SGR.reset }
        if cursorY > 0 { out += Array("\u{1B}[\(cursorY)A".utf8) }
        out.append(0x0D) // CR: back to the first column
    }
}

extension Canvas {
    /// A picture's cells as a canvas of its size, each glyph with its two colours.
    public init(image: CellImage) {
        self.init(width: image.width, height: image.height, cells: image.cells.map { cell in
            Cell(glyph: cell.code, style: Style(foreground: cell.foreground, background: cell.background))
        })
    }
}
