import StoriesCells
@testable import StoriesCells
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

    @Test func fitShowsTheWholePictureOverADarkenedBlurOfItself() {
        // A portrait picture: white, a red square in its middle.
        var photo = RGBImage(width: 90, height: 160, fill: RGBPixel(240, 240, 240))
        for y in 60..<100 { for x in 25..<65 { photo[x, y] = RGBPixel(220, 30, 30) } }
        let fitted = ImageScaler.scale(photo, width: 160, height: 90, fit: .fit)
        let rect = ImageScaler.fitRect(imageWidth: 90, imageHeight: 160, width: 160, height: 90, pixelAspect: 1)
        #expect(rect.width == 51 && rect.height == 90 && rect.x == 54, "whole: \(rect)")
        #expect(fitted[rect.x + rect.width / 2, 45].r > 200 && fitted[rect.x + rect.width / 2, 45].g < 60, "the red square, whole")
        #expect(fitted[rect.x + 2, 5] == RGBPixel(240, 240, 240), "the picture's own corner")
        // Beside it: the picture itself, blurred and darkened, not one flat colour.
        let side = fitted[10, 45], edge = fitted[rect.x - 1, 5]
        #expect(Int(side.r) < 140 && Int(edge.r) < 140, "darker than the picture: \(side) \(edge)")
        #expect(Int(side.r) > 40, "but not black")
        // A picture of the frame's own shape has no backdrop at all.
        let same = ImageScaler.scale(RGBImage(width: 16, height: 9, fill: RGBPixel(9, 9, 9)), width: 32, height: 18, fit: .fit)
        #expect(Set(same.pixels) == [9])
    }

    /// Fill keeps what people look at (issue 49's crop): a face — skin with features in
    /// it — before a busier pattern; the middle when nothing stands out from the edges; a
    /// band that runs from edge to edge is background, not a subject.
    @Test func fillCropsWhereTheSubjectIsNotTheMiddle() {
        // A portrait picture, plain grey; a face-coloured disc with darker eyes and mouth in
        // its top fifth, and a busy black-and-white check in its middle.
        var photo = RGBImage(width: 90, height: 160, fill: RGBPixel(200, 200, 205))
        for y in 8..<32 { for x in 30..<60 where (x - 45) * (x - 45) + (y - 20) * (y - 20) < 144 { photo[x, y] = RGBPixel(224, 172, 140) } }
        for (x, y) in [(40, 16), (41, 16), (49, 16), (50, 16), (42, 25), (43, 25), (44, 25), (45, 25), (46, 25), (47, 25), (48, 25)] {
            photo[x, y] = RGBPixel(150, 100, 80)
        }
        for y in 70..<90 { for x in 20..<70 { photo[x, y] = (x + y) % 2 == 0 ? RGBPixel(0, 0, 0) : RGBPixel(255, 255, 255) } }
        // Into a landscape frame: a third of the height is kept.
        let origin = SubjectCrop.origin(photo, width: 90, height: 90 * 9 / 16)
        #expect(origin.y < 10, "the face's band, not the middle: \(origin)")
        let plain = SubjectCrop.origin(RGBImage(width: 90, height: 160, fill: RGBPixel(9, 9, 9)), width: 90, height: 50)
        #expect(abs(plain.y - (160 - 50) / 2) < 2, "nothing stands out: the middle, \(plain)")
        // A landscape picture whose right side is a busy band from its top edge to its
        // bottom: seen on three edges, it is background, and the crop stays in the middle.
        var wide = RGBImage(width: 160, height: 90, fill: RGBPixel(30, 90, 160))
        for y in 0..<90 { for x in 120..<160 { wide[x, y] = (x * 7 + y * 3) % 5 < 2 ? RGBPixel(250, 250, 250) : RGBPixel(20, 20, 20) } }
        let banded = SubjectCrop.origin(wide, width: 90, height: 90)
        #expect(abs(banded.x - 35) < 8, "\(banded)")
        // An object inside that band's picture, away from every edge: kept whole.
        for y in 30..<60 { for x in 10..<40 { wide[x, y] = RGBPixel(240, 60, 40) } }
        let object = SubjectCrop.origin(wide, width: 90, height: 90)
        #expect(object.x <= 10, "the red square at 10–40 kept whole: \(object)")
        let centred = SubjectCrop.origin(RGBImage(width: 160, height: 90, fill: RGBPixel(9, 9, 9)), width: 90, height: 90)
        #expect(abs(centred.x - 35) < 2, "nothing stands out: the centre, \(centred)")
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
        // One colour in both halves: spaces in that background (no foreground, a byte a cell).
        #expect(text == "\u{1B}[48;2;10;20;30m   \u{1B}[0m\n", "\(text.debugDescription)")
        // Only the colour that changes is written; rows end with a reset.
        var two = RGBImage(width: 2, height: 4, fill: RGBPixel(10, 20, 30))
        two[1, 1] = RGBPixel(200, 0, 0)
        two[0, 2] = RGBPixel(200, 0, 0)
        let changes = ANSIWriter.text(of: CellImage(pixels: two, symbols: .half, depth: .palette256), depth: .palette256)
        let rows = changes.split(separator: "\n")
        #expect(rows.count == 2)
        let navy = ColorMapping.nearest256(10, 20, 30), red = ColorMapping.nearest256(200, 0, 0)
        // The second cell is navy over red: ▄ in red over the navy already set needs one
        // colour, ▀ would need two.
        #expect(rows[0] == "\u{1B}[48;5;\(navy)m \u{1B}[38;5;\(red)m▄\u{1B}[0m", "\(rows[0].debugDescription)")
        // Red over navy, then navy alone: ▀ in red on navy, then a space (the pen kept).
        #expect(rows[1] == "\u{1B}[38;5;\(red);48;5;\(navy)m▀ \u{1B}[0m", "\(rows[1].debugDescription)")
        let mono = ANSIWriter.text(of: CellImage(pixels: image, symbols: .half, depth: .none), depth: .none)
        #expect(!mono.contains("\u{1B}"))
    }
}

/// Colours the terminal lacks: 256 colours mix the two nearest, 8 colours shade with hints,
/// and flat colours keep their hue.
@Suite struct ShortPaletteTests {
    /// Issue 30, point 2: no pattern over a smooth area — a flat colour the palette lacks is
    /// one colour in every cell, in every symbol set, in 256 and 16 colours (an ordered
    /// dither covered it in a checkerboard of two).
    @Test func aFlatColourIsOneColourInEveryCell() {
        let navy = RGBImage(width: 24, height: 24, fill: RGBPixel(29, 53, 87))
        for symbols in CellSymbols.allCases {
            for depth in [ColorDepth.palette256, .sixteen] {
                let cells = CellImage(pixels: navy, symbols: symbols, depth: depth).cells
                let colours = Set(cells.flatMap { [$0.foreground, $0.background] })
                #expect(colours.count == 1, "\(symbols) \(depth): \(colours)")
            }
        }
    }

    /// Issue 30, point 2: a fitted photo's backdrop in 256 and 16 colours is one colour (the
    /// blur would band into contour rings round the photo); in truecolor it stays the blur.
    @Test func theBackdropInAShortPaletteIsOneColourWithoutRings() {
        var portrait = RGBImage(width: 60, height: 120)
        for y in 0..<120 { for x in 0..<60 { portrait[x, y] = RGBPixel(UInt8(40 + y), UInt8(200 - y), UInt8(x * 4)) } }
        for depth in [ColorDepth.palette256, .sixteen] {
            for symbols in [CellSymbols.half, .sextant] {
                let cells = CellImage(portrait, width: 60, height: 15, symbols: symbols, depth: depth, fit: .fit)
                let (px, py) = symbols.pixelsPerCell
                let rect = ImageScaler.fitRect(imageWidth: 60, imageHeight: 120, width: 60 * px, height: 15 * py,
                                               pixelAspect: 0.5 * Double(py) / Double(px))
                let left = (0..<cells.height).flatMap { y in (0..<(rect.x / px - 1)).map { cells[$0, y] } }
                #expect(!left.isEmpty && Set(left.flatMap { [$0.foreground, $0.background] }).count == 1,
                        "\(depth) \(symbols): one backdrop colour, not \(Set(left.map(\.background)).count)")
                if depth == .sixteen { #expect(left.first?.background == .palette(0), "16 colours: black, not a grey over the photo") }
                // The photo's own cells (16 colours keep a slow gradient's colour a while, as
                // the cells beside it are picked: `ShortScore.Beside`).
                let photo = (0..<cells.height).flatMap { y in (rect.x / px..<(rect.x + rect.width) / px).map { cells[$0, y].background } }
                #expect(Set(photo).count > 3, "\(depth) \(symbols): the photo itself keeps its gradient")
            }
        }
        let truecolor = CellImage(portrait, width: 60, height: 15, depth: .direct, fit: .fit)
        #expect(Set((0..<15).map { truecolor[2, $0].background }).count > 1, "truecolor: the blur")
    }

    /// A gradient the palette cannot follow is never drawn in a colour further from a
    /// pixel than the nearest one of the cell's whole is.
    @Test func aGradientIsDrawnInColoursNearIt() {
        var ramp = RGBImage(width: 64, height: 8)
        for y in 0..<8 { for x in 0..<64 { ramp[x, y] = RGBPixel(UInt8(x * 4), UInt8(60 + x), UInt8(200 - x * 2)) } }
        let cells = CellImage(pixels: ramp, symbols: .quad, depth: .palette256)
        for cy in 0..<cells.height {
            for cx in 0..<cells.width {
                let p = ramp[cx * 2, cy * 2]
                for case .palette(let index) in [cells[cx, cy].foreground, cells[cx, cy].background] {
                    let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
                    let d = abs(Int(r) - Int(p.r)) + abs(Int(g) - Int(p.g)) + abs(Int(b) - Int(p.b))
                    #expect(d < 90, "cell \(cx),\(cy): \(index) for \(p)")
                }
            }
        }
    }

    @Test func flatUIColoursKeepTheirHueIn256Colours() {
        #expect(ColorMapping.terminalColor(.rgb(29, 53, 87), depth: .palette256) == 17,
                "navy stays navy (xterm's NavyBlue), not grey 236 nor the saturated royal blue 18")
        #expect(ColorMapping.terminalColor(.rgb(106, 76, 147), depth: .palette256) == 97, "purple stays purple, not slate 60")
        #expect(ColorMapping.terminalColor(.rgb(40, 40, 40), depth: .palette256) == ColorMapping.nearest256(40, 40, 40), "greys as before")
        #expect(ColorMapping.terminalColor(.rgb(157, 2, 8), depth: .palette256) == 124)
        // A photo darkened under its caption is faint: it keeps the plain nearest, never a
        // brighter colour of its hue (a dull brown came out bright ochre, 94).
        for (r, g, b) in [(70, 50, 30), (80, 70, 40), (38, 30, 24)] as [(UInt8, UInt8, UInt8)] {
            #expect(ColorMapping.terminalColor(.rgb(r, g, b), depth: .palette256) == ColorMapping.nearest256(r, g, b), "(\(r),\(g),\(b))")
        }
    }

    /// Issue 45, point 6: eight colours go through the symbol picker as sixteen do — the
    /// set asked for is drawn (no shade glyphs), every colour one of the eight, and a
    /// fitted picture's backdrop is black.
    @Test func eightColoursDrawTheSetAskedFor() {
        var photo = RGBImage(width: 64, height: 64, fill: RGBPixel(230, 230, 230))
        for y in 0..<64 { for x in 0..<32 { photo[x, y] = RGBPixel(200, 20, 20) } } // red left, white right
        for symbols in [CellSymbols.half, .quad, .sextant, .octant] {
            let cells = CellImage(photo, width: 20, height: 10, symbols: symbols, depth: .eight, fit: .fill, cellAspect: 0.5)
            #expect(!cells.cells.contains { "░▒▓".contains($0.glyph) }, "\(symbols): no shades")
            for cell in cells.cells {
                for colour in [cell.foreground, cell.background] {
                    guard case .palette(let index) = colour else { Issue.record("\(symbols): \(colour)"); continue }
                    #expect(index < 8, "\(symbols): \(index)")
                }
            }
            #expect(cells[2, 5].foreground == .palette(1) || cells[2, 5].background == .palette(1), "red is red: \(cells[2, 5])")
            #expect(cells[17, 5].foreground == .palette(7) || cells[17, 5].background == .palette(7), "white is white")
        }
        // A fitted picture's backdrop is black in eight colours: nothing to compete with it.
        let tall = RGBImage(width: 30, height: 60, fill: RGBPixel(200, 200, 200))
        let fitted = CellImage(tall, width: 40, height: 10, depth: .eight, fit: .fit, cellAspect: 0.5)
        #expect(fitted[0, 5].foreground == .palette(0) && fitted[0, 5].background == .palette(0))
        #expect(fitted[20, 5].foreground == .palette(7) || fitted[20, 5].background == .palette(7), "the picture is drawn")
    }

    @Test func theQuickHueKeepingSearchAgreesWithTheFullOne() {
        var checked = 0
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) {
                    let quick = ColorMapping.nearest256KeepingHue(UInt8(r), UInt8(g), UInt8(b))
                    let full = ColorMapping.nearest256KeepingHue(UInt8(r), UInt8(g), UInt8(b), searchingAll: true)
                    #expect(quick == full, "(\(r),\(g),\(b))")
                    checked += 1
                }
            }
        }
        #expect(checked == 18 * 18 * 18)
    }
}
