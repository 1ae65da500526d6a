import StoriesCells

/// Eight and sixteen colours: the whole search, not a split chosen first and colours after.
/// With so few colours the best split of the means is often one no pair of palette colours
/// can show (a dark-red edge on maroon, in black and red, is a different edge), so every pair
/// of the palette is tried on every sub-pixel — each sub-pixel takes the nearer of the two,
/// which is a pattern every set can draw — and on every cut at an eighth, where each part
/// takes its own nearest; a plain cell in one colour as well. The least error wins: the
/// exact best cell for the cost below, in 120 pairs × 8 sub-pixels at sixteen colours.
///
/// A part's error in colour `c` comes from its sum alone: Σ (p − c)ᵀ M (p − c) is
/// Σ pᵀ M p − 2 cᵀ M S + k cᵀ M c, and the first term is the same whatever colour the part
/// is given, so it is left out of every candidate alike.
extension SymbolPicker {
    /// A cut at an eighth: the part the glyph draws (its sum and size) and the glyph.
    struct Cut {
        var sum: (Float, Float, Float)
        var size: Float
        var glyph: Character
    }

    @inline(__always)
    static func third(_ three: (Int, Int, Int), _ i: Int) -> Int {
        switch i {
        case 0: three.0
        case 1: three.1
        default: three.2
        }
    }

    /// The short-palette cost's quadratic form: plain RGB error (what PSNR measures), and
    /// the difference in luma `shortLumaWeight` times more (what SSIM follows).
    struct ShortCost {
        /// The palette colours (8 or 16), and for each, M c and cᵀ M c.
        let colors: [(Float, Float, Float)]
        let weighted: [(Float, Float, Float)]
        let own: [Float]

        init(palette: [(Float, Float, Float)], lumaWeight: Float) {
            colors = palette
            let (wr, wg, wb) = SymbolPicker.weights
            // M = I / 3 + λ y yᵀ, y the luma weights.
            func times(_ c: (Float, Float, Float)) -> (Float, Float, Float) {
                let y = lumaWeight * (wr * c.0 + wg * c.1 + wb * c.2)
                return (c.0 / 3 + wr * y, c.1 / 3 + wg * y, c.2 / 3 + wb * y)
            }
            weighted = palette.map(times)
            own = zip(palette, weighted).map { c, m in c.0 * m.0 + c.1 * m.1 + c.2 * m.2 }
            lumas = palette.map(Self.luma)
            squares = palette.map { $0.0 * $0.0 + $0.1 * $0.1 + $0.2 * $0.2 }
            chromas = palette.map(Self.chroma)
        }

        /// Each colour's squared distance from the grey of its luma.
        let chromas: [Float]

        @inline(__always)
        static func chroma(_ c: (Float, Float, Float)) -> Float {
            let y = luma(c)
            return (c.0 - y) * (c.0 - y) + (c.2 - y) * (c.2 - y)
        }

        /// Each colour's luma and squared length (for `ShortScore`).
        let lumas: [Float]
        let squares: [Float]

        @inline(__always)
        static func luma(_ c: (Float, Float, Float)) -> Float {
            let (wr, wg, wb) = SymbolPicker.weights
            return wr * c.0 + wg * c.1 + wb * c.2
        }

        /// The three colours nearest a part of `size` pixels summing to `s`.
        func nearestThree(sum s: (Float, Float, Float), size: Float) -> (Int, Int, Int) {
            let far = Float.greatestFiniteMagnitude
            var first = (far, 0), second = (far, 0), third = (far, 0)
            for c in colors.indices {
                let e = (error(c, sum: s, size: size), c)
                if e.0 < first.0 { third = second; second = first; first = e
                } else if e.0 < second.0 { third = second; second = e
                } else if e.0 < third.0 { third = e }
            }
            return (first.1, second.1, third.1)
        }

        /// A part of `size` pixels summing to `s`: its error in colour `c`, less the part's own constant.
        @inline(__always)
        func error(_ c: Int, sum s: (Float, Float, Float), size: Float) -> Float {
            let m = weighted[c]
            return size * own[c] - 2 * (m.0 * s.0 + m.1 * s.1 + m.2 * s.2)
        }
    }

    /// How much a luma difference counts beside the mean RGB one in 8 and 16 colours: the
    /// cost a part's nearer colour is chosen by. Measured with `stories bench fidelity
    /// --colors 16,8` (docs/architecture.md): 1–8, and luma-weighted channels instead of plain.
    static let shortLumaWeight: Float = 1

    /// The best cell of the set for the grid's `n` parts (their sums and sizes), and, when
    /// `cuts` is given, the cuts at eighths (each part below or left of the cut: its sum and
    /// size, and the glyph drawing it). `total`/`all`: the whole cell's sum and size;
    /// `lumaSquares`: the sum of its pixels' squared luma (their spread, for the score).
    func shortPaletteCell(parts: UnsafePointer<(Float, Float, Float)>, sizes: UnsafePointer<Float>, n: Int,
                          cuts: UnsafeBufferPointer<Cut>,
                          total: (Float, Float, Float), all: Float, lumaSquares: Float, cost: ShortCost,
                          beside: ShortScore.Beside = .init()) -> (cell: ImageCell, luma: Float) {
        let colors = cost.colors.count
        let score = ShortScore(cost: cost, total: total, all: all, lumaSquares: lumaSquares, beside: beside)
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: n * colors) { e -> (cell: ImageCell, luma: Float) in
            guard let e = e.baseAddress else { return (ImageCell(glyph: " ", foreground: .default, background: .default), 0) }
            for s in 0..<n {
                for c in 0..<colors { e[s * colors + c] = cost.error(c, sum: parts[s], size: sizes[s]) }
            }
            // One colour.
            var best = (score: Float.greatestFiniteMagnitude, glyph: solid, fg: 0, bg: 0), luma: Float = 0
            for c in 0..<colors {
                var tally = ShortScore.Tally()
                tally.add(c, sum: total, size: all, cost: cost)
                let j = score.of(tally)
                if j < best.score { best = (j, solid, c, c); luma = tally.y / all }
            }
            // Every pair on the grid: each part the nearer of the two.
            for a in 0..<colors {
                for z in (a + 1)..<max(a + 1, colors) {
                    var tally = ShortScore.Tally(), mask = 0
                    for s in 0..<n {
                        let c = e[s * colors + a] < e[s * colors + z] ? a : z
                        if c == a { mask |= 1 << s }
                        tally.add(c, sum: parts[s], size: sizes[s], cost: cost)
                    }
                    guard mask != 0, mask != (1 << n) - 1 else { continue }
                    let j = score.of(tally)
                    guard j < best.score - 1e-5 else { continue }
                    // Half blocks are always `▀`, the top in front (as every half-block cell is drawn).
                    best = symbols == .half && mask == 2 ? (j, "▀", z, a) : (j, Self.glyph(mask, symbols), a, z)
                    luma = tally.y / all
                }
            }
            // Every cut: each part among its three nearest (9 pairs).
            for cut in cuts {
                let rest = (total.0 - cut.sum.0, total.1 - cut.sum.1, total.2 - cut.sum.2), restSize = all - cut.size
                let fronts = cost.nearestThree(sum: cut.sum, size: cut.size), backs = cost.nearestThree(sum: rest, size: restSize)
                for i in 0..<9 {
                    let f = Self.third(fronts, i / 3), b = Self.third(backs, i % 3)
                    guard f != b else { continue }
                    var tally = ShortScore.Tally()
                    tally.add(f, sum: cut.sum, size: cut.size, cost: cost)
                    tally.add(b, sum: rest, size: restSize, cost: cost)
                    let j = score.of(tally)
                    guard j < best.score - 1e-5 else { continue }
                    best = (j, cut.glyph, f, b)
                    luma = tally.y / all
                }
            }
            return (ImageCell(glyph: best.glyph, foreground: .palette(UInt8(best.fg)), background: .palette(UInt8(best.bg))), luma)
        }
    }
}

/// How good a short-palette cell is: its structural likeness in luma, as SSIM measures it
/// within the cell (means, spreads and their covariance: a dark navy sky drawn black has
/// lost all of it, drawn blue little), and its RGB error, as PSNR measures it, `rgbWeight`
/// times. The less, the better.
struct ShortScore {
    static let c1: Float = 6.5025, c2: Float = 58.5225
    /// How much the RGB error counts, at 16 colours and at 8. Measured 3–30: more keeps
    /// PSNR, less SSIM; past 10 at 8 colours a navy sky goes black (docs/architecture.md).
    static func rgbWeight(colors: Int) -> Float { colors == 8 ? 7 : 6.5 }
    /// How much each neighbour's step counts beside the cell's own likeness. Measured
    /// 0.25–1 with `rgbWeight` 5–20: 0.25 kept SSIM ahead of chafa's on every photo at both
    /// depths with the least PSNR lost (docs/architecture.md).
    static let besideWeight: Float = 0.25
    /// How much a colour counts against a grey cell, at 8 colours: each sub-pixel's distance
    /// from the grey of its luma, as the RGB error counts. Eight colours have no grey between
    /// black and white, and SSIM alone draws a grey wall green (its luma) and a grey photo in
    /// red, cyan and magenta specks; a person reads those as wrong. Sixteen colours have two
    /// greys, and there the term cost SSIM (the camera 0.320 → 0.275) for nothing seen.
    /// Measured 0–14 (docs/architecture.md).
    static func greyWeight(colors: Int) -> Float { colors == 8 ? 7 : 0 }
    /// A cell is grey below `near` (its mean's distance from grey, 0–255), coloured past `far`.
    static let grey: (near: Float, far: Float) = (6, 20)
    let all: Float, meanX: Float, varianceX: Float, rgbWeight: Float
    /// `greyWeight`, as much as the cell is grey.
    let neutral: Float
    let beside: Beside

    /// The cells already drawn left of and above this one: each one's mean luma in the
    /// picture and as drawn. SSIM's windows straddle cells, so a step between two cells
    /// that the picture does not have (a smooth orange drawn half grey, half red) costs as
    /// much as one inside a cell.
    struct Beside {
        var left: (picture: Float, drawn: Float)?
        var above: (picture: Float, drawn: Float)?
    }

    init(cost: SymbolPicker.ShortCost, total: (Float, Float, Float), all: Float, lumaSquares: Float, beside: Beside = .init()) {
        self.all = all
        meanX = SymbolPicker.ShortCost.luma(total) / all
        varianceX = max(0, lumaSquares / all - meanX * meanX)
        self.beside = beside
        rgbWeight = Self.rgbWeight(colors: cost.colors.count)
        let chroma = SymbolPicker.ShortCost.chroma((total.0 / all, total.1 / all, total.2 / all)).squareRoot()
        neutral = Self.greyWeight(colors: cost.colors.count) * min(1, max(0, (Self.grey.far - chroma) / (Self.grey.far - Self.grey.near)))
    }

    /// The step from a neighbour to this cell as SSIM's structure term sees a window on both.
    @inline(__always)
    func step(_ neighbour: (picture: Float, drawn: Float)?, _ meanY: Float) -> Float {
        guard let neighbour else { return 0 }
        let dx = (meanX - neighbour.picture) / 2, dy = (meanY - neighbour.drawn) / 2
        return 1 - (2 * dx * dy + Self.c2) / (dx * dx + dy * dy + Self.c2)
    }

    /// The sums over a candidate's parts.
    struct Tally {
        var y: Float = 0, yy: Float = 0, xy: Float = 0, rgb: Float = 0, chroma: Float = 0

        @inline(__always)
        mutating func add(_ c: Int, sum s: (Float, Float, Float), size: Float, cost: SymbolPicker.ShortCost) {
            let yc = cost.lumas[c]
            y += size * yc
            yy += size * yc * yc
            xy += SymbolPicker.ShortCost.luma(s) * yc
            let p = cost.colors[c]
            chroma += size * cost.chromas[c]
            rgb += size * cost.squares[c] - 2 * (p.0 * s.0 + p.1 * s.1 + p.2 * s.2)
        }
    }

    @inline(__always)
    func of(_ t: Tally) -> Float {
        let meanY = t.y / all
        let varianceY = max(0, t.yy / all - meanY * meanY)
        let covariance = t.xy / all - meanX * meanY
        let l = (2 * meanX * meanY + Self.c1) / (meanX * meanX + meanY * meanY + Self.c1)
        let cs = (2 * covariance + Self.c2) / (varianceX + varianceY + Self.c2)
        return (1 - l * cs) + (rgbWeight * t.rgb + neutral * t.chroma) / (3 * all * 65025)
            + Self.besideWeight * (step(beside.left, meanY) + step(beside.above, meanY))
    }
}

extension SymbolPicker {
    /// A still's cell in 8 or 16 colours from its fine pixels' sums: the grid's parts (each
    /// `partSize` pixels), and the cuts at eighths from the rows' and columns' sums (8
    /// across, `rows` down) — across only where an eighth falls between rows of fine pixels.
    func shortFineCell(sums: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                       partSize: Float, rowSums: UnsafeMutablePointer<Float>, columnSums: UnsafeMutablePointer<Float>,
                       rows: Int, total: (Float, Float, Float), lumaSquares: Float, cost: ShortCost,
                       beside: ShortScore.Beside) -> (cell: ImageCell, luma: Float) {
        let all = Float(8 * rows)
        return withUnsafeTemporaryAllocation(of: Cut.self, capacity: rows - 1 + 7) { buffer in
            guard let cuts = buffer.baseAddress else { return (ImageCell(glyph: " ", foreground: .default, background: .default), 0) }
            var made = 0
            // Across: the glyph draws what is below the cut (a lower block of 8 − t eighths).
            var below = total
            for y in 0..<(rows - 1) {
                below.0 -= rowSums[3 * y]; below.1 -= rowSums[3 * y + 1]; below.2 -= rowSums[3 * y + 2]
                guard 8 * (y + 1) % rows == 0 else { continue }
                let t = 8 * (y + 1) / rows
                (cuts + made).initialize(to: Cut(sum: below, size: Float(8 * (rows - y - 1)),
                                                 glyph: Character(Unicode.Scalar(0x2580 + UInt32(8 - t)) ?? " ")))
                made += 1
            }
            // Down: the glyph draws what is left of the cut (a left block of t eighths).
            var left: (Float, Float, Float) = (0, 0, 0)
            for x in 0..<7 {
                left.0 += columnSums[3 * x]; left.1 += columnSums[3 * x + 1]; left.2 += columnSums[3 * x + 2]
                (cuts + made).initialize(to: Cut(sum: left, size: Float(rows * (x + 1)),
                                                 glyph: Character(Unicode.Scalar(0x2590 - UInt32(x + 1)) ?? " ")))
                made += 1
            }
            defer { cuts.deinitialize(count: made) }
            return shortFineCell(sums: sums, partSize: partSize, cuts: UnsafeBufferPointer(start: cuts, count: made), total: total,
                                 all: all, lumaSquares: lumaSquares, cost: cost, beside: beside)
        }
    }

    private func shortFineCell(sums: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                               partSize: Float, cuts: UnsafeBufferPointer<Cut>, total: (Float, Float, Float), all: Float,
                               lumaSquares: Float, cost: ShortCost, beside: ShortScore.Beside) -> (cell: ImageCell, luma: Float) {
        let n = count
        return withUnsafeTemporaryAllocation(of: (Float, Float, Float).self, capacity: n) { parts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: n) { sizes in
                guard let parts = parts.baseAddress, let sizes = sizes.baseAddress else {
                    return (ImageCell(glyph: " ", foreground: .default, background: .default), 0)
                }
                for i in 0..<n { parts[i] = (sums.0[i], sums.1[i], sums.2[i]); sizes[i] = partSize }
                return shortPaletteCell(parts: parts, sizes: sizes, n: n, cuts: cuts, total: total, all: all, lumaSquares: lumaSquares,
                                        cost: cost, beside: beside)
            }
        }
    }
}

extension SymbolPicker {
    /// A cell in 8 or 16 colours from the set's grid of sub-pixels (a video frame, a BlurHash).
    mutating func shortGridCell(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>, cost: ShortCost) -> ImageCell {
        let n = count
        return withUnsafeTemporaryAllocation(of: (Float, Float, Float).self, capacity: n) { parts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: n) { sizes in
                guard let parts = parts.baseAddress, let sizes = sizes.baseAddress else {
                    return ImageCell(glyph: " ", foreground: .default, background: .default)
                }
                var total: (Float, Float, Float) = (0, 0, 0), squares: Float = 0
                for i in 0..<n {
                    parts[i] = (r[i], g[i], b[i]); sizes[i] = 1
                    total.0 += r[i]; total.1 += g[i]; total.2 += b[i]
                    let y = ShortCost.luma(parts[i])
                    squares += y * y
                }
                let picked = shortPaletteCell(parts: parts, sizes: sizes, n: n, cuts: UnsafeBufferPointer(start: nil, count: 0), total: total,
                                              all: Float(n), lumaSquares: squares, cost: cost, beside: neighbours?.beside ?? .init())
                neighbours?.record(picture: ShortCost.luma(total) / Float(n), drawn: picked.luma)
                return picked.cell
            }
        }
    }
}

/// A still's cells in 8 and 16 colours are picked row by row, left to right: what was drawn
/// left of and above the next one (`ShortScore.Beside`), kept for one row.
struct ShortNeighbours {
    let width: Int
    private var above: [(picture: Float, drawn: Float)], current: [(picture: Float, drawn: Float)]
    private var column = 0, hasAbove = false

    init(width: Int) {
        self.width = max(1, width)
        above = Array(repeating: (0, 0), count: self.width)
        current = above
    }

    var beside: ShortScore.Beside {
        ShortScore.Beside(left: column > 0 ? current[column - 1] : nil, above: hasAbove ? above[column] : nil)
    }

    mutating func record(picture: Float, drawn: Float) {
        current[column] = (picture, drawn)
        column += 1
        if column == width { swap(&above, &current); column = 0; hasAbove = true }
    }
}
