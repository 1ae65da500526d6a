import Foundation
import StoriesCells

/// Terminal output drawn back into pixels, to measure how faithful a renderer's cells are
/// (`stories bench fidelity`): the ANSI text any cell renderer prints (stories, chafa, timg)
/// is read into cells, and each cell is painted as a terminal would — its symbol's coverage
/// in its foreground colour over its background colour — at `cellWidth × cellHeight` pixels
/// a cell. Block elements, quadrants, sextants, octants, shades and box drawing (by their
/// Unicode names: the arms, light or heavy, dashed, arcs and diagonals) are known; any other
/// character counts as half covered and is counted in `unknown`.
public struct CellDrawBack: Sendable {
    public struct Cell: Equatable, Sendable {
        public var glyph: Character
        public var foreground: (UInt8, UInt8, UInt8)
        public var background: (UInt8, UInt8, UInt8)

        public static func == (a: Cell, b: Cell) -> Bool {
            a.glyph == b.glyph && a.foreground == b.foreground && a.background == b.background
        }
    }

    public var columns: Int
    public var rows: Int
    public var cells: [Cell]
    /// Cells whose character has no known coverage.
    public var unknown = 0

    /// Pixels a cell is drawn back at: 6×12 divides into halves, quadrants, sextants and
    /// octants alike.
    public static let cellWidth = 6
    public static let cellHeight = 12

    /// The terminal's own colours, where output leaves them (SGR 39 and 49, or none).
    public static let defaultForeground: (UInt8, UInt8, UInt8) = (229, 229, 229)
    public static let defaultBackground: (UInt8, UInt8, UInt8) = (0, 0, 0)

    /// Reads ANSI output: SGR colours (`38;2`, `38;5`, 30–37, 90–97 and their backgrounds,
    /// 0, 7 and 27, 39 and 49), new lines, carriage returns and cursor-forward; every other
    /// escape sequence is skipped. At most `maxColumns × maxRows` cells are kept.
    public init(ansi text: String, maxColumns: Int = 1000, maxRows: Int = 1000) {
        var grid: [[Cell]] = [[]]
        var fg = Self.defaultForeground, bg = Self.defaultBackground
        var fgSet = false, bgSet = false
        var inverse = false
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func put(_ glyph: Character) {
            guard grid[grid.count - 1].count < maxColumns else { return }
            let f = fgSet ? fg : Self.defaultForeground, b = bgSet ? bg : Self.defaultBackground
            grid[grid.count - 1].append(Cell(glyph: glyph, foreground: inverse ? b : f, background: inverse ? f : b))
        }
        while i < scalars.count {
            let s = scalars[i]
            if s == "\u{1B}" {
                guard i + 1 < scalars.count else { break }
                if scalars[i + 1] == "[" {
                    var j = i + 2
                    var parameters = ""
                    while j < scalars.count, !(0x40...0x7E).contains(scalars[j].value) {
                        parameters.unicodeScalars.append(scalars[j])
                        j += 1
                    }
                    guard j < scalars.count else { break }
                    let final = scalars[j]
                    if final == "m", !parameters.hasPrefix("?") {
                        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                        var k = 0
                        func channel(_ at: Int) -> UInt8 { UInt8(clamping: numbers.indices.contains(at) ? numbers[at] : 0) }
                        while k < max(1, numbers.count) {
                            let n = numbers.isEmpty ? 0 : numbers[k]
                            switch n {
                            case 0: fgSet = false; bgSet = false; inverse = false
                            case 7: inverse = true
                            case 27: inverse = false
                            case 30...37: fg = ColorMapping.rgb(ofPaletteIndex: UInt8(n - 30)); fgSet = true
                            case 90...97: fg = ColorMapping.rgb(ofPaletteIndex: UInt8(n - 90 + 8)); fgSet = true
                            case 40...47: bg = ColorMapping.rgb(ofPaletteIndex: UInt8(n - 40)); bgSet = true
                            case 100...107: bg = ColorMapping.rgb(ofPaletteIndex: UInt8(n - 100 + 8)); bgSet = true
                            case 39: fgSet = false
                            case 49: bgSet = false
                            case 38, 48:
                                let mode = numbers.indices.contains(k + 1) ? numbers[k + 1] : 0
                                var colour: (UInt8, UInt8, UInt8)?
                                if mode == 5 {
                                    colour = ColorMapping.rgb(ofPaletteIndex: channel(k + 2))
                                    k += 2
                                } else if mode == 2 {
                                    colour = (channel(k + 2), channel(k + 3), channel(k + 4))
                                    k += 4
                                }
                                if let colour {
                                    if n == 38 { fg = colour; fgSet = true } else { bg = colour; bgSet = true }
                                }
                            default: break
                            }
                            k += 1
                        }
                    } else if final == "C" {
                        for _ in 0..<min(maxColumns, max(1, Int(parameters) ?? 1)) { put(" ") }
                    }
                    i = j + 1
                } else if scalars[i + 1] == "]" || scalars[i + 1] == "_" || scalars[i + 1] == "P" {
                    // OSC, APC, DCS: up to BEL or ST.
                    var j = i + 2
                    while j < scalars.count, scalars[j] != "\u{07}", !(scalars[j] == "\u{1B}" && j + 1 < scalars.count && scalars[j + 1] == "\\") { j += 1 }
                    i = j + (j < scalars.count && scalars[j] == "\u{07}" ? 1 : 2)
                } else {
                    i += 2
                }
                continue
            }
            if s == "\n" {
                if grid.count < maxRows { grid.append([]) } else { break }
            } else if s == "\r" {
                // Output that returns to the line's start writes over it: rare; kept simple.
            } else if s.value >= 0x20 {
                // A combining mark (variation selectors) joins the character before it.
                if s.properties.generalCategory == .nonspacingMark || (0xFE00...0xFE0F).contains(s.value) { i += 1; continue }
                put(Character(s))
            }
            i += 1
        }
        while let last = grid.last, last.isEmpty, grid.count > 1 { grid.removeLast() }
        rows = grid.count
        columns = grid.map(\.count).max() ?? 0
        var flat: [Cell] = []
        flat.reserveCapacity(rows * columns)
        for line in grid {
            flat += line
            // A short line is padded with the terminal's background.
            flat += Array(repeating: Cell(glyph: " ", foreground: Self.defaultForeground, background: Self.defaultBackground),
                          count: columns - line.count)
        }
        cells = flat
    }

    /// The cells painted: `columns × cellWidth` by `rows × cellHeight` pixels.
    public mutating func pixels() -> RGBImage {
        let cw = Self.cellWidth, ch = Self.cellHeight
        var image = RGBImage(width: columns * cw, height: rows * ch)
        var masks: [Character: [Float]?] = [:]
        unknown = 0
        for y in 0..<rows {
            for x in 0..<columns {
                let cell = cells[y * columns + x]
                let mask: [Float]?
                if let known = masks[cell.glyph] { mask = known } else {
                    mask = Self.coverage(cell.glyph)
                    masks[cell.glyph] = mask
                }
                if mask == nil { unknown += 1 }
                for py in 0..<ch {
                    for px in 0..<cw {
                        let a = mask?[py * cw + px] ?? 0.5
                        let i = ((y * ch + py) * image.width + x * cw + px) * 3
                        image.pixels[i] = Self.mix(cell.foreground.0, cell.background.0, a)
                        image.pixels[i + 1] = Self.mix(cell.foreground.1, cell.background.1, a)
                        image.pixels[i + 2] = Self.mix(cell.foreground.2, cell.background.2, a)
                    }
                }
            }
        }
        return image
    }

    private static func mix(_ f: UInt8, _ b: UInt8, _ a: Float) -> UInt8 {
        UInt8(min(255, max(0, Float(f) * a + Float(b) * (1 - a) + 0.5)))
    }

    /// How much of each of the cell's `width × height` pixels (`cellWidth × cellHeight`
    /// unless said) `glyph` covers (0…1), nil for a character whose shape is not known.
    /// Worked out on a 4× finer grid. `stories render` draws block symbols and box drawing
    /// with it, as terminals draw them themselves rather than from the font.
    public static func coverage(_ glyph: Character, width: Int = cellWidth, height: Int = cellHeight) -> [Float]? {
        guard let test = shape(glyph), width > 0, height > 0 else { return nil }
        let cw = width, ch = height, fine = 4
        var mask = [Float](repeating: 0, count: cw * ch)
        for py in 0..<ch {
            for px in 0..<cw {
                var hits = 0
                for sy in 0..<fine {
                    for sx in 0..<fine {
                        let u = (Double(px * fine + sx) + 0.5) / Double(cw * fine)
                        let v = (Double(py * fine + sy) + 0.5) / Double(ch * fine)
                        if test(u, v) { hits += 1 }
                    }
                }
                mask[py * cw + px] = Float(hits) / Float(fine * fine)
            }
        }
        return mask
    }

    /// Whether the point (u, v) of the cell (0…1 from its top left) is drawn in the foreground.
    static func shape(_ glyph: Character) -> ((Double, Double) -> Bool)? {
        guard glyph.unicodeScalars.count == 1, let scalar = glyph.unicodeScalars.first else { return nil }
        let v = scalar.value
        func cells(_ mask: Int, columns: Int, rows: Int) -> (Double, Double) -> Bool {
            { u, w in
                let cx = min(columns - 1, Int(u * Double(columns))), cy = min(rows - 1, Int(w * Double(rows)))
                return mask & (1 << (cy * columns + cx)) != 0
            }
        }
        switch v {
        case 0x20: return { _, _ in false }
        case 0x2588: return { _, _ in true }
        case 0x2580: return { _, y in y < 0.5 }
        case 0x2581...0x2587: // lower one eighth … seven eighths
            let part = Double(v - 0x2580) / 8
            return { _, y in y >= 1 - part }
        case 0x2589...0x258F: // left seven eighths … one eighth
            let part = Double(0x2590 - v) / 8
            return { x, _ in x < part }
        case 0x2590: return { x, _ in x >= 0.5 }
        case 0x2591, 0x2592, 0x2593: // shades: a quarter, half, three quarters, evenly
            let part = Double(v - 0x2590) / 4
            return { x, y in
                // An even spread at the fine grid: covered where a Bayer threshold is below `part`.
                let bx = Int(x * 24) % 4, by = Int(y * 48) % 4
                let bayer = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5][by * 4 + bx]
                return (Double(bayer) + 0.5) / 16 < part
            }
        case 0x2594: return { _, y in y < 1.0 / 8 }
        case 0x2595: return { x, _ in x >= 7.0 / 8 }
        case 0x2596...0x259F:
            let masks = [4, 8, 1, 13, 9, 7, 11, 2, 6, 14] // ▖▗▘▙▚▛▜▝▞▟ as quadrant bits
            return cells(masks[Int(v - 0x2596)], columns: 2, rows: 2)
        case 0x1FB00...0x1FB3B:
            let index = Int(v - 0x1FB00)
            return cells(SymbolPicker.sextantGlyphs.firstIndex(of: glyph) ?? index, columns: 2, rows: 3)
        case 0x1CD00...0x1CDE5, 0x1CEA0, 0x1CEA3, 0x1CEA8, 0x1CEAB, 0x1FB82, 0x1FB85, 0x1FBE6, 0x1FBE7:
            guard let mask = SymbolPicker.octantGlyphs.firstIndex(of: glyph) else { return nil }
            return cells(mask, columns: 2, rows: 4)
        case 0x2500...0x257F:
            return boxDrawing(scalar)
        default:
            return nil
        }
    }

    /// A box-drawing character from its Unicode name: arms to the left, right, up and down
    /// from the centre, light (an eighth of the cell thick) or heavy (a quarter); dashed ones
    /// covered in part; arcs as their arms; diagonals as lines corner to corner.
    static func boxDrawing(_ scalar: Unicode.Scalar) -> ((Double, Double) -> Bool)? {
        guard let name = scalar.properties.name, name.hasPrefix("BOX DRAWINGS ") else { return nil }
        let words = name.dropFirst("BOX DRAWINGS ".count).split(separator: " ").map(String.init)
        if words.contains("DIAGONAL") {
            let rising = name.contains("UPPER RIGHT TO LOWER LEFT"), falling = name.contains("UPPER LEFT TO LOWER RIGHT")
            let cross = words.contains("CROSS")
            return { x, y in
                let t = 0.09
                let onFalling = abs(x - y) < t, onRising = abs(x + y - 1) < t
                return (falling || cross) && onFalling || (rising || cross) && onRising
            }
        }
        // Arms and their weights (1: light, 2: heavy; double lines as heavy).
        var arms: [String: Int] = [:]
        var dashes = 1
        for segment in words.split(separator: "AND") {
            var weight = 0
            var directions: [String] = []
            let segment = Array(segment)
            for (index, word) in segment.enumerated() {
                let dash = index + 1 < segment.count && segment[index + 1] == "DASH"
                switch word {
                case "DOUBLE" where dash: dashes = 2
                case "LIGHT": weight = 1
                case "HEAVY", "DOUBLE": weight = 2
                case "LEFT", "RIGHT", "UP", "DOWN": directions.append(word)
                case "HORIZONTAL": directions += ["LEFT", "RIGHT"]
                case "VERTICAL": directions += ["UP", "DOWN"]
                case "TRIPLE": dashes = 3
                case "QUADRUPLE": dashes = 4
                default: break
                }
            }
            for direction in directions { arms[direction] = weight }
        }
        // A segment without a weight takes the name's (LIGHT DOWN AND RIGHT: both light).
        let overall = words.contains("HEAVY") || (words.contains("DOUBLE") && !name.contains("DOUBLE DASH")) ? 2 : 1
        for (direction, weight) in arms where weight == 0 { arms[direction] = overall }
        guard !arms.isEmpty else { return nil }
        return { x, y in
            // Dashed: gaps between dashes along the line.
            func dashed(_ along: Double) -> Bool {
                guard dashes > 1 else { return true }
                let phase = (along * Double(dashes)).truncatingRemainder(dividingBy: 1)
                return phase < 0.6
            }
            for (direction, weight) in arms {
                let half = Double(weight) / 16 // half the thickness: 1/16 light, 1/8 heavy
                switch direction {
                case "LEFT": if x <= 0.5 + half, abs(y - 0.5) < half, dashed(x) { return true }
                case "RIGHT": if x >= 0.5 - half, abs(y - 0.5) < half, dashed(x) { return true }
                case "UP": if y <= 0.5 + half, abs(x - 0.5) < half, dashed(y) { return true }
                case "DOWN": if y >= 0.5 - half, abs(x - 0.5) < half, dashed(y) { return true }
                default: break
                }
            }
            return false
        }
    }
}

/// How close one picture is to another of the same size: SSIM on luma (Gaussian window,
/// σ 1.5, 11 taps, the constants of Wang et al. 2004) and PSNR on RGB.
public enum PictureMetrics {
    public static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        guard a.width == b.width, a.height == b.height, !a.pixels.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<a.pixels.count {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
        }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    static func luma(_ image: RGBImage) -> [Double] {
        (0..<(image.width * image.height)).map { (i: Int) -> Double in
            let r = Double(image.pixels[i * 3]), g = Double(image.pixels[i * 3 + 1]), b = Double(image.pixels[i * 3 + 2])
            return 0.299 * r + 0.587 * g + 0.114 * b
        }
    }

    public static func ssim(_ a: RGBImage, _ b: RGBImage) -> Double {
        guard a.width == b.width, a.height == b.height, a.width >= 11, a.height >= 11 else { return 0 }
        let w = a.width, h = a.height
        let x = luma(a), y = luma(b)
        let kernel: [Double] = {
            let raw = (-5...5).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
            let total = raw.reduce(0, +)
            return raw.map { $0 / total }
        }()
        // Separable blur, valid region only.
        func blur(_ values: [Double]) -> [Double] {
            let vw = w - 10, vh = h - 10
            var horizontal = [Double](repeating: 0, count: vw * h)
            for row in 0..<h {
                for col in 0..<vw {
                    var s = 0.0
                    for k in 0..<11 { s += kernel[k] * values[row * w + col + k] }
                    horizontal[row * vw + col] = s
                }
            }
            var out = [Double](repeating: 0, count: vw * vh)
            for row in 0..<vh {
                for col in 0..<vw {
                    var s = 0.0
                    for k in 0..<11 { s += kernel[k] * horizontal[(row + k) * vw + col] }
                    out[row * vw + col] = s
                }
            }
            return out
        }
        let mx = blur(x), my = blur(y)
        func product(_ p: [Double], _ q: [Double]) -> [Double] { zip(p, q).map { (a: Double, b: Double) -> Double in a * b } }
        let xx = blur(product(x, x)), yy = blur(product(y, y)), xy = blur(product(x, y))
        let c1: Double = 2.55 * 2.55, c2: Double = 7.65 * 7.65 // (0.01 × 255)², (0.03 × 255)²
        var total = 0.0
        for i in 0..<mx.count {
            let sx = xx[i] - mx[i] * mx[i], sy = yy[i] - my[i] * my[i], sxy = xy[i] - mx[i] * my[i]
            total += ((2 * mx[i] * my[i] + c1) * (2 * sxy + c2)) / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (sx + sy + c2))
        }
        return total / Double(mx.count)
    }
}
