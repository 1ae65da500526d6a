import Foundation

/// How many colours a terminal shows, and how a `Color` becomes one of them. Pure, so the
/// backend's choices are unit-tested.
public enum ColorDepth: Equatable, Sendable {
    case none, eight, sixteen, palette256, direct

    /// From the name `--colors`, stories.conf and recordings use (truecolor, 256, 16, 8,
    /// none; 24bit, direct and mono too).
    public init?(name: String) {
        switch name.lowercased() {
        case "truecolor", "24bit", "direct": self = .direct
        case "256": self = .palette256
        case "16": self = .sixteen
        case "8": self = .eight
        case "none", "mono": self = .none
        default: return nil
        }
    }

    /// Fewer colours rank lower.
    public var rank: Int {
        switch self {
        case .none: 0
        case .eight: 1
        case .sixteen: 2
        case .palette256: 3
        case .direct: 4
        }
    }

    /// The name a recording keeps.
    public var name: String {
        switch self {
        case .direct: "truecolor"
        case .palette256: "256"
        case .sixteen: "16"
        case .eight: "8"
        case .none: "none"
        }
    }

    /// From the number of colours terminfo reports (`COLORS`); `direct` needs ≥ 2^24.
    public init(colorCount: Int) {
        switch colorCount {
        case (1 << 24)...: self = .direct
        case 256...: self = .palette256
        case 16...: self = .sixteen
        case 8...: self = .eight
        default: self = .none
        }
    }
}

public enum ColorMapping {
    /// The terminal colour number for a colour at a depth; -1 is the terminal's default.
    public static func terminalColor(_ color: Color, depth: ColorDepth) -> Int {
        switch (color, depth) {
        case (.default, _), (_, .none):
            return -1
        case (.palette(let index), .direct), (.palette(let index), .palette256):
            if depth == .direct {
                let (r, g, b) = rgb(ofPaletteIndex: index)
                return direct(r, g, b)
            }
            return Int(index)
        case (.palette(let index), .sixteen):
            return index < 16 ? Int(index) : nearest(rgb(ofPaletteIndex: index), among: 16)
        case (.palette(let index), .eight):
            return index < 8 ? Int(index) : (index < 16 ? Int(index) - 8 : nearest(rgb(ofPaletteIndex: index), among: 8))
        case (.rgb(let r, let g, let b), .direct):
            return direct(r, g, b)
        case (.rgb(let r, let g, let b), .palette256):
            return nearest256KeepingHue(r, g, b)
        case (.rgb(let r, let g, let b), .sixteen):
            return nearest((r, g, b), among: 16)
        case (.rgb(let r, let g, let b), .eight):
            return nearest((r, g, b), among: 8)
        }
    }

    /// A 24-bit colour as the one number a direct-colour terminfo entry takes. Those entries
    /// (`xterm-direct`, `tmux-direct`) send a number under 8 as one of the eight ANSI colours,
    /// whatever the theme makes of them: near-black pixels came out as bright red and green
    /// specks. Such a colour is sent as (0, 0, 8), which no eye tells from black.
    static func direct(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        max(8, (Int(r) << 16) | (Int(g) << 8) | Int(b))
    }

    private static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]
    private static let basic: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// The xterm RGB of a palette index.
    public static func rgb(ofPaletteIndex index: UInt8) -> (UInt8, UInt8, UInt8) {
        switch index {
        case 0..<16:
            return basic[Int(index)]
        case 16..<232:
            let i = Int(index) - 16
            return (UInt8(cubeLevels[i / 36]), UInt8(cubeLevels[(i / 6) % 6]), UInt8(cubeLevels[i % 6]))
        default:
            let level = UInt8(8 + (Int(index) - 232) * 10)
            return (level, level, level)
        }
    }

    /// A palette search remembered by colour: a photo has far fewer distinct colours than
    /// pixels (a fitted photo's backdrop is a few flat bands), and a motion shades the same
    /// few thousand colours frame after frame, so each is searched once. A direct-mapped
    /// table of 8192 slots (64 KB): a colour that lands on a taken slot replaces it, so the
    /// answer is always the search's. The one memo of the project's palette searches.
    public struct Nearest256Memo: Sendable {
        private var slots = [UInt64](repeating: .max, count: 1 << 13)

        public init() {}

        /// `nearest256`, remembered.
        public mutating func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
            remembered(r, g, b) { ColorMapping.nearest256($0, $1, $2) }
        }

        /// `search(r, g, b)` (a palette index, 0–255), remembered. One memo serves one
        /// search: its slots do not say which search filled them.
        @inline(__always)
        public mutating func remembered(_ r: UInt8, _ g: UInt8, _ b: UInt8, search: (UInt8, UInt8, UInt8) -> Int) -> Int {
            let key = UInt64(r) << 16 | UInt64(g) << 8 | UInt64(b)
            let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 11) & (slots.count - 1)
            let entry = slots[slot]
            if entry >> 8 == key { return Int(entry & 0xFF) }
            let index = search(r, g, b)
            slots[slot] = key << 8 | UInt64(UInt8(clamping: index))
            return index
        }
    }

    /// Nearest of the xterm colour cube and grey ramp (indices 16–255), by OKLab distance,
    /// so greys stay grey. Only the 27 cube cells around the colour and the 24 greys are
    /// compared: the same answer as all 240 (checked against a full search on a grid of
    /// 24,389 colours, and in ColorMappingTests), five times fewer comparisons.
    public static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : (v < 115 ? 1 : min(5, (Int(v) - 35) / 40)) }
        let lab = OKLab(r, g, b)
        var best = 232
        var bestDistance = Float.greatestFiniteMagnitude
        let (ri, gi, bi) = (level(r), level(g), level(b))
        for x in max(0, ri - 1)...min(5, ri + 1) {
            for y in max(0, gi - 1)...min(5, gi + 1) {
                for z in max(0, bi - 1)...min(5, bi + 1) {
                    let index = 36 * x + 6 * y + z
                    let d = lab.distance(to: palette256Lab[index])
                    if d < bestDistance { best = 16 + index; bestDistance = d }
                }
            }
        }
        for index in 216..<240 {
            let d = lab.distance(to: palette256Lab[index])
            if d < bestDistance { best = 16 + index; bestDistance = d }
        }
        return best
    }

    /// The nearest of the 240 for a flat colour (a card, a badge, a ring): one cell cannot
    /// be dithered, and the plain nearest turns dark or muted colours grey (navy (29,53,87)
    /// → grey 236, purple (106,76,147) → slate 60). A clearly coloured colour (OKLab chroma
    /// at least 0.06) keeps its hue: the nearest among the palette colours within 20° of its
    /// hue, 70% to 250% of its chroma and within 0.12 of its lightness; the plain nearest
    /// when there is none. Faint colours (a photo darkened under a caption) keep the plain
    /// nearest: the hue rule would lift a dull brown to bright ochre.
    public static func nearest256KeepingHue(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        nearest256KeepingHue(r, g, b, searchingAll: false)
    }

    /// `searchingAll`: every cube colour, not the neighbourhood first (what the quick search
    /// must agree with; ColorMappingTests checks it).
    static func nearest256KeepingHue(_ r: UInt8, _ g: UInt8, _ b: UInt8, searchingAll: Bool) -> Int {
        let lab = OKLab(r, g, b)
        let chroma = lab.chroma
        guard chroma >= minKeptChroma else { return nearest256(r, g, b) }
        let hue = lab.hue
        var best = -1
        var bestDistance = Float.greatestFiniteMagnitude
        func consider(_ index: Int) {
            guard palette256Chroma[index] >= 0.7 * chroma, palette256Chroma[index] <= maxChromaRatio * chroma,
                  abs(palette256Lab[index].l - lab.l) <= maxLightnessShift else { return }
            var difference = abs(palette256Hue[index] - hue)
            if difference > .pi { difference = 2 * .pi - difference }
            guard difference <= maxHueShift else { return }
            let d = lab.distance(to: palette256Lab[index])
            if d < bestDistance { best = index; bestDistance = d }
        }
        // The cube cells two levels round the colour first (a frame of an animation shades
        // thousands of cells into new colours); the whole cube only when none of them will do.
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : (v < 115 ? 1 : min(5, (Int(v) - 35) / 40)) }
        let (ri, gi, bi) = (level(r), level(g), level(b))
        for x in max(0, ri - 2)...min(5, ri + 2) {
            for y in max(0, gi - 2)...min(5, gi + 2) {
                for z in max(0, bi - 2)...min(5, bi + 2) { consider(36 * x + 6 * y + z) }
            }
        }
        if best < 0 || searchingAll { for index in 0..<216 { consider(index) } }
        return best < 0 ? nearest256(r, g, b) : 16 + best
    }

    private static let maxHueShift: Float = 20 * .pi / 180
    private static let maxLightnessShift: Float = 0.12
    /// At most this many times as colourful: navy (29,53,87) is xterm's NavyBlue (17), not
    /// the saturated royal blue (18, three times its chroma) it was before.
    private static let maxChromaRatio: Float = 2.5
    private static let minKeptChroma: Float = 0.06
    private static let palette256Chroma: [Float] = palette256Lab.map(\.chroma)
    private static let palette256Hue: [Float] = palette256Lab.map(\.hue)

    /// The full search over all 240 (what `nearest256` must agree with).
    static func nearest256BySearchingAll(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        nearest(OKLab(r, g, b), in: palette256Lab, offset: 16)
    }

    private static func nearest(_ color: (UInt8, UInt8, UInt8), among count: Int) -> Int {
        nearest(OKLab(color.0, color.1, color.2), in: Array(basicLab.prefix(count)), offset: 0)
    }

    private static func nearest(_ lab: OKLab, in table: [OKLab], offset: Int) -> Int {
        var best = 0
        var bestDistance = Float.greatestFiniteMagnitude
        for (index, candidate) in table.enumerated() {
            let d = lab.distance(to: candidate)
            if d < bestDistance { best = index; bestDistance = d }
        }
        return best + offset
    }

    private static let palette256Lab: [OKLab] = (16...255).map { index in
        let (r, g, b) = rgb(ofPaletteIndex: UInt8(index))
        return OKLab(r, g, b)
    }
    private static let basicLab: [OKLab] = basic.map { OKLab($0.0, $0.1, $0.2) }
}

/// A colour in OKLab (Björn Ottosson, 2020), where straight-line distance follows how
/// different colours look.
struct OKLab {
    var l: Float
    var a: Float
    var b: Float

    private static let linear: [Float] = (0..<256).map { value in
        let c = Float(value) / 255
        return c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
    }

    init(_ r8: UInt8, _ g8: UInt8, _ b8: UInt8) {
        let r = Self.linear[Int(r8)], g = Self.linear[Int(g8)], b = Self.linear[Int(b8)]
        let l = cbrtf(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let m = cbrtf(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let s = cbrtf(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        self.l = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
        self.a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
        self.b = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
    }

    var chroma: Float { (a * a + b * b).squareRoot() }
    var hue: Float { atan2f(b, a) }

    func distance(to other: OKLab) -> Float {
        let dl = l - other.l, da = a - other.a, db = b - other.b
        return dl * dl + da * da + db * db
    }
}
