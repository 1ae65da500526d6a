import StoriesCells
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
}
