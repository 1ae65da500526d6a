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
