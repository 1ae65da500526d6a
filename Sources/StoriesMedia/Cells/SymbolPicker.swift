import StoriesCells

/// Chooses, for one cell, the symbol of a set and its two colours with the least error
/// against the cell's pixels (as chafa does): every split of the cell's sub-pixels into a
/// foreground and a background group that the set can draw is tried, each group drawn in
/// its mean colour, and the split that leaves the least squared error wins.
///
/// The error is weighed towards brightness (Rec. 601 luma weights, red 0.299, green 0.587,
/// blue 0.114, on gamma-encoded values): the eye follows edges of light and dark far more
/// than of hue, and a mean of encoded values is what a terminal's two colours can show. In
/// 256 colours each mean's two nearest palette colours are tried in pairs, each sub-pixel
/// given again to the nearer of the pair, and a plain cell in the whole's nearest colour is
/// kept when it is nearer still: no dithering, so a smooth area is never covered in a
/// pattern. Eight and sixteen colours search every pair instead (`shortPaletteCell`).
struct SymbolPicker {
    let symbols: CellSymbols
    let depth: ColorDepth
    /// Sub-pixels a cell: 2, 4, 6 or 8.
    let count: Int
    /// `nearestTwo` remembered (256 colours only: truecolor makes none, 8 and 16 search every pair).
    private var nearMemo: [(key: UInt32, first: Int, second: Int)]

    static let weights: (Float, Float, Float) = (0.299, 0.587, 0.114)

    /// See `cost`.
    let lumaWeight: Float
    /// Every split (stills); otherwise only the cuts by luma (video, `walkSplitsByLuma`).
    let exhaustive: Bool
    /// In 8 and 16 colours, the whole search's cost (`shortPaletteCell`); nil otherwise.
    let shortCost: ShortCost?
    /// In 8 and 16 colours, a still's cells drawn so far beside the next (set by `CellImage.picked`).
    var neighbours: ShortNeighbours?

    init(symbols: CellSymbols, depth: ColorDepth, palette: TerminalPalette = .xterm, exhaustive: Bool = true) {
        self.exhaustive = exhaustive
        nearMemo = depth == .palette256
            ? Array(repeating: (.max, 0, 0), count: 1 << 13) : []
        self.symbols = symbols
        self.depth = depth
        // Measured (`stories bench fidelity`, weights 0–8): more luma keeps SSIM, less keeps
        // PSNR. This keeps both at or above chafa's on the demo's photos but the smooth
        // orange retina, where no weight keeps both (SSIM +0.000, PSNR −0.02 dB).
        lumaWeight = 0.1
        let (px, py) = symbols.pixelsPerCell
        count = px * py
        shortCost = depth == .eight || depth == .sixteen
            ? ShortCost(palette: (0..<(depth == .eight ? 8 : 16)).map { index in
                let (r, g, b) = palette[index]
                return (Float(r), Float(g), Float(b))
            }, lumaWeight: Self.shortLumaWeight) : nil
    }

    /// The cell for sub-pixels `r`, `g`, `b` (row by row, `count` of each).
    mutating func cell(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>) -> ImageCell {
        if let shortCost { return shortGridCell(r, g, b, cost: shortCost) }
        return cell(r, g, b, mask: bestSplit(r, g, b).mask)
    }

    /// The split of the sub-pixels whose two means leave the least error (0: one colour),
    /// with its score and one colour's (the greater, the less error; in sub-pixel means).
    private func bestSplit(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>)
        -> (mask: Int, score: Float, whole: Float) {
        let n = count
        let (wr, wg, wb) = Self.weights
        var tr: Float = 0, tg: Float = 0, tb: Float = 0
        for i in 0..<n { tr += r[i]; tg += g[i]; tb += b[i] }
        let whole = (wr * tr * tr + wg * tg * tg + wb * tb * tb) / Float(n)
        let best = exhaustive ? walkEverySplit(r, g, b, total: (tr, tg, tb), whole: whole)
            : walkSplitsByLuma(r, g, b, total: (tr, tg, tb), whole: whole)
        return (best.mask, best.score, whole)
    }

    /// A still's cell from its fine pixels, 8 across and `rows` down (row by row; `rows` a
    /// multiple of 4 and of the set's rows): the set's best split as above, or, where it
    /// leaves less error, a cut at an eighth of the cell — a lower block (`▁`…`▇`) or a left
    /// block (`▏`…`▉`), which place an edge more finely than the set's grid (a line, a
    /// horizon, a row of bricks).
    mutating func cell(fine r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>, rows: Int) -> ImageCell {
        let n = count, (px, py) = symbols.pixelsPerCell
        // The fine pixels must tile the grid and the quarters: `CellImage.finePixels` does.
        precondition(rows > 0 && rows % py == 0 && rows % 4 == 0, "fine rows do not tile the cell")
        let across = 8 / px, down = rows / py, k = Float(across * down), all = Float(8 * rows)
        let (wr, wg, wb) = Self.weights
        func score(_ s: (Float, Float, Float), _ size: Float) -> Float { (wr * s.0 * s.0 + wg * s.1 * s.1 + wb * s.2 * s.2) / size }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * n + 3 * rows + 3 * 8) { scratch -> ImageCell in
            guard let base = scratch.baseAddress else { return ImageCell(glyph: " ", foreground: .default, background: .default) }
            let (sr, sg, sb) = (base, base + n, base + 2 * n)
            let rowSums = base + 3 * n, columnSums = base + 3 * n + 3 * rows
            for i in 0..<(3 * n + 3 * rows + 3 * 8) { base[i] = 0 }
            for y in 0..<rows {
                for x in 0..<8 {
                    let at = y * 8 + x, cell = (y / down) * px + x / across
                    sr[cell] += r[at]; sg[cell] += g[at]; sb[cell] += b[at]
                    rowSums[3 * y] += r[at]; rowSums[3 * y + 1] += g[at]; rowSums[3 * y + 2] += b[at]
                    columnSums[3 * x] += r[at]; columnSums[3 * x + 1] += g[at]; columnSums[3 * x + 2] += b[at]
                }
            }
            var total: (Float, Float, Float) = (0, 0, 0)
            for y in 0..<rows { total.0 += rowSums[3 * y]; total.1 += rowSums[3 * y + 1]; total.2 += rowSums[3 * y + 2] }
            if let shortCost {
                var squares: Float = 0
                for i in 0..<(8 * rows) {
                    let y = ShortCost.luma((r[i], g[i], b[i]))
                    squares += y * y
                }
                let picked = shortFineCell(sums: (sr, sg, sb), partSize: k, rowSums: rowSums, columnSums: columnSums, rows: rows,
                                           total: total, lumaSquares: squares, cost: shortCost, beside: neighbours?.beside ?? .init())
                neighbours?.record(picture: ShortCost.luma(total) / all, drawn: picked.luma)
                return picked.cell
            }
            for i in 0..<n { sr[i] /= k; sg[i] /= k; sb[i] /= k }
            let grid = bestSplit(sr, sg, sb)
            // The best cut at an eighth, across (t: rows of eighths above it) or down (t: columns left of it).
            var best = (score: k * max(grid.score, grid.whole) + 1e-3 * all, across: true, t: 0)
            // Across, at the eighths that fall between rows of fine pixels (every one at 8 or
            // 24 rows; the quarters at 12).
            var top: (Float, Float, Float) = (0, 0, 0)
            for y in 0..<(rows - 1) {
                top.0 += rowSums[3 * y]; top.1 += rowSums[3 * y + 1]; top.2 += rowSums[3 * y + 2]
                guard 8 * (y + 1) % rows == 0 else { continue }
                let above = Float(8 * (y + 1))
                let s = score(top, above) + score((total.0 - top.0, total.1 - top.1, total.2 - top.2), all - above)
                if s > best.score { best = (s, true, 8 * (y + 1) / rows) }
            }
            var left: (Float, Float, Float) = (0, 0, 0)
            for x in 0..<7 {
                left.0 += columnSums[3 * x]; left.1 += columnSums[3 * x + 1]; left.2 += columnSums[3 * x + 2]
                let size = Float(rows * (x + 1))
                let s = score(left, size) + score((total.0 - left.0, total.1 - left.1, total.2 - left.2), all - size)
                if s > best.score { best = (s, false, x + 1) }
            }
            guard best.t > 0 else { return cell(sr, sg, sb, mask: grid.mask) }
            // The part the glyph draws (below the cut, or left of it) and the rest.
            let drawnSize = best.across ? Float(8 * (rows - best.t * rows / 8)) : Float(rows * best.t)
            var drawn: (Float, Float, Float) = (0, 0, 0)
            if best.across {
                for y in (best.t * rows / 8)..<rows { drawn.0 += rowSums[3 * y]; drawn.1 += rowSums[3 * y + 1]; drawn.2 += rowSums[3 * y + 2] }
            } else {
                for x in 0..<best.t { drawn.0 += columnSums[3 * x]; drawn.1 += columnSums[3 * x + 1]; drawn.2 += columnSums[3 * x + 2] }
            }
            let glyph = Character(Unicode.Scalar(best.across ? 0x2580 + UInt32(8 - best.t) : 0x2590 - UInt32(best.t)) ?? " ")
            let front = (drawn.0 / drawnSize, drawn.1 / drawnSize, drawn.2 / drawnSize)
            let back = ((total.0 - drawn.0) / (all - drawnSize), (total.1 - drawn.1) / (all - drawnSize), (total.2 - drawn.2) / (all - drawnSize))
            return cell(glyph: glyph, front: front, frontShare: drawnSize / all, back: back)
        }
    }

    /// A cut's cell from its two parts' means: as they are in truecolor; in a palette, the
    /// pair (of each mean's two nearest) or the one colour that leaves the least error,
    /// worked out from the means alone (each part's spread about its mean is the same
    /// whatever colour it is given).
    private mutating func cell(glyph: Character, front: (Float, Float, Float), frontShare f: Float,
                               back: (Float, Float, Float)) -> ImageCell {
        let frontPixel = Self.pixel(front.0, front.1, front.2), backPixel = Self.pixel(back.0, back.1, back.2)
        if depth == .direct || depth == .none {
            return ImageCell(glyph: glyph, foreground: .rgb(frontPixel.r, frontPixel.g, frontPixel.b),
                             background: .rgb(backPixel.r, backPixel.g, backPixel.b))
        }
        let mean = (f * front.0 + (1 - f) * back.0, f * front.1 + (1 - f) * back.1, f * front.2 + (1 - f) * back.2)
        func error(_ m: (Float, Float, Float), _ index: Int) -> Float {
            let (cr, cg, cb) = palette[index]
            return cost(m.0 - cr, m.1 - cg, m.2 - cb)
        }
        let plain = nearestTwo(Self.pixel(mean.0, mean.1, mean.2)).0
        var best = (error: error(mean, plain) + f * cost(front.0 - mean.0, front.1 - mean.1, front.2 - mean.2)
                        + (1 - f) * cost(back.0 - mean.0, back.1 - mean.1, back.2 - mean.2),
                    glyph: solid, fg: plain, bg: plain)
        let (p1, p2) = nearestTwo(frontPixel), (q1, q2) = nearestTwo(backPixel)
        for p in [p1, p2] {
            for q in [q1, q2] {
                let e = f * error(front, p) + (1 - f) * error(back, q)
                guard e < best.error - 1e-3 else { continue }
                best = (e, p == q ? solid : glyph, p, q)
            }
        }
        return ImageCell(glyph: best.glyph, foreground: .palette(UInt8(best.fg)), background: .palette(UInt8(best.bg)))
    }

    /// The cell for sub-pixels split by `bestMask` (0: one colour).
    private mutating func cell(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                               mask bestMask: Int) -> ImageCell {
        let n = count
        var tr: Float = 0, tg: Float = 0, tb: Float = 0
        for i in 0..<n { tr += r[i]; tg += g[i]; tb += b[i] }
        if bestMask == 0 {
            let c = Self.pixel(tr / Float(n), tg / Float(n), tb / Float(n))
            let only = color(c)
            return ImageCell(glyph: solid, foreground: only, background: only)
        }
        var fr: Float = 0, fg: Float = 0, fb: Float = 0, br: Float = 0, bg: Float = 0, bb: Float = 0
        var on = 0
        for i in 0..<n {
            if bestMask & (1 << i) != 0 { fr += r[i]; fg += g[i]; fb += b[i]; on += 1 } else { br += r[i]; bg += g[i]; bb += b[i] }
        }
        let front = Self.pixel(fr / Float(on), fg / Float(on), fb / Float(on))
        let back = Self.pixel(br / Float(n - on), bg / Float(n - on), bb / Float(n - on))
        if depth == .direct || depth == .none {
            return ImageCell(glyph: Self.glyph(bestMask, symbols), foreground: .rgb(front.r, front.g, front.b),
                             background: .rgb(back.r, back.g, back.b))
        }
        // A palette: for the two means, their two nearest palette colours each; for every
        // pair, the sub-pixels given again to the nearer of the two; and the whole's nearest
        // as a plain cell. The least error wins.
        let (p1, p2) = nearestTwo(front), (q1, q2) = nearestTwo(back)
        let plain = nearestTwo(Self.pixel(tr / Float(n), tg / Float(n), tb / Float(n))).0
        let candidates = (p1, p2, q1, q2)
        let palette = self.palette
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * n) { d -> ImageCell in
            // d[c * n + i]: candidate c's error at sub-pixel i (c 0, 1: the front's; 2, 3: the
            // back's), each worked out once for the four pairs and the plain cell.
            for c in 0..<4 {
                let (cr, cg, cb) = palette[Self.element(candidates, c)]
                for i in 0..<n { d[c * n + i] = cost(r[i] - cr, g[i] - cg, b[i] - cb) }
            }
            var bestError: Float = 0
            if let known = (0..<4).first(where: { Self.element(candidates, $0) == plain }) {
                for i in 0..<n { bestError += d[known * n + i] }
            } else {
                let (sr, sg, sb) = palette[plain]
                for i in 0..<n { bestError += cost(r[i] - sr, g[i] - sg, b[i] - sb) }
            }
            var choice = (glyph: solid, fg: plain, bg: plain)
            for pair in 0..<4 {
                let (a, z) = (pair >> 1, 2 + (pair & 1))
                let p = Self.element(candidates, a), q = Self.element(candidates, z)
                guard p != q else { continue }
                var error: Float = 0
                var chosen = 0
                for i in 0..<n {
                    let dp = d[a * n + i], dq = d[z * n + i]
                    if dp < dq { chosen |= 1 << i; error += dp } else { error += dq }
                }
                guard error < bestError - 1e-3, chosen != 0, chosen != (1 << n) - 1 else { continue }
                bestError = error
                choice = (Self.glyph(chosen, symbols), p, q)
            }
            return ImageCell(glyph: choice.glyph, foreground: .palette(UInt8(choice.fg)), background: .palette(UInt8(choice.bg)))
        }
    }

    @inline(__always)
    private static func element(_ four: (Int, Int, Int, Int), _ i: Int) -> Int {
        switch i {
        case 0: four.0
        case 1: four.1
        case 2: four.2
        default: four.3
        }
    }

    /// A palette colour's error for a pixel this far off: the picker's weights, and the
    /// difference in luma once more, `lumaWeight` times (a short palette keeps light and
    /// dark where a hue cannot be kept).
    @inline(__always)
    private func cost(_ dr: Float, _ dg: Float, _ db: Float) -> Float {
        let (wr, wg, wb) = Self.weights
        let y = wr * dr + wg * dg + wb * db
        return wr * dr * dr + wg * dg * dg + wb * db * db + lumaWeight * y * y
    }

    /// How good a split is: the weighted squared sums of its two groups over their sizes
    /// (the larger, the less error their two means leave).
    @inline(__always)
    private static func splitScore(on: (Float, Float, Float), count: Int, of n: Int, total: (Float, Float, Float)) -> Float {
        let (wr, wg, wb) = weights
        let off = (total.0 - on.0, total.1 - on.1, total.2 - on.2)
        return (wr * on.0 * on.0 + wg * on.1 * on.1 + wb * on.2 * on.2) / Float(count)
            + (wr * off.0 * off.0 + wg * off.1 * off.1 + wb * off.2 * off.2) / Float(n - count)
    }

    /// Every split the set can draw, by a Gray-code walk with the last sub-pixel in the
    /// background: each step moves one sub-pixel across, so each split costs a few additions.
    /// The split whose two means leave the least error (the greatest weighted sum of squared
    /// group sums over group sizes); 0 when no split beats one colour.
    @inline(__always)
    private func walkEverySplit(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                total: (Float, Float, Float), whole: Float) -> (mask: Int, score: Float) {
        let n = count
        var onR: Float = 0, onG: Float = 0, onB: Float = 0
        var onCount = 0
        var mask = 0
        var best = whole
        var bestMask = 0
        for k in 1..<(1 << (n - 1)) {
            let bit = k.trailingZeroBitCount
            mask ^= 1 << bit
            if mask & (1 << bit) != 0 {
                onR += r[bit]; onG += g[bit]; onB += b[bit]; onCount += 1
            } else {
                onR -= r[bit]; onG -= g[bit]; onB -= b[bit]; onCount -= 1
            }
            let score = Self.splitScore(on: (onR, onG, onB), count: onCount, of: n, total: total)
            if score > best + 1e-3 {
                best = score
                bestMask = mask
            }
        }
        return (bestMask, best)
    }

    /// Video's quicker walk (a frame of 200×60 octant cells in its budget): only the splits
    /// into darker and lighter sub-pixels — sorted by luma, each cut between neighbours —
    /// the splits that matter where a cell has one edge of light and dark.
    @inline(__always)
    private func walkSplitsByLuma(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                  total: (Float, Float, Float), whole: Float) -> (mask: Int, score: Float) {
        let n = count
        let (wr, wg, wb) = Self.weights
        var order: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 1, 2, 3, 4, 5, 6, 7)
        var lumas: (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &order) { raw -> (mask: Int, score: Float) in
            let index = raw.bindMemory(to: Int.self)
            return withUnsafeMutableBytes(of: &lumas) { rawLumas -> (mask: Int, score: Float) in
                let luma = rawLumas.bindMemory(to: Float.self)
                for i in 0..<n { luma[i] = wr * r[i] + wg * g[i] + wb * b[i] }
                for i in 1..<n { // insertion sort of at most eight
                    let item = index[i], key = luma[item]
                    var j = i - 1
                    while j >= 0, luma[index[j]] > key { index[j + 1] = index[j]; j -= 1 }
                    index[j + 1] = item
                }
                var onR: Float = 0, onG: Float = 0, onB: Float = 0
                var best = whole, bestCut = 0, mask = 0, bestMask = 0
                for cut in 1..<n {
                    let i = index[cut - 1]
                    onR += r[i]; onG += g[i]; onB += b[i]
                    mask |= 1 << i
                    let score = Self.splitScore(on: (onR, onG, onB), count: cut, of: n, total: total)
                    if score > best + 1e-3 { best = score; bestCut = cut; bestMask = mask }
                }
                return bestCut == 0 ? (0, whole) : (bestMask, best)
            }
        }
    }

    /// The palette's colours as floats, by index (0–255).
    private static let palette: [(Float, Float, Float)] = (0...255).map { rgb($0) }
    private var palette: [(Float, Float, Float)] { Self.palette }

    /// The two palette colours nearest `p` by the picker's error, of 16…255 (256 colours: 8
    /// and 16 never ask), remembered for the picture: a photo's cells share many means.
    private mutating func nearestTwo(_ p: RGBPixel) -> (Int, Int) {
        let key = UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b)
        let slot = Int((key &* 0x9E37_79B1) >> 19) & (nearMemo.count - 1)
        if !nearMemo.isEmpty, nearMemo[slot].key == key { return (nearMemo[slot].first, nearMemo[slot].second) }
        let r = Float(p.r), g = Float(p.g), b = Float(p.b)
        var first = (index: 0, error: Float.greatestFiniteMagnitude), second = first
        func consider(_ index: Int) {
            let (cr, cg, cb) = Self.palette[index]
            let e = cost(r - cr, g - cg, b - cb)
            if e < first.error { second = first; first = (index, e) } else if e < second.error { second = (index, e) }
        }
        // The cube cells a level round the colour, and every grey.
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : (v < 115 ? 1 : min(5, (Int(v) - 35) / 40)) }
        let (ri, gi, bi) = (level(p.r), level(p.g), level(p.b))
        for x in max(0, ri - 1)...min(5, ri + 1) {
            for y in max(0, gi - 1)...min(5, gi + 1) {
                for z in max(0, bi - 1)...min(5, bi + 1) { consider(16 + 36 * x + 6 * y + z) }
            }
        }
        for index in 232...255 { consider(index) }
        let found = (first.index, second.error < .greatestFiniteMagnitude ? second.index : first.index)
        if !nearMemo.isEmpty { nearMemo[slot] = (key, found.0, found.1) }
        return found
    }

    private static func pixel(_ r: Float, _ g: Float, _ b: Float) -> RGBPixel {
        RGBPixel(UInt8(min(255, max(0, r + 0.5))), UInt8(min(255, max(0, g + 0.5))), UInt8(min(255, max(0, b + 0.5))))
    }

    private static func rgb(_ index: Int) -> (Float, Float, Float) {
        let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(index))
        return (Float(r), Float(g), Float(b))
    }

    private mutating func color(_ p: RGBPixel) -> Color {
        switch depth {
        case .direct, .none: .rgb(p.r, p.g, p.b)
        default: .palette(UInt8(nearestTwo(p).0))
        }
    }

    /// A cell of one colour: `▀` in both colours for half blocks (as every half-block cell
    /// is drawn), `█` otherwise.
    var solid: Character { symbols == .half ? "▀" : "█" }
}
