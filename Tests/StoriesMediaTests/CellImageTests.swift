import Testing
@testable import StoriesMedia

@Suite struct ImageScalerTests {
    @Test func areaAveragingMeansTheCoveredPixels() {
        var image = RGBImage(width: 2, height: 2)
        image[0, 0] = RGBPixel(0, 0, 0); image[1, 0] = RGBPixel(100, 0, 0)
        image[0, 1] = RGBPixel(0, 200, 0); image[1, 1] = RGBPixel(0, 0, 40)
        #expect(ImageScaler.scale(image, width: 1, height: 1)[0, 0] == RGBPixel(25, 50, 10))
        // Fractional coverage: 3 pixels into 2, the middle one split between both.
        var row = RGBImage(width: 3, height: 1)
        row[0, 0] = RGBPixel(0, 0, 0); row[1, 0] = RGBPixel(90, 90, 90); row[2, 0] = RGBPixel(180, 180, 180)
        let two = ImageScaler.scale(row, width: 2, height: 1, fit: .fill, pixelAspect: 1.5)
        #expect(two[0, 0] == RGBPixel(30, 30, 30) && two[1, 0] == RGBPixel(150, 150, 150))
    }

    @Test func fillCropsTheCentreAndFitLetterboxesOnTheDominantColour() {
        // 4×1: red, green, green, blue. Square 1×1 fill keeps the middle (green).
        var strip = RGBImage(width: 4, height: 1)
        strip[0, 0] = RGBPixel(255, 0, 0); strip[1, 0] = RGBPixel(0, 255, 0)
        strip[2, 0] = RGBPixel(0, 255, 0); strip[3, 0] = RGBPixel(0, 0, 255)
        #expect(ImageScaler.scale(strip, width: 1, height: 1, fit: .fill)[0, 0] == RGBPixel(0, 255, 0))
        // Fit into 4×4: the strip is one row; the rest is the dominant colour, green.
        let fitted = ImageScaler.scale(strip, width: 4, height: 4, fit: .fit)
        #expect(fitted[0, 0] == RGBPixel(0, 255, 0) && fitted[3, 3] == RGBPixel(0, 255, 0))
        #expect((0..<4).contains { y in fitted[0, y] == RGBPixel(255, 0, 0) }, "the strip itself is there")
    }

    @Test func aUniformImageStaysUniformAtAnySize() {
        let grey = RGBImage(width: 37, height: 91, fill: RGBPixel(77, 77, 77))
        for (w, h) in [(1, 1), (10, 40), (45, 80), (100, 30)] {
            let scaled = ImageScaler.scale(grey, width: w, height: h)
            #expect(scaled.width == w && scaled.height == h)
            #expect(Set(stride(from: 0, to: scaled.pixels.count, by: 3).map { scaled.pixels[$0] }) == [77])
        }
    }
}

@Suite struct CellImageTests {
    let topRedBottomBlue: RGBImage = {
        var image = RGBImage(width: 2, height: 2)
        image[0, 0] = RGBPixel(255, 0, 0); image[1, 0] = RGBPixel(255, 0, 0)
        image[0, 1] = RGBPixel(0, 0, 255); image[1, 1] = RGBPixel(0, 0, 255)
        return image
    }()

    @Test func halfBlocksCarryTheTopPixelInFrontAndTheBottomBehind() {
        let cells = CellImage(pixels: topRedBottomBlue, symbols: .half, depth: .direct)
        #expect(cells.width == 2 && cells.height == 1)
        #expect(cells[0, 0] == ImageCell(glyph: "▀", foreground: .rgb(255, 0, 0), background: .rgb(0, 0, 255)))
        let palette = CellImage(pixels: topRedBottomBlue, symbols: .half, depth: .palette256)
        #expect(palette[0, 0] == ImageCell(glyph: "▀", foreground: .palette(196), background: .palette(21)))
        let sixteen = CellImage(pixels: topRedBottomBlue, symbols: .half, depth: .sixteen)
        #expect(sixteen[0, 0] == ImageCell(glyph: "▀", foreground: .palette(9), background: .palette(4))) // (0,0,238) beats (92,92,255)
    }

    @Test func quadrantsSplitTwoByTwoIntoTheBestTwoColours() {
        let cells = CellImage(pixels: topRedBottomBlue, symbols: .quad, depth: .direct)
        #expect(cells.width == 1 && cells.height == 1)
        #expect(cells[0, 0] == ImageCell(glyph: "▀", foreground: .rgb(255, 0, 0), background: .rgb(0, 0, 255)))
        var diagonal = topRedBottomBlue
        diagonal[1, 0] = RGBPixel(0, 0, 255); diagonal[1, 1] = RGBPixel(255, 0, 0)
        // Red on the ▚ diagonal, blue on the other: either way round draws the same.
        let cell = CellImage(pixels: diagonal, symbols: .quad, depth: .direct)[0, 0]
        #expect(cell == ImageCell(glyph: "▚", foreground: .rgb(255, 0, 0), background: .rgb(0, 0, 255))
                || cell == ImageCell(glyph: "▞", foreground: .rgb(0, 0, 255), background: .rgb(255, 0, 0)))
        let flat = RGBImage(width: 2, height: 2, fill: RGBPixel(9, 9, 9))
        #expect(CellImage(pixels: flat, symbols: .quad, depth: .direct)[0, 0].glyph == "█")
    }

    @Test func withoutColoursBrightnessBecomesShading() {
        var image = RGBImage(width: 3, height: 2)
        image[1, 0] = RGBPixel(128, 128, 128); image[1, 1] = RGBPixel(128, 128, 128)
        image[2, 0] = RGBPixel(255, 255, 255); image[2, 1] = RGBPixel(255, 255, 255)
        let cells = CellImage(pixels: image, symbols: .half, depth: .none)
        #expect(cells.cells.map(\.glyph) == [" ", "▒", "█"])
        #expect(cells.cells.allSatisfy { $0.foreground == .default && $0.background == .default })
    }

    @Test func ansiOutputChangesColoursOnlyWhenTheyChangeAndResetsEachRow() {
        let image = RGBImage(width: 3, height: 2, fill: RGBPixel(10, 20, 30))
        let text = ANSIWriter.text(of: CellImage(pixels: image, symbols: .half, depth: .direct), depth: .direct)
        #expect(text == "\u{1B}[38;2;10;20;30m\u{1B}[48;2;10;20;30m▀▀▀\u{1B}[0m\n")
        let mono = ANSIWriter.text(of: CellImage(pixels: image, symbols: .half, depth: .none), depth: .none)
        #expect(!mono.contains("\u{1B}"))
    }
}
