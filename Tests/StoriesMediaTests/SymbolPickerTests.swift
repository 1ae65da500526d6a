import StoriesCells
import StoriesCore
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 30, points 1 and 6: the symbol picker, the symbol tables, and the draw-back the
/// fidelity benchmark measures with.
@Suite struct SymbolPickerTests {
    /// Every sextant and octant symbol is the one Unicode names for its pattern (read from
    /// the names the Swift runtime carries: "BLOCK OCTANT-1357" and the older characters'
    /// shapes as the draw-back knows them).
    @Test func everySymbolIsTheOneUnicodeNamesForItsPattern() throws {
        for (mask, glyph) in SymbolPicker.octantGlyphs.enumerated() {
            let scalar = try #require(glyph.unicodeScalars.first)
            let name = scalar.properties.name ?? ""
            if name.hasPrefix("BLOCK OCTANT-") {
                let cells = name.dropFirst("BLOCK OCTANT-".count).compactMap { $0.wholeNumberValue }
                #expect(cells.reduce(0) { $0 | 1 << ($1 - 1) } == mask, "\(name) for \(String(mask, radix: 2))")
            } else {
                // An older character: its drawn shape covers exactly the pattern's eighths.
                let coverage = try #require(CellDrawBack.coverage(glyph), "\(name)")
                for cell in 0..<8 {
                    let (cx, cy) = (cell % 2, cell / 2)
                    let centre = (cy * 3 + 1) * CellDrawBack.cellWidth + cx * 3 + 1
                    #expect((coverage[centre] > 0.5) == (mask & 1 << cell != 0), "\(name): eighth \(cell + 1)")
                }
            }
        }
        #expect(Set(SymbolPicker.octantGlyphs).count == 256)
        for (mask, glyph) in SymbolPicker.sextantGlyphs.enumerated() {
            let name = glyph.unicodeScalars.first?.properties.name ?? ""
            guard name.hasPrefix("BLOCK SEXTANT-") else { continue }
            let cells = name.dropFirst("BLOCK SEXTANT-".count).compactMap { $0.wholeNumberValue }
            #expect(cells.reduce(0) { $0 | 1 << ($1 - 1) } == mask, "\(name)")
        }
        #expect(Set(SymbolPicker.sextantGlyphs).count == 64)
    }

    /// The walk finds the split with the least error: checked against every split worked
    /// out the long way, on random cells of every set.
    @Test func thePickedSplitHasTheLeastErrorOfAll() {
        var generator = SystemRandomNumberGenerator()
        for symbols in [CellSymbols.quad, .sextant, .octant] {
            var picker = SymbolPicker(symbols: symbols, depth: .direct)
            let n = picker.count
            for _ in 0..<200 {
                let r = (0..<n).map { _ in Float(UInt8.random(in: 0...255, using: &generator)) }
                let g = (0..<n).map { _ in Float(UInt8.random(in: 0...255, using: &generator)) }
                let b = (0..<n).map { _ in Float(UInt8.random(in: 0...255, using: &generator)) }
                let cell = r.withUnsafeBufferPointer { r in g.withUnsafeBufferPointer { g in b.withUnsafeBufferPointer { b in
                    picker.cell(r.baseAddress!, g.baseAddress!, b.baseAddress!) } } }
                func error(_ mask: Int) -> Float {
                    var total: Float = 0
                    for on in [true, false] {
                        let members = (0..<n).filter { (mask & 1 << $0 != 0) == on }
                        guard !members.isEmpty else { continue }
                        for channel in [r, g, b].enumerated() {
                            let w = [SymbolPicker.weights.0, SymbolPicker.weights.1, SymbolPicker.weights.2][channel.offset]
                            let mean = members.map { channel.element[$0] }.reduce(0, +) / Float(members.count)
                            total += members.map { w * (channel.element[$0] - mean) * (channel.element[$0] - mean) }.reduce(0, +)
                        }
                    }
                    return total
                }
                let least = (0..<(1 << n)).map(error).min() ?? 0
                let mask = (0..<(1 << n)).first { SymbolPicker.glyph($0, symbols) == cell.glyph } ?? 0
                // Colours are rounded to whole levels: within a level's error on each pixel.
                #expect(error(mask) <= least + Float(n) * 1.5, "\(symbols): \(cell.glyph) \(error(mask)) vs \(least)")
            }
        }
    }

    /// Drawn back, stories' own output is its cells: a cell of known symbol and colours
    /// comes back as those pixels, and a picture compared with itself scores SSIM 1.
    @Test func cellsDrawnBackAreTheirSymbolsInTheirColours() throws {
        let text = "\u{1B}[38;2;255;0;0;48;2;0;0;255m▀\u{1B}[38;5;46;48;5;16m▐\u{1B}[0m\n\u{1B}[97;41m\u{1CD00}\u{1B}[0m─"
        var cells = CellDrawBack(ansi: text)
        #expect(cells.columns == 2 && cells.rows == 2)
        let image = cells.pixels()
        #expect(cells.unknown == 0)
        #expect(image[0, 0] == RGBPixel(255, 0, 0) && image[0, 11] == RGBPixel(0, 0, 255), "▀: red over blue")
        #expect(image[6, 0] == RGBPixel(0, 0, 0) && image[11, 0] == RGBPixel(0, 255, 0), "▐: palette 16 left, 46 right")
        // OCTANT-3: the left of the second row of four, white over red.
        #expect(image[1, 12 + 4] == RGBPixel(255, 255, 255) && image[4, 12 + 4] == RGBPixel(205, 0, 0))
        #expect(image[9, 12 + 6].r > 100 && image[9, 12].r < 50, "─: a light line across the middle")
        #expect(PictureMetrics.ssim(image, image) > 0.9999 && PictureMetrics.psnr(image, image) == 99)
        var other = image
        for i in other.pixels.indices { other.pixels[i] = 255 &- other.pixels[i] }
        #expect(PictureMetrics.ssim(image, other) < 0.5 && PictureMetrics.psnr(image, other) < 10)
        // Hostile text: escapes cut short, a huge cursor move, characters no one knows.
        var hostile = CellDrawBack(ansi: "\u{1B}[38;2;999;-1m\u{1B}[99999999C☃\u{1B}]0;title\u{07}\u{1B}[", maxColumns: 50, maxRows: 5)
        #expect(hostile.columns == 50)
        _ = hostile.pixels()
        #expect(hostile.unknown == 0, "the cursor move filled the row first: the snowman never fits")
    }

    /// What `auto` picks, terminal by terminal: from the environment each sets (no terminal
    /// is run).
    @Test func autoPicksTheRichestSetTheTerminalDraws() {
        #expect(CellSymbols.drawn(by: ["TERM": "xterm-kitty"], octantsHaveWidth: true).symbols == .octant)
        #expect(CellSymbols.drawn(by: ["TERM": "foot-extra"], octantsHaveWidth: true).symbols == .octant)
        #expect(CellSymbols.drawn(by: ["TERM_PROGRAM": "WezTerm"], octantsHaveWidth: true).symbols == .octant)
        #expect(CellSymbols.drawn(by: ["TERM": "xterm-kitty"], octantsHaveWidth: false).symbols == .sextant,
                "where the C library gives octants no width, ncurses draws nothing: sextants")
        #expect(CellSymbols.width(of: 0x1FB00) == 1, "the C library is asked in UTF-8: a sextant (Unicode 13) is one cell")
        #expect(CellSymbols.octantsHaveWidth == (CellSymbols.width(of: 0x1CD00) == 1))
        #expect(CellSymbols.drawn(by: ["VTE_VERSION": "7000"]).symbols == .sextant)
        #expect(CellSymbols.drawn(by: ["TERM": "xterm-256color"]).symbols == .half)
        #expect(CellSymbols.named("AUTO", environment: ["TERM": "xterm-kitty"]) == CellSymbols.drawn(by: ["TERM": "xterm-kitty"]).symbols)
        #expect(CellSymbols.named("quad", environment: [:]) == .quad)
        #expect(CellSymbols.named("braille", environment: [:]) == nil)
    }

    /// A still's fine pixels for one cell (`CellImage.finePixels`): `colour(x, y)` each.
    private func fineCell(_ symbols: CellSymbols, _ colour: (Int, Int) -> RGBPixel) -> RGBImage {
        let (w, h) = CellImage.finePixels(symbols)
        var image = RGBImage(width: w, height: h)
        for y in 0..<h { for x in 0..<w { image[x, y] = colour(x, y) } }
        return image
    }

    /// An edge the set's grid cannot place — a dark line an eighth of the cell high along
    /// the bottom, a dark band three eighths wide down the left — is drawn with the block
    /// that cuts the cell there (issue 30: chafa's eighth blocks were why it drew lines and
    /// brick rows better), in truecolor and in a palette; a video frame, which is not made
    /// from fine pixels, keeps to the grid.
    @Test func anEdgeBetweenTheGridsRowsIsCutAtItsEighth() throws {
        let light = RGBPixel(230, 220, 200), dark = RGBPixel(20, 30, 60)
        for symbols in [CellSymbols.quad, .octant] {
            for depth in [ColorDepth.direct, .palette256, .sixteen] {
                let line = fineCell(symbols) { _, y in y == 7 ? dark : light }
                let cell = CellImage(pixels: line, symbols: symbols, depth: depth, fine: true)[0, 0]
                #expect(cell.glyph == "▁", "\(symbols) \(depth): \(cell.glyph)")
                #expect(cell.foreground == CellImage.color(dark, depth) && cell.background == CellImage.color(light, depth),
                        "\(symbols) \(depth): the line in the foreground")
                let band = fineCell(symbols) { x, _ in x < 3 ? dark : light }
                let banded = CellImage(pixels: band, symbols: symbols, depth: depth, fine: true)[0, 0]
                #expect(banded.glyph == "▍", "\(symbols) \(depth)")
                #expect(banded.foreground == CellImage.color(dark, depth) && banded.background == CellImage.color(light, depth),
                        "\(symbols) \(depth): the band on the left in the foreground")
            }
        }
        // Sextants (12 fine rows): a quarter along the bottom, any eighth down the side.
        for depth in [ColorDepth.direct, .palette256] {
            let quarter = fineCell(.sextant) { _, y in y >= 9 ? dark : light }
            let cut = CellImage(pixels: quarter, symbols: .sextant, depth: depth, fine: true)[0, 0]
            #expect(cut.glyph == "▂" && cut.foreground == CellImage.color(dark, depth), "\(depth)")
            let side = fineCell(.sextant) { x, _ in x < 1 ? dark : light }
            let edge = CellImage(pixels: side, symbols: .sextant, depth: depth, fine: true)[0, 0]
            #expect(edge.glyph == "▏" && edge.background == CellImage.color(light, depth), "\(depth)")
            // An eighth across that falls inside a row of fine pixels at 12 is not cut there.
            let eighth = fineCell(.sextant) { _, y in y >= 11 ? dark : light }
            #expect(CellImage(pixels: eighth, symbols: .sextant, depth: depth, fine: true)[0, 0].glyph != "▁")
        }
        // The grid's own edges stay the grid's: a lower half is the grid's half block (either
        // way round), never an eighth block.
        let half = fineCell(.octant) { _, y in y >= 4 ? dark : light }
        let halfGlyph = CellImage(pixels: half, symbols: .octant, depth: .direct, fine: true)[0, 0].glyph
        #expect(SymbolPicker.octantGlyphs.contains(halfGlyph) && "▀▄".contains(halfGlyph), "\(halfGlyph)")
        // Video: the grid's pixels, no eighths.
        var frame = RGBImage(width: 2, height: 4)
        for y in 0..<4 { for x in 0..<2 { frame[x, y] = y == 3 ? dark : light } }
        let videoCell = CellImage(pixels: frame, symbols: .octant, depth: .direct, everySplit: false)[0, 0]
        #expect(videoCell.glyph == SymbolPicker.glyph(0b1100_0000, .octant))
    }

    /// A picture of more cells than `CellImage.fineCellLimit` keeps to the grid (its fine
    /// pixels would take hundreds of megabytes at `print --size 1000x1000`); one within it
    /// is cut at eighths. Decoding asks for the pixels the cells are made from.
    @Test @MainActor func aHugePictureKeepsToTheGrid() {
        func lined(columns: Int, rows: Int) -> RGBImage {
            // A dark line along the bottom eighth of every cell's worth of fine pixels.
            let light: [UInt8] = [230, 220, 200], dark: [UInt8] = [20, 30, 60]
            let lightRow = [UInt8](Array(repeating: light, count: columns * 8).joined())
            let darkRow = [UInt8](Array(repeating: dark, count: columns * 8).joined())
            let cell = Array(repeating: lightRow, count: 7) + [darkRow]
            return RGBImage(width: columns * 8, height: rows * 8, pixels: Array(Array(repeating: cell, count: rows).joined().joined()))
        }
        let within = CellImage(lined(columns: 40, rows: 20), width: 40, height: 20, symbols: .octant, depth: .direct, cellAspect: 0.5)
        #expect(within.width == 40 && within.cells.allSatisfy { $0.glyph == "▁" })
        #expect(201 * 200 > CellImage.fineCellLimit)
        let huge = CellImage(lined(columns: 201, rows: 200), width: 201, height: 200, symbols: .octant, depth: .direct, cellAspect: 0.5)
        #expect(huge.width == 201 && huge.height == 200)
        #expect(!huge.cells.contains { $0.glyph == "▁" }, "the grid's 2×4: no eighths")
        #expect(CellImage.pixelsPerCell(symbols: .octant, depth: .direct, cells: 80 * 40) == (8, 8))
        #expect(CellImage.pixelsPerCell(symbols: .sextant, depth: .palette256, cells: 80 * 40) == (8, 12))
        #expect(CellImage.pixelsPerCell(symbols: .octant, depth: .direct, cells: 1000 * 1000) == (2, 4))
        #expect(CellImage.pixelsPerCell(symbols: .half, depth: .direct, cells: 80 * 40) == (1, 2))
        #expect(CellImage.pixelsPerCell(symbols: .quad, depth: .none, cells: 80 * 40) == (2, 2))
        #expect(CellImage.pixelsPerCell(symbols: .quad, depth: .eight, cells: 80 * 40) == (8, 8), "eight colours pick symbols as sixteen do")
        // The cache's budget counts the larger decode.
        #expect(RenditionCache.budget(width: 200, height: 60, symbols: .octant) > RenditionCache.budget(width: 200, height: 60, symbols: .half))
    }

    /// The eighths are taken only where they leave less error than the grid's best split:
    /// on random cells (an edge at a random place, noise on both sides), the picked cell's
    /// error over its fine pixels is never more than the grid-only cell's.
    @Test func anEighthIsTakenOnlyWhereItLeavesLessError() throws {
        var generator = Seeded(seed: 30)
        for symbols in [CellSymbols.quad, .sextant, .octant] {
            let (w, h) = CellImage.finePixels(symbols)
            var eighths = 0
            for round in 0..<300 {
                // An edge across or down at a random place (where the eighths help), a
                // diagonal or a checkerboard of random squares (where they must not win).
                let shape = round % 3
                let across = Bool.random(using: &generator), at = Int.random(in: 1..<(across ? h : w), using: &generator)
                let square = Int.random(in: 1...4, using: &generator)
                let a = RGBPixel(.random(in: 0...255, using: &generator), .random(in: 0...255, using: &generator), .random(in: 0...255, using: &generator))
                let b = RGBPixel(.random(in: 0...255, using: &generator), .random(in: 0...255, using: &generator), .random(in: 0...255, using: &generator))
                let image = fineCell(symbols) { x, y in
                    let first = switch shape {
                    case 0: across ? y >= at : x < at
                    case 1: x * h > y * w
                    default: (x / square + y / square) % 2 == 0
                    }
                    let base = first ? a : b
                    let noise = { (v: UInt8) in UInt8(clamping: Int(v) + Int.random(in: -12...12, using: &generator)) }
                    return RGBPixel(noise(base.r), noise(base.g), noise(base.b))
                }
                let picked = CellImage(pixels: image, symbols: symbols, depth: .direct, fine: true)[0, 0]
                // The grid alone: the same pixels averaged into the set's sub-pixels.
                let (px, py) = symbols.pixelsPerCell
                var grid = RGBImage(width: px, height: py)
                for gy in 0..<py {
                    for gx in 0..<px {
                        var sum = (0, 0, 0), n = 0
                        for y in (gy * h / py)..<((gy + 1) * h / py) {
                            for x in (gx * w / px)..<((gx + 1) * w / px) {
                                sum.0 += Int(image[x, y].r); sum.1 += Int(image[x, y].g); sum.2 += Int(image[x, y].b); n += 1
                            }
                        }
                        grid[gx, gy] = RGBPixel(UInt8(sum.0 / n), UInt8(sum.1 / n), UInt8(sum.2 / n))
                    }
                }
                let gridOnly = CellImage(pixels: grid, symbols: symbols, depth: .direct)[0, 0]
                if picked.glyph != gridOnly.glyph { eighths += 1 }
                let e = try fineError(picked, image, symbols), g = try fineError(gridOnly, image, symbols)
                #expect(e <= g * 1.001 + 64, "\(symbols): \(picked.glyph) \(e) against the grid's \(gridOnly.glyph) \(g)")
            }
            #expect(eighths > 20, "\(symbols): edges off the grid are cut at their eighth (\(eighths) of 300)")
        }
    }

    /// A truecolor cell's luma-weighted squared error over fine pixels, its glyph's shape
    /// read from the set's table or the eighth blocks.
    private func fineError(_ cell: ImageCell, _ image: RGBImage, _ symbols: CellSymbols) throws -> Float {
        guard case .rgb(let fr, let fg, let fb) = cell.foreground, case .rgb(let br, let bg, let bb) = cell.background else {
            throw CancellationError()
        }
        let (w, h) = (image.width, image.height), (px, py) = symbols.pixelsPerCell
        let scalar = try #require(cell.glyph.unicodeScalars.first).value
        let mask = (0..<(1 << (px * py))).first { SymbolPicker.glyph($0, symbols) == cell.glyph }
        var total: Float = 0
        for y in 0..<h {
            for x in 0..<w {
                let on: Bool
                switch scalar {
                case 0x2581...0x2587 where mask == nil: on = y >= h - h * Int(scalar - 0x2580) / 8
                case 0x2589...0x258F where mask == nil: on = x < Int(0x2590 - scalar)
                default: on = (try #require(mask)) & 1 << ((y * py / h) * px + x * px / w) != 0
                }
                let p = image[x, y]
                let (r, g, b) = on ? (fr, fg, fb) : (br, bg, bb)
                let (dr, dg, db) = (Float(p.r) - Float(r), Float(p.g) - Float(g), Float(p.b) - Float(b))
                total += SymbolPicker.weights.0 * dr * dr + SymbolPicker.weights.1 * dg * dg + SymbolPicker.weights.2 * db * db
            }
        }
        return total
    }
}

/// A repeatable random source (StoriesCore's SplitMix64), so a failure can be run again.
private typealias Seeded = SplitMix
