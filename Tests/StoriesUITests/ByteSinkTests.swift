@testable import StoriesCells
import StoriesMedia
import Testing
@testable import StoriesUI

/// The one SGR encoder and the glyphs' UTF-8 put the same bytes into an array and into a
/// span; the palette memo answers what `ColorMapping` does; a frame far larger than the
/// frame writer's span (flushed many times, with clusters that skip it) is what the
/// terminal shows.
@Suite struct ByteSinkTests {
    static let colours: [Color] = [.default, .palette(0), .palette(7), .palette(8), .palette(15), .palette(16), .palette(231), .palette(255),
                                   .rgb(0, 0, 0), .rgb(255, 255, 255), .rgb(9, 99, 199), .rgb(128, 64, 32)]

    @Test func anArrayAndASpanGetTheSameBytes() {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        defer { memory.deallocate() }
        for depth in [ColorDepth.direct, .palette256, .sixteen, .eight] {
            for colour in Self.colours {
                for background in [false, true] {
                    var array: [UInt8] = []
                    var span = ByteSpan(base: memory, capacity: 64)
                    let palette = { (c: Color) in ColorMapping.terminalColor(c, depth: depth) }
                    SGR.appendColor(colour, background: background, depth: depth, to: &array, palette: palette)
                    SGR.appendColor(colour, background: background, depth: depth, to: &span, palette: palette)
                    #expect(array == Array(span.written), "\(colour) at \(depth)")
                    #expect(span.count <= SGR.colorBound)
                }
            }
        }
        let glyphs = [Glyph.space, .upperHalf] + ["é", "山", "🌸", "👩‍👩‍👧"].map { Glyph(Character($0)) }
        for glyph in glyphs {
            var array: [UInt8] = []
            glyph.appendUTF8(to: &array)
            #expect(array == Array(String(glyph.character ?? " ").utf8))
            guard !glyph.isCluster else { continue }
            var span = ByteSpan(base: memory, capacity: 64)
            glyph.appendUTF8(to: &span)
            #expect(array == Array(span.written))
        }
    }

    @Test(arguments: [0, 7, 9, 10, 99, 100, 255, 1000, 12_345, Int.max])
    func countsAreTheirDigits(value: Int) {
        var out: [UInt8] = []
        out.putNumber(value)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    @Test func thePaletteMemoAnswersWhatTheMappingDoes() {
        var seed: UInt64 = 3
        func next() -> UInt8 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: seed >> 33)
        }
        for depth in [ColorDepth.palette256, .sixteen, .eight, .direct] {
            var memo = PaletteMemo(depth: depth)
            // Many more colours than slots: colours share slots and push each other out.
            let colours = (0..<20_000).map { _ in Color.rgb(next(), next(), next()) } + Self.colours
            for round in 0..<2 {
                for colour in colours {
                    #expect(memo.number(colour) == ColorMapping.terminalColor(colour, depth: depth), "\(colour) at \(depth), round \(round)")
                }
            }
        }
    }

    @Test func coloursAreEqualOnlyWhenTheSame() {
        for (i, a) in Self.colours.enumerated() {
            for (j, b) in Self.colours.enumerated() {
                #expect((a == b) == (i == j), "\(a) and \(b)")
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
        #expect(Color.rgb(1, 2, 3) != .rgb(1, 2, 4))
        #expect(Color.palette(3) != .rgb(0, 0, 3))
    }

    /// 120x40 cells of random colours: about 200 KB in 24 bits for a frame written whole,
    /// twelve times the writer's span, which is moved into the buffer again and again.
    @Test func aFrameLargerThanTheSpanIsWhatTheTerminalShows() {
        var seed: UInt64 = 11
        let width = 120, height = 40
        for depth in [ColorDepth.direct, .palette256] {
            let before = FrameWriterTests.frame(width, height, seed: &seed, palette: depth != .direct)
            let after = FrameWriterTests.frame(width, height, seed: &seed, palette: depth != .direct)
            var terminal = TinyTerminal(width: width, height: height)
            terminal.feed(ANSIWriter.bytes(of: before, depth: depth) + Array("\u{1B}[\(height)A".utf8))
            var shown = Canvas(image: before)
            let next = Canvas(image: after)
            var memo = PaletteMemo(depth: depth)
            var bytes: [UInt8] = []
            FrameWriter.write(next.diff(from: shown), of: next, shown: &shown, memo: &memo, into: &bytes)
            #expect(bytes.count > (depth == .direct ? 8 : 2) * 16_384, "\(bytes.count) bytes")
            terminal.feed(bytes)
            #expect(terminal.unknown.isEmpty)
            #expect(terminal.picture == after.cells.map(terminal.look), "\(depth)")
            #expect(shown == next, "what the writer recorded is the frame")
        }
    }

    /// Text among a picture's cells: a cluster longer than any room kept goes out whole, in
    /// its place between its neighbours (in the same colours: nothing else flushes there),
    /// and the frame is recorded as written.
    @Test func clustersAmongAFrameAreWrittenWhole() {
        var seed: UInt64 = 5
        let picture = FrameWriterTests.frame(120, 40, seed: &seed)
        var shown = Canvas(image: picture)
        var next = Canvas(image: FrameWriterTests.frame(120, 40, seed: &seed))
        // A letter with three marks: one grapheme of four scalars, a cluster in the glyph table.
        let cluster = "e\u{301}\u{302}\u{303}"
        for y in stride(from: 0, to: 40, by: 5) {
            next.text("ab\(cluster)cd", x: 3 + y, y: y, style: Style(foreground: .rgb(250, 250, 250), background: .rgb(5, 5, 5)))
        }
        var memo = PaletteMemo(depth: .direct)
        var bytes: [UInt8] = []
        FrameWriter.write(next.diff(from: shown), of: next, shown: &shown, memo: &memo, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "ab\(cluster)cd").count - 1 == 8, "each of the eight in its place: \(text.debugDescription.prefix(400))")
        #expect(shown == next)
    }

    /// The cluster table is bounded by count and by bytes: past either, a new cluster has no
    /// number (it is drawn as its first scalar), one already there keeps its own.
    @Test func theClusterTableIsBoundedByCountAndBytes() {
        let table = GlyphTable(capacity: 3, byteCapacity: 40)
        let marks = String(repeating: "\u{301}", count: 10) // 20 bytes of marks
        let long = Character("a" + marks), other = Character("b" + marks)
        #expect(table.number(of: long) != nil)
        #expect(table.number(of: other) == nil, "42 bytes would pass the 40")
        #expect(table.number(of: long) == table.number(of: long), "one there keeps its number")
        let short = ["e\u{301}", "o\u{302}", "u\u{303}"].map(Character.init)
        #expect(table.number(of: short[0]) != nil && table.number(of: short[1]) != nil)
        #expect(table.number(of: short[2]) == nil, "a fourth past the count of 3")
    }
}
