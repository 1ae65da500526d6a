import StoriesCells

/// Writes a `CellImage` as text with ANSI SGR colour codes (what `stories print` prints):
/// codes only when a colour changes, a reset at the end of every row (so a background never
/// bleeds past the picture) and at the end.
public enum ANSIWriter {
    public static func text(of image: CellImage, depth: ColorDepth) -> String {
        String(decoding: bytes(of: image, depth: depth), as: UTF8.self)
    }

    /// The same as `text`, as UTF-8 bytes (what `stories print` writes; no String building).
    public static func bytes(of image: CellImage, depth: ColorDepth) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.cells.count * (depth == .direct ? 40 : 16))
        for y in 0..<image.height {
            var foreground: Color? = nil, background: Color? = nil
            for x in 0..<image.width {
                let cell = image[x, y]
                if depth != .none {
                    // Both colours in one SGR when both change; numbers written as bytes.
                    let newForeground = cell.foreground != foreground, newBackground = cell.background != background
                    if newForeground || newBackground {
                        out += [0x1B, 0x5B] // ESC [
                        if newForeground { appendColor(cell.foreground, background: false, depth: depth, to: &out) }
                        if newForeground && newBackground { out.append(0x3B) }
                        if newBackground { appendColor(cell.background, background: true, depth: depth, to: &out) }
                        out.append(0x6D) // m
                        foreground = cell.foreground
                        background = cell.background
                    }
                }
                appendGlyph(cell.glyph, to: &out)
            }
            if depth != .none { out += [0x1B, 0x5B, 0x30, 0x6D] } // ESC [ 0 m
            out.append(0x0A)
        }
        return out
    }

}

extension ANSIWriter {
    /// The bytes that turn `shown` (what the terminal shows) into `next` (the same size),
    /// writing only the cells that changed, and what the terminal shows afterwards.
    ///
    /// A cell whose glyph is the same and whose two colours are each within `tolerance`
    /// levels of what is on screen (every channel, 0–255; 0 means exact) is left alone.
    /// The comparison is always with what the terminal shows, never with the last frame,
    /// so a slow drift is written once it adds up to more than `tolerance`: the error
    /// never accumulates. Palette colours compare exactly.
    ///
    /// The cursor starts and ends at the picture's top-left corner, which is in the
    /// terminal's first column. A short gap of unchanged cells inside a run is rewritten
    /// (cheaper than a cursor move); a longer one is jumped over. Colours are reset at the
    /// end, so nothing bleeds if the program stops between frames.
    public static func update(from shown: CellImage, to next: CellImage, depth: ColorDepth,
                              tolerance: Int = 0) -> (bytes: [UInt8], shown: CellImage) {
        guard shown.width == next.width, shown.height == next.height else {
            var out = bytes(of: next, depth: depth)
            out += Array("\u{1B}[\(next.height)A".utf8)
            return (out, next)
        }
        let tolerance = max(0, min(255, tolerance))
        var screen = shown.cells
        var out: [UInt8] = []
        var cursorY = 0
        var foreground: Color? = nil, background: Color? = nil
        let width = next.width
        next.cells.withUnsafeBufferPointer { wanted in
            func differs(_ index: Int) -> Bool { !close(screen[index], wanted[index], within: tolerance) }
            for y in 0..<next.height {
                let row = y * width
                var x = 0
                var cursorX = -1 // not on this row yet
                while x < width {
                    guard differs(row + x) else { x += 1; continue }
                    if cursorX != x {
                        if y > cursorY { out += Array("\u{1B}[\(y - cursorY)B".utf8) }
                        cursorY = y
                        out += Array("\u{1B}[\(x + 1)G".utf8)
                    }
                    // Write from x through the last change that is at most `gap` cells ahead.
                    var end = x
                    var probe = x
                    while probe < width, probe - end <= 4 {
                        if differs(row + probe) { end = probe }
                        probe += 1
                    }
                    for column in x...end {
                        var cell = wanted[row + column]
                        if depth != .none, cell.glyph == "▀", close(cell.foreground, cell.background, within: tolerance) {
                            // Both halves alike: a space in the background colour looks the
                            // same and needs no foreground.
                            let colour: Color
                            if let background, close(background, cell.foreground, within: tolerance),
                               close(background, cell.background, within: tolerance) {
                                colour = background
                            } else {
                                colour = cell.background
                                out += [0x1B, 0x5B]
                                appendColor(colour, background: true, depth: depth, to: &out)
                                out.append(0x6D)
                                background = colour
                            }
                            out.append(0x20)
                            screen[row + column] = ImageCell(glyph: "▀", foreground: colour, background: colour)
                            continue
                        }
                        if depth != .none {
                            // A colour within the tolerance of the one already set is kept:
                            // the cell is recorded as written in that colour.
                            let newForeground = foreground.map { !close(cell.foreground, $0, within: tolerance) } ?? true
                            let newBackground = background.map { !close(cell.background, $0, within: tolerance) } ?? true
                            if !newForeground, let foreground { cell.foreground = foreground }
                            if !newBackground, let background { cell.background = background }
                            if newForeground || newBackground {
                                // One sequence for both colours: ESC [ 38;2;r;g;b ; 48;2;r;g;b m
                                out += [0x1B, 0x5B]
                                if newForeground { appendColor(cell.foreground, background: false, depth: depth, to: &out) }
                                if newForeground && newBackground { out.append(0x3B) }
                                if newBackground { appendColor(cell.background, background: true, depth: depth, to: &out) }
                                out.append(0x6D)
                                foreground = cell.foreground
                                background = cell.background
                            }
                        }
                        if cell.glyph == "▀" { out += [0xE2, 0x96, 0x80] } else { out += cell.glyph.utf8 }
                        screen[row + column] = cell
                    }
                    x = end + 1
                    cursorX = x
                }
            }
        }
        if depth != .none, !out.isEmpty { out += [0x1B, 0x5B, 0x30, 0x6D] }
        if cursorY > 0 { out += Array("\u{1B}[\(cursorY)A".utf8) }
        if !out.isEmpty { out.append(0x0D) }
        return (out, CellImage(width: width, height: next.height, cells: screen))
    }

    static func close(_ a: ImageCell, _ b: ImageCell, within tolerance: Int) -> Bool { a.isClose(to: b, within: tolerance) }

    static func close(_ a: Color, _ b: Color, within tolerance: Int) -> Bool { a.isClose(to: b, within: tolerance) }
}

extension ANSIWriter {
    /// The parameters of one SGR colour (no ESC [ and no m), as bytes.
    static func appendColor(_ color: Color, background: Bool, depth: ColorDepth, to out: inout [UInt8]) {
        SGR.appendColor(color, background: background, depth: depth, to: &out) { ColorMapping.terminalColor($0, depth: depth) }
    }

    /// A glyph's UTF-8; the half block, a space and the full block without going through
    /// the Character's String.
    static func appendGlyph(_ glyph: Character, to out: inout [UInt8]) {
        switch glyph {
        case "▀": out += [0xE2, 0x96, 0x80]
        case " ": out.append(0x20)
        case "█": out += [0xE2, 0x96, 0x88]
        default: out += glyph.utf8
        }
    }

    static func appendNumber(_ value: UInt8, to out: inout [UInt8]) { SGR.appendNumber(value, to: &out) }
}
