/// How many colours a terminal shows, and how a `Color` becomes one of them. Pure, so the
/// backend's choices are unit-tested.
public enum ColorDepth: Equatable, Sendable {
    case none, eight, sixteen, palette256, direct

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
                return (Int(r) << 16) | (Int(g) << 8) | Int(b)
            }
            return Int(index)
        case (.palette(let index), .sixteen):
            return index < 16 ? Int(index) : nearest(rgb(ofPaletteIndex: index), among: 16)
        case (.palette(let index), .eight):
            return index < 8 ? Int(index) : (index < 16 ? Int(index) - 8 : nearest(rgb(ofPaletteIndex: index), among: 8))
        case (.rgb(let r, let g, let b), .direct):
            return (Int(r) << 16) | (Int(g) << 8) | Int(b)
        case (.rgb(let r, let g, let b), .palette256):
            return nearest256(r, g, b)
        case (.rgb(let r, let g, let b), .sixteen):
            return nearest((r, g, b), among: 16)
        case (.rgb(let r, let g, let b), .eight):
            return nearest((r, g, b), among: 8)
        }
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

    /// Nearest of the xterm colour cube and grey ramp (indices 16–255): the cube cells and
    /// greys around the colour are compared, which gives the same answer as searching all 240.
    public static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        func levelIndex(_ v: UInt8) -> Int {
            let v = Int(v)
            return v < 48 ? 0 : (v < 115 ? 1 : min(5, (v - 35) / 40))
        }
        let target = (r, g, b)
        var best = 16
        var bestDistance = Int.max
        func consider(_ index: Int) {
            let d = distance(rgb(ofPaletteIndex: UInt8(index)), target)
            if d < bestDistance { best = index; bestDistance = d }
        }
        let (ri, gi, bi) = (levelIndex(r), levelIndex(g), levelIndex(b))
        for dr in -1...1 { for dg in -1...1 { for db in -1...1 {
            let (x, y, z) = (ri + dr, gi + dg, bi + db)
            if (0...5).contains(x), (0...5).contains(y), (0...5).contains(z) { consider(16 + 36 * x + 6 * y + z) }
        } } }
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let grey = min(23, max(0, (average - 3) / 10))
        for index in max(0, grey - 1)...min(23, grey + 1) { consider(232 + index) }
        return best
    }

    private static func nearest(_ color: (UInt8, UInt8, UInt8), among count: Int) -> Int {
        var best = 0
        var bestDistance = Int.max
        for index in 0..<count {
            let d = distance(basic[index], color)
            if d < bestDistance { best = index; bestDistance = d }
        }
        return best
    }

    private static func distance(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.0) - Int(b.0), dg = Int(a.1) - Int(b.1), db = Int(a.2) - Int(b.2)
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }
}
