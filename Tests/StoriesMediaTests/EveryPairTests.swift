import StoriesCells
import Testing
@testable import StoriesMedia

/// Issue 45, point 6: eight and sixteen colours search every pair of the palette.
@Suite struct EveryPairTests {
    static func rgb(_ index: Int) -> RGBPixel {
        let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(index))
        return RGBPixel(r, g, b)
    }

    /// A cell drawn in two palette colours in any pattern comes back exactly: that pattern,
    /// those colours — in the grid (sub-pixels) and from fine pixels, in 8 and 16 colours.
    @Test(arguments: [ColorDepth.eight, .sixteen])
    func aCellInTwoPaletteColoursComesBackExactly(depth: ColorDepth) {
        let colours = depth == .eight ? 8 : 16
        for (mask, front, back) in [(0b1001_0110, 1, 7), (0b0000_0001, 4, 0), (0b1110_1101, 3, 5), (0b0101_1010, 2, colours - 1)] {
            var grid = RGBImage(width: 2, height: 4)
            for i in 0..<8 { grid[i % 2, i / 2] = Self.rgb(mask & 1 << i != 0 ? front : back) }
            let cell = CellImage(pixels: grid, symbols: .octant, depth: depth)[0, 0]
            // That pattern in front, or its inverse with the colours swapped: the same picture.
            let asDrawn = ImageCell(glyph: SymbolPicker.glyph(mask, .octant), foreground: .palette(UInt8(front)), background: .palette(UInt8(back)))
            let inverse = ImageCell(glyph: SymbolPicker.glyph(255 ^ mask, .octant), foreground: .palette(UInt8(back)),
                                    background: .palette(UInt8(front)))
            #expect(cell == asDrawn || cell == inverse, "\(cell)")
            // The same cell at 8×8 fine pixels: each sub-pixel 4 across, 2 down.
            var fine = RGBImage(width: 8, height: 8)
            for y in 0..<8 { for x in 0..<8 { fine[x, y] = grid[x / 4, y / 2] } }
            let fineCell = CellImage(pixels: fine, symbols: .octant, depth: depth, fine: true)[0, 0]
            #expect(fineCell == cell)
        }
    }

    /// A line a few eighths from the top is placed by a cut at an eighth, in palette colours.
    @Test func anEdgeBetweenTheGridsRowsIsCutAtItsEighth() {
        var fine = RGBImage(width: 8, height: 8)
        for y in 0..<8 { for x in 0..<8 { fine[x, y] = Self.rgb(y < 3 ? 4 : 3) } }
        let cell = CellImage(pixels: fine, symbols: .octant, depth: .eight, fine: true)[0, 0]
        #expect(cell == ImageCell(glyph: "▅", foreground: .palette(3), background: .palette(4)))
    }

    /// A dark navy sky is blue in eight colours, not black: black keeps nothing of its
    /// light (SSIM's luminance term near 0), though black is nearer in plain RGB.
    @Test func aDarkColourIsNotDrawnBlackWhereABlueKeepsItsLight() {
        var grid = RGBImage(width: 2, height: 4)
        for i in 0..<8 { grid[i % 2, i / 2] = RGBPixel(30, 40, 80) }
        let cell = CellImage(pixels: grid, symbols: .octant, depth: .eight)[0, 0]
        #expect(cell.background == .palette(4) || cell.foreground == .palette(4), "\(cell)")
        #expect(cell.background != .palette(0) && cell.foreground != .palette(0), "\(cell)")
    }

    /// A flat rust-orange with grain, in 16 colours, halfway between red, dark red and grey:
    /// from cell to cell the colours change less than half as often as when each cell is
    /// picked alone, where the grain tips cells to and fro (what SSIM's windows across cells
    /// see as structure the picture does not have; measured 95 against 221 of 468).
    @Test func aSmoothAreaIsNotAMosaicOfItsTwoNearestDrawings() {
        let width = 40, height = 12
        let image = Self.grained(width: width * 2, height: height * 4, seed: 7) { _, _, grain in
            RGBPixel(UInt8(190 + grain), UInt8(80 + grain), UInt8(56 + grain))
        }
        func steps(_ cells: [ImageCell]) -> Int {
            func colours(_ c: ImageCell) -> Set<Color> { c.glyph == " " ? [c.background] : c.glyph == "█" ? [c.foreground] : [c.foreground, c.background] }
            return (0..<height).reduce(0) { n, y in
                n + (1..<width).filter { colours(cells[y * width + $0]) != colours(cells[y * width + $0 - 1]) }.count
            }
        }
        let together = CellImage.picked(image, width: width, height: height, symbols: .octant, depth: .sixteen)
        var alone: [ImageCell] = []
        var picker = SymbolPicker(symbols: .octant, depth: .sixteen)
        var r = [Float](repeating: 0, count: 8), g = r, b = r
        for y in 0..<height {
            for x in 0..<width {
                for i in 0..<8 {
                    let p = image[x * 2 + i % 2, y * 4 + i / 2]
                    r[i] = Float(p.r); g[i] = Float(p.g); b[i] = Float(p.b)
                }
                alone.append(picker.cell(r, g, b))
            }
        }
        #expect(steps(together) * 2 < steps(alone), "steps with the neighbours: \(steps(together)), each cell alone: \(steps(alone))")
        #expect(steps(alone) > 4 * height, "each cell alone: \(steps(alone)) (the grain must tip cells for this test to mean anything)")
    }

    /// Eight colours have no grey between black and white: a grey wall is drawn in those two,
    /// not in the green whose luma matches it, nor in specks of red, cyan and magenta.
    @Test func aGreyWallIsDrawnInBlackAndWhiteAtEightColours() {
        let width = 30, height = 10
        let image = Self.grained(width: width * 2, height: height * 4, seed: 11) { x, y, grain in
            let mortar = y % 8 == 0 || (x + (y / 8) * 3) % 9 == 0
            let v = UInt8((mortar ? 200 : 100) + grain)
            return RGBPixel(v, v, v)
        }
        let cells = CellImage.picked(image, width: width, height: height, symbols: .octant, depth: .eight)
        let used = Set(cells.flatMap { [$0.foreground, $0.background] })
        #expect(used.isSubset(of: [.palette(0), .palette(7)]), "colours used: \(used)")
        #expect(used.count == 2, "the mortar must show: \(used)")
    }

    /// A picture whose every pixel is `pixel(x, y, grain)`, the grain a repeatable −8…7.
    static func grained(width: Int, height: Int, seed: UInt32, _ pixel: (Int, Int, Int) -> RGBPixel) -> RGBImage {
        var image = RGBImage(width: width, height: height), seed = seed
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                image[x, y] = pixel(x, y, Int(seed >> 28) - 8)
            }
        }
        return image
    }
}
