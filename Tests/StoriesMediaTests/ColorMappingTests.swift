@testable import StoriesCells
import Testing
@testable import StoriesMedia

@Suite struct ColorMappingTests {
    @Test func depthFollowsTheColourCount() {
        #expect(ColorDepth(colorCount: 0) == .none)
        #expect(ColorDepth(colorCount: 8) == .eight)
        #expect(ColorDepth(colorCount: 16) == .sixteen)
        #expect(ColorDepth(colorCount: 256) == .palette256)
        #expect(ColorDepth(colorCount: 1 << 24) == .direct)
    }

    @Test func rgbMapsToTheNearestCubeOrGrey() {
        #expect(ColorMapping.terminalColor(.rgb(255, 0, 0), depth: .palette256) == 196)
        #expect(ColorMapping.terminalColor(.rgb(0, 0, 0), depth: .palette256) == 16)
        #expect(ColorMapping.terminalColor(.rgb(128, 128, 128), depth: .palette256) == 244)
        #expect(ColorMapping.terminalColor(.rgb(1, 2, 3), depth: .direct) == 0x010203)
        #expect(ColorMapping.terminalColor(.rgb(250, 10, 10), depth: .sixteen) == 9)
        #expect(ColorMapping.terminalColor(.rgb(250, 10, 10), depth: .eight) == 1)
    }

    @Test func paletteAndDefaultMapDown() {
        #expect(ColorMapping.terminalColor(.default, depth: .palette256) == -1)
        #expect(ColorMapping.terminalColor(.palette(213), depth: .none) == -1)
        #expect(ColorMapping.terminalColor(.palette(213), depth: .palette256) == 213)
        #expect(ColorMapping.terminalColor(.palette(196), depth: .sixteen) == 9)
        #expect(ColorMapping.terminalColor(.palette(12), depth: .eight) == 4)
        #expect(ColorMapping.terminalColor(.palette(255), depth: .direct) == 0xEEEEEE)
    }

    @Test func theNeighbourhoodSearchAgreesWithTheFullSearch() {
        var checked = 0
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) {
                    let fast = ColorMapping.nearest256(UInt8(r), UInt8(g), UInt8(b))
                    let full = ColorMapping.nearest256BySearchingAll(UInt8(r), UInt8(g), UInt8(b))
                    #expect(fast == full, "(\(r), \(g), \(b)): \(fast) vs \(full)")
                    checked += 1
                }
            }
        }
        #expect(checked == 18 * 18 * 18)
    }

    @Test func neutralColoursStayNeutral() {
        // A grey must never come out tinted: that is what makes a photo look wrong in 256 colours.
        for level in stride(from: 0, through: 255, by: 5) {
            let index = ColorMapping.nearest256(UInt8(level), UInt8(level), UInt8(level))
            let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(index))
            #expect(r == g && g == b, "grey \(level) became \(index) = (\(r), \(g), \(b))")
        }
    }

    @Test func hueIsKept() {
        func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
            ColorMapping.rgb(ofPaletteIndex: UInt8(ColorMapping.nearest256(r, g, b)))
        }
        let skin = rgb(224, 172, 140)
        #expect(skin.0 > skin.1 && skin.1 > skin.2, "skin tone \(skin)")
        let purple = rgb(0x6a, 0x4c, 0x93)
        #expect(purple.2 > purple.0 && purple.2 > purple.1, "purple \(purple)")
        let teal = rgb(0x2a, 0x9d, 0x8f)
        #expect(teal.1 > teal.0 && teal.2 > teal.0, "teal \(teal)")
        // Dark muted colours (navy #1d3557) have no match in the cube, whose levels jump from
        // 0 to 95: they become the nearest grey, by any of the metrics tried.
        let olive = rgb(128, 128, 40)
        #expect(olive.0 > olive.2 && olive.1 > olive.2, "olive \(olive)")
    }

    @Test func everyPaletteIndexRoundTripsThroughNearest256() {
        for index in 16...255 {
            let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: UInt8(index))
            let back = ColorMapping.nearest256(r, g, b)
            let same = ColorMapping.rgb(ofPaletteIndex: UInt8(back)) == (r, g, b)
            #expect(same, "\(index) → \(back)")
        }
    }

    /// In direct colour no value under 8 is ever sent: a `*-direct` terminfo entry turns those
    /// into the eight ANSI colours (issue 13: red and green specks on near-black pixels).
    @Test func directColourNeverSendsAValueTheTerminalWouldReadAsAPaletteColour() {
        for b in UInt8(0)..<16 {
            let value = ColorMapping.terminalColor(.rgb(0, 0, b), depth: .direct)
            #expect(value >= 8, "(0, 0, \(b)) → \(value)")
            #expect(value == max(8, Int(b)), "only the eight lowest move, to (0, 0, 8)")
        }
        for index in UInt8(0)...255 {
            #expect(ColorMapping.terminalColor(.palette(index), depth: .direct) >= 8, "palette \(index)")
        }
        var seed: UInt64 = 7
        for _ in 0..<10_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let (r, g, b) = (UInt8(truncatingIfNeeded: seed >> 24) & 3, UInt8(truncatingIfNeeded: seed >> 32) & 3, UInt8(truncatingIfNeeded: seed >> 40))
            #expect(ColorMapping.terminalColor(.rgb(r, g, b), depth: .direct) >= 8)
        }
        #expect(ColorMapping.terminalColor(.rgb(18, 52, 86), depth: .direct) == 0x123456, "everything else as it is")
    }

    /// The per-picture memo of `nearest256` always answers what the search does, also when
    /// colours collide in its table.
    @Test func theNearestColourMemoAgreesWithTheSearch() {
        var memo = ColorMapping.Nearest256Memo()
        var random = SystemRandomNumberGenerator()
        for round in 0..<3 {
            for _ in 0..<20_000 {
                let (r, g, b) = (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                 UInt8.random(in: 0...255, using: &random))
                #expect(memo.nearest(r, g, b) == ColorMapping.nearest256(r, g, b), "round \(round): \(r),\(g),\(b)")
            }
        }
        for value in 0...255 { #expect(memo.nearest(UInt8(value), 0, 0) == ColorMapping.nearest256(UInt8(value), 0, 0)) }
    }
}
