import StoriesCells

/// Writes a `CellImage` as text with ANSI SGR colour codes (what `stories print` prints):
/// codes only when a colour changes, a reset at the end of every row (so a background never
/// bleeds past the picture) and at the end.
public enum ANSIWriter {
    public static func text(of image: CellImage, depth: ColorDepth) -> String {
        String(decoding: bytes(of: image, depth: depth), as: UTF8.self)
    }

    /// The same as `text`, as UTF-8 bytes (what `stories print` writes; no String building).
    ///
    /// The fewest bytes for what the terminal shows (issue 48, point 7): colours compared as
    /// the terminal gets them (two colours that map to one palette entry are one colour); a
    /// cell whose two halves show one colour, and a full block, are a space in that
    /// background, which leaves the foreground as it was; a half block takes whichever of
    /// ▀ and ▄ (its colours swapped) needs fewer colour changes.
    public static func bytes(of image: CellImage, depth: ColorDepth) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.cells.count * (depth == .direct ? 40 : 16))
        var numbers: [Color: Int] = [:]
        func number(_ color: Color) -> Int {
            if let known = numbers[color] { return known }
            let found = terminalNumber(color, depth: depth)
            numbers[color] = found
            return found
        }
        for y in 0..<image.height {
            // The pen: what the terminal's colours are now (nil: not known, after a reset).
            var pen: (foreground: Int?, background: Int?) = (nil, nil)
            for x in 0..<image.width {
                let cell = image[x, y]
                guard depth != .none else {
                    cell.code.appendUTF8(to: &out)
                    continue
                }
                let f = number(cell.foreground), b = number(cell.background)
                var glyph = cell.code
                var wanted: (foreground: Int?, background: Int?) = (f, b) // nil: either will do
                // -1 is the terminal's own colour, which is not the same as a foreground and
                // as a background: a cell in it is never turned into a space or swapped.
                switch glyph {
                case .space:
                    wanted = (nil, b)
                case .fullBlock where f >= 0:
                    // A full block is a space in its colour, or itself where the pen has it.
                    if pen.foreground == f, pen.background != f {
                        wanted = (f, nil)
                    } else {
                        glyph = .space
                        wanted = (nil, f)
                    }
                case .upperHalf where f == b && f >= 0:
                    glyph = .space
                    wanted = (nil, b)
                case .upperHalf where f >= 0 && b >= 0:
                    let asIs = (pen.foreground != f ? 1 : 0) + (pen.background != b ? 1 : 0)
                    let swapped = (pen.foreground != b ? 1 : 0) + (pen.background != f ? 1 : 0)
                    if swapped < asIs {
                        glyph = .lowerHalf
                        wanted = (b, f)
                    }
                default:
                    break
                }
                let newForeground = wanted.foreground.map { $0 != pen.foreground } ?? false
                let newBackground = wanted.background.map { $0 != pen.background } ?? false
                if newForeground || newBackground {
                    // Both colours in one SGR when both change; numbers written as bytes.
                    out += [0x1B, 0x5B] // ESC [
                    if newForeground, let n = wanted.foreground { appendNumbered(n, background: false, depth: depth, to: &out) }
                    if newForeground && newBackground { out.append(0x3B) }
                    if newBackground, let n = wanted.background { appendNumbered(n, background: true, depth: depth, to: &out) }
                    out.append(0x6D) // m
                    if newForeground { pen.foreground = wanted.foreground }
                    if newBackground { pen.background = wanted.background }
                }
                glyph.appendUTF8(to: &out)
            }
            if depth != .none { out += SGR.reset }
            out.append(0x0A)
        }
        return out
    }

    /// A colour as the terminal gets it: -1 its default, a palette number, or (24-bit
    /// colour) the RGB value, a palette colour by its RGB.
    static func terminalNumber(_ color: Color, depth: ColorDepth) -> Int {
        switch (color, depth) {
        case (.default, _): return -1
        case (.rgb(let r, let g, let b), .direct): return Int(r) << 16 | Int(g) << 8 | Int(b)
        case (.palette(let index), .direct):
            let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
            return Int(r) << 16 | Int(g) << 8 | Int(b)
        default: return ColorMapping.terminalColor(color, depth: depth)
        }
    }

    /// One SGR colour from its terminal number.
    static func appendNumbered(_ number: Int, background: Bool, depth: ColorDepth, to out: inout [UInt8]) {
        let color: Color
        if number < 0 {
            color = .default
        } else if depth == .direct {
            color = .rgb(UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number))
        } else {
            color = .palette(UInt8(clamping: number))
        }
        _ = SGR.appendColor(color, background: background, depth: depth, to: &out) { _ in number }
    }
}
