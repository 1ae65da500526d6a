/// The one encoder of SGR (Select Graphic Rendition) sequences, for every path that writes
/// colours to a terminal by itself: `stories print` (`ANSIWriter`) and `stories play` (`FrameWriter`), and
/// the OSC 8 links the ncurses backend writes over its own cells. (ncurses sets colours
/// through its pairs, from the same `ColorMapping`.) Bytes, not Strings: a frame of a
/// video is tens of thousands of these.
public enum SGR {
    /// ESC [ 0 m: every attribute and colour back to the terminal's own.
    public static let reset: [UInt8] = [0x1B, 0x5B, 0x30, 0x6D]

    /// Appends the parameters that select `color` as the foreground or the background on a
    /// terminal of `depth`: 39 or 49 for the terminal's own; 30–37 and 90–97 (40–47,
    /// 100–107) for the first sixteen; 38;5;n (48;5;n) for the rest of the palette; and
    /// 38;2;r;g;b (48;2;…) where the terminal has direct colour. `palette` is the palette
    /// index of an RGB colour on a terminal without direct colour (a cache may stand in
    /// for `ColorMapping`). False, appending nothing, for a colour the terminal cannot
    /// show (`.none`).
    @discardableResult
    @inlinable
    public static func appendColor<Sink: ByteSink>(_ color: Color, background: Bool, depth: ColorDepth, to out: inout Sink,
                                                   palette: (Color) -> Int) -> Bool {
        let base: UInt8 = background ? 40 : 30
        switch color {
        case .default:
            out.putNumber(base + 9)
        case .rgb(let r, let g, let b) where depth == .direct:
            appendDirect(r, g, b, base: base, to: &out)
        case .palette(let index) where depth == .direct:
            let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
            appendDirect(r, g, b, base: base, to: &out)
        default:
            let index = palette(color)
            guard (0...255).contains(index) else { return false }
            switch index {
            case 0..<8: out.putNumber(base + UInt8(index))
            case 8..<16: out.putNumber(base + 60 + UInt8(index - 8))
            default:
                out.putNumber(base + 8)
                out.put(0x3B, 0x35, 0x3B) // ;5;
                out.putNumber(UInt8(index))
            }
        }
        return true
    }

    /// The most bytes `appendColor` puts (38;2;255;255;255).
    public static let colorBound = 19

    /// The whole sequence for a cell's style: a reset, then its attributes and colours.
    public static func sequence(for style: Style, depth: ColorDepth, palette: (Color) -> Int) -> [UInt8] {
        var out: [UInt8] = [0x1B, 0x5B, 0x30] // ESC [ 0
        for (attribute, code) in [(Attributes.bold, UInt8(1)), (.italic, 3), (.underline, 4), (.reverse, 7)]
        where style.attributes.contains(attribute) {
            out.append(0x3B)
            appendNumber(code, to: &out)
        }
        for (color, background) in [(style.foreground, false), (style.background, true)] where color != .default {
            var parameters: [UInt8] = []
            if appendColor(color, background: background, depth: depth, to: &parameters, palette: palette) {
                out.append(0x3B)
                out += parameters
            }
        }
        out.append(0x6D) // m
        return out
    }

    /// A number of up to three digits, as ASCII.
    public static func appendNumber(_ value: UInt8, to out: inout [UInt8]) {
        out.putNumber(value)
    }

    @usableFromInline @inline(__always)
    static func appendDirect<Sink: ByteSink>(_ r: UInt8, _ g: UInt8, _ b: UInt8, base: UInt8, to out: inout Sink) {
        out.putNumber(base + 8)
        out.put(0x3B, 0x32, 0x3B) // ;2;
        out.putNumber(r); out.put(0x3B)
        out.putNumber(g); out.put(0x3B)
        out.putNumber(b)
    }
}
