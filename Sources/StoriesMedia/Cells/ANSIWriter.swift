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
                    if cell.foreground != foreground {
                        out += sgr(cell.foreground, background: false, depth: depth).utf8
                        foreground = cell.foreground
                    }
                    if cell.background != background {
                        out += sgr(cell.background, background: true, depth: depth).utf8
                        background = cell.background
                    }
                }
                out += cell.glyph.utf8
            }
            if depth != .none { out += [0x1B, 0x5B, 0x30, 0x6D] } // ESC [ 0 m
            out.append(0x0A)
        }
        return out
    }

    static func sgr(_ color: Color, background: Bool, depth: ColorDepth) -> String {
        switch color {
        case .default:
            return background ? "\u{1B}[49m" : "\u{1B}[39m"
        case .rgb(let r, let g, let b):
            if depth == .direct { return "\u{1B}[\(background ? 48 : 38);2;\(r);\(g);\(b)m" }
            return sgr(.palette(UInt8(ColorMapping.terminalColor(color, depth: depth))), background: background, depth: depth)
        case .palette(let index):
            switch index {
            case 0..<8: return "\u{1B}[\((background ? 40 : 30) + Int(index))m"
            case 8..<16: return "\u{1B}[\((background ? 100 : 90) + Int(index) - 8)m"
            default: return "\u{1B}[\(background ? 48 : 38);5;\(index)m"
            }
        }
    }
}
