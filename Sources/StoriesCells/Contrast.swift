import Foundation

/// WCAG contrast between what a terminal shows: text at least 4.5:1 against the background
/// it is drawn on, marks (rings, bars, frames) at least 3:1 — on a light terminal and a
/// dark one, at every colour depth (a colour is judged as the depth will show it).
public enum Contrast {
    public typealias RGB8 = (r: UInt8, g: UInt8, b: UInt8)

    /// WCAG 2's minimum for text (AA) and for marks that carry meaning.
    public static let text = 4.5
    public static let mark = 3.0

    /// Each 8-bit sRGB level in linear light (WCAG 2's formula), worked out once: a frame
    /// judges thousands of colours.
    static let linear: [Double] = (0...255).map { v in
        let s = Double(v) / 255
        return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
    }

    /// The 256 colours as xterm has them, and their luminance, worked out once.
    static let palette: [RGB8] = (0...255).map { index in
        let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(index))
        return (r, g, b)
    }
    static let paletteLuminance: [Double] = palette.map(luminance)

    /// Relative luminance (WCAG 2, sRGB).
    public static func luminance(_ c: RGB8) -> Double {
        linear.withUnsafeBufferPointer { table in
            0.2126 * table[Int(c.r)] + 0.7152 * table[Int(c.g)] + 0.0722 * table[Int(c.b)]
        }
    }

    public static func ratio(_ a: RGB8, _ b: RGB8) -> Double {
        let la = luminance(a), lb = luminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// What the terminal shows for `color` at `depth`, as RGB (its default as `fallback`;
    /// the palette's first 16 as xterm has them).
    public static func shown(_ color: Color, depth: ColorDepth, fallback: RGB8) -> RGB8 {
        let number = ColorMapping.terminalColor(color, depth: depth)
        guard number >= 0 else { return fallback }
        if depth == .direct {
            return (UInt8((number >> 16) & 0xFF), UInt8((number >> 8) & 0xFF), UInt8(number & 0xFF))
        }
        return palette[Int(UInt8(clamping: number))]
    }

    /// The contrast of `color` as text on `background`. Bold text at 8 and 16 colours in one
    /// of the first eight is shown bright by some terminals (xterm's `boldColors`, the Linux
    /// console) and as it is by others (kitty): it has to read either way, so the lesser
    /// counts (xterm showed a bold black "3 new" as #7f7f7f on cyan: 2.0:1).
    public static func ratio(of color: Color, bold: Bool, on background: RGB8, depth: ColorDepth, fallback: RGB8) -> Double {
        let plain = ratio(shown(color, depth: depth, fallback: fallback), background)
        guard bold, let brightened = brightenedByBold(color, depth: depth) else { return plain }
        return min(plain, ratio(brightened, background))
    }

    /// What a terminal that shows bold as bright shows for `color`, where that differs.
    public static func brightenedByBold(_ color: Color, depth: ColorDepth) -> RGB8? {
        guard depth == .eight || depth == .sixteen else { return nil }
        let number = ColorMapping.terminalColor(color, depth: depth)
        guard (0...7).contains(number) else { return nil }
        let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(number + 8))
        return (r, g, b)
    }

    /// `color`, or the colour nearest it that shows at least `minimum`:1 against
    /// `background` at `depth` (the most contrast there is when none does). `bold`: as text
    /// in bold, which reads both as it is and brightened (`ratio(of:bold:…)`).
    public static func readable(_ color: Color, on background: RGB8, minimum: Double, depth: ColorDepth,
                                fallback: RGB8, bold: Bool = false) -> Color {
        let wanted = shown(color, depth: depth, fallback: fallback)
        guard depth != .none,
              ratio(of: color, bold: bold, on: background, depth: depth, fallback: fallback) < minimum else { return color }
        // Nearest by weighted RGB, with a grey kept grey and a hue kept as near as it goes
        // (a light grey must not turn yellow to read on purple).
        func chroma(_ c: RGB8) -> Int { Int(max(c.r, c.g, c.b)) - Int(min(c.r, c.g, c.b)) }
        func distance(_ c: RGB8) -> Int {
            let dr = Int(c.r) - Int(wanted.r), dg = Int(c.g) - Int(wanted.g), db = Int(c.b) - Int(wanted.b)
            let dc = chroma(c) - chroma(wanted)
            return 2 * dr * dr + 4 * dg * dg + 3 * db * db + 6 * dc * dc
        }
        if depth == .direct {
            // Towards black on a light background, towards white on a dark one, a step at a time.
            let target: RGB8 = luminance(background) > 0.18 ? (0, 0, 0) : (255, 255, 255)
            for step in 1...20 {
                let t = Double(step) / 20
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
                let c: RGB8 = (mix(wanted.r, target.r), mix(wanted.g, target.g), mix(wanted.b, target.b))
                if ratio(c, background) >= minimum { return .rgb(c.r, c.g, c.b) }
            }
            return .rgb(target.r, target.g, target.b)
        }
        let candidates: ClosedRange<Int> = switch depth {
        case .palette256: 16...255
        case .sixteen: 0...15
        default: 0...7
        }
        var best: (index: Int, distance: Int)?
        var strongest = (index: candidates.lowerBound, ratio: 0.0)
        // A candidate is shown as its own palette entry (the 16 are themselves at 8 and 16
        // colours): its luminance from a table, unless bold may brighten it.
        let backgroundLuminance = luminance(background)
        let brightens = bold && (depth == .eight || depth == .sixteen)
        for index in candidates {
            let (r, g, b) = palette[index]
            let r2: Double
            if brightens {
                r2 = ratio(of: .palette(UInt8(index)), bold: bold, on: background, depth: depth, fallback: fallback)
            } else {
                let own = paletteLuminance[index]
                r2 = (max(own, backgroundLuminance) + 0.05) / (min(own, backgroundLuminance) + 0.05)
            }
            if r2 > strongest.ratio { strongest = (index, r2) }
            guard r2 >= minimum else { continue }
            let d = distance((r, g, b))
            if best.map({ d < $0.distance }) ?? true { best = (index, d) }
        }
        return .palette(UInt8(best?.index ?? strongest.index))
    }
}

