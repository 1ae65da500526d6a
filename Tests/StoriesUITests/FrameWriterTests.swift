import StoriesCells
import StoriesMedia
import Testing
@testable import StoriesUI

/// A tiny terminal for the sequences `ANSIWriter` and `FrameWriter` write: cursor moves (A B G, CR, LF),
/// SGR colours (truecolor, 256, 16, 8, resets) and printed glyphs. What a person would see
/// in each cell: the glyph with its two colours. Anything else fails the test.
struct TinyTerminal {
    let width: Int, height: Int
    private(set) var cells: [ImageCell]
    private var x = 0, y = 0
    private var foreground: Color = .default, background: Color = .default
    private(set) var unknown: [String] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: ImageCell(glyph: " ", foreground: .default, background: .default), count: width * height)
    }

    /// What the cell looks like: a space shows only its background, so it is the same
    /// picture as a half block whose halves are both that colour.
    /// What a cell shows, as a half block: a space is its background twice, a full block its
    /// foreground twice, a lower half block the upper one with its colours swapped.
    func look(_ cell: ImageCell) -> ImageCell {
        switch cell.glyph {
        case " ": ImageCell(glyph: "▀", foreground: cell.background, background: cell.background)
        case "█": ImageCell(glyph: "▀", foreground: cell.foreground, background: cell.foreground)
        case "▄": ImageCell(glyph: "▀", foreground: cell.background, background: cell.foreground)
        default: cell
        }
    }

    var picture: [ImageCell] { cells.map(look) }

    mutating func feed(_ bytes: [UInt8]) {
        let text = Array(String(decoding: bytes, as: UTF8.self))
        var i = 0
        while i < text.count {
            let c = text[i]
            if c == "\u{1B}" {
                guard i + 1 < text.count, text[i + 1] == "[" else { unknown.append("ESC without ["); i += 1; continue }
                var j = i + 2
                var parameters = ""
                while j < text.count, text[j].isASCII, text[j].isNumber || text[j] == ";" || text[j] == "?" { parameters.append(text[j]); j += 1 }
                guard j < text.count else { unknown.append("unfinished sequence"); return }
                apply(parameters, final: text[j])
                i = j + 1
                continue
            }
            switch c {
            case "\r": x = 0
            case "\n": y += 1; x = 0
            default:
                if x < width, y < height { cells[y * width + x] = ImageCell(glyph: c, foreground: foreground, background: background) }
                x += 1
            }
            i += 1
        }
    }

    private mutating func apply(_ parameters: String, final: Character) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        let n = max(1, numbers.first ?? 1)
        switch final {
        case "A": y = max(0, y - n)
        case "B": y += n
        case "G": x = n - 1
        case "h", "l": break // cursor shown / hidden
        case "m":
            var k = 0
            while k < numbers.count {
                let p = numbers[k]
                switch p {
                case 0: foreground = .default; background = .default
                case 30...37: foreground = .palette(UInt8(p - 30))
                case 40...47: background = .palette(UInt8(p - 40))
                case 90...97: foreground = .palette(UInt8(p - 90 + 8))
                case 100...107: background = .palette(UInt8(p - 100 + 8))
                case 39: foreground = .default
                case 49: background = .default
                case 38, 48:
                    let color: Color
                    if k + 1 < numbers.count, numbers[k + 1] == 2, k + 4 < numbers.count {
                        color = .rgb(UInt8(numbers[k + 2]), UInt8(numbers[k + 3]), UInt8(numbers[k + 4])); k += 4
                    } else if k + 2 < numbers.count, numbers[k + 1] == 5 {
                        color = .palette(UInt8(numbers[k + 2])); k += 2
                    } else { unknown.append("bad colour \(parameters)"); return }
                    if p == 38 { foreground = color } else { background = color }
                default: unknown.append("SGR \(p)")
                }
                k += 1
            }
        default: unknown.append("CSI \(parameters)\(final)")
        }
    }
}

/// `stories play`'s path: a frame as a canvas, the one frame diff from what the terminal
/// shows (`Canvas.diff(from:tolerance:)`), written by `FrameWriter`.
@Suite struct FrameWriterTests {
    /// The bytes that turn `shown` into `next` and what the terminal shows afterwards, as
    /// `stories play` takes them (a first frame, or one of another size, is written whole).
    static func update(from shown: CellImage, to next: CellImage, depth: ColorDepth,
                       tolerance: Int = 0) -> (bytes: [UInt8], shown: CellImage) {
        var screen = Canvas(image: shown)
        let frame = Canvas(image: next)
        guard screen.width == frame.width, screen.height == frame.height else {
            return (ANSIWriter.bytes(of: next, depth: depth) + Array("\u{1B}[\(next.height)A".utf8), next)
        }
        let bytes = FrameWriter.bytes(for: frame.diff(from: screen, tolerance: tolerance), of: frame, shown: &screen, depth: depth)
        return (bytes, CellImage(width: screen.width, height: screen.height, cells: screen.cells.map {
            ImageCell(glyph: $0.grapheme ?? " ", foreground: $0.style.foreground, background: $0.style.background)
        }))
    }

    /// A picture of half blocks from a seeded generator: `flat` of them with both halves alike.
    static func frame(_ width: Int, _ height: Int, seed: inout UInt64, palette: Bool = false) -> CellImage {
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        var cells: [ImageCell] = []
        for _ in 0..<(width * height) {
            let top: Color = palette ? .palette(UInt8(next() % 256)) : .rgb(UInt8(next() % 256), UInt8(next() % 256), UInt8(next() % 256))
            let bottom = next() % 3 == 0 ? top : (palette ? .palette(UInt8(next() % 256)) : .rgb(UInt8(next() % 256), UInt8(next() % 256), UInt8(next() % 256)))
            cells.append(ImageCell(glyph: "▀", foreground: top, background: bottom))
        }
        return CellImage(width: width, height: height, cells: cells)
    }

    /// A smooth sky: neighbours a level or two apart, so colours already set can be kept.
    static func sky(_ width: Int, _ height: Int, seed: inout UInt64) -> CellImage {
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        var cells: [ImageCell] = []
        for y in 0..<height {
            for x in 0..<width {
                func tone() -> Color { .rgb(UInt8(40 + x / 3 + Int(next() % 3)), UInt8(70 + Int(next() % 3)), UInt8(120 + y * 2 + Int(next() % 3))) }
                let top = tone()
                cells.append(ImageCell(glyph: "▀", foreground: top, background: next() % 3 == 0 ? top : tone()))
            }
        }
        return CellImage(width: width, height: height, cells: cells)
    }

    /// Moves every channel of some cells by up to `amount` (a drifting picture).
    static func drift(_ image: CellImage, by amount: Int, seed: inout UInt64) -> CellImage {
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        func move(_ c: Color) -> Color {
            guard case .rgb(let r, let g, let b) = c else { return c }
            func m(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, Int(v) + Int(next() % UInt64(2 * amount + 1)) - amount))) }
            return .rgb(m(r), m(g), m(b))
        }
        return CellImage(width: image.width, height: image.height, cells: image.cells.map { cell in
            next() % 4 == 0 ? cell : ImageCell(glyph: cell.glyph, foreground: move(cell.foreground), background: move(cell.background))
        })
    }

    static func within(_ a: ImageCell, _ b: ImageCell, _ tolerance: Int) -> Bool {
        a.isClose(to: b, within: tolerance)
    }

    @Test func anUnchangedPictureWritesNothing() {
        var seed: UInt64 = 1
        let picture = Self.frame(12, 5, seed: &seed)
        let (bytes, shown) = Self.update(from: picture, to: picture, depth: .direct)
        #expect(bytes.isEmpty)
        #expect(shown == picture)
    }

    @Test func exactUpdatesLeaveTheTerminalShowingTheNewFrame() {
        for depth in [ColorDepth.direct, .palette256] {
            var seed: UInt64 = 7
            var terminal = TinyTerminal(width: 30, height: 8)
            var shown = Self.frame(30, 8, seed: &seed, palette: depth != .direct)
            terminal.feed(ANSIWriter.bytes(of: shown, depth: depth) + Array("\u{1B}[8A".utf8))
            for round in 0..<40 {
                // A few cells change, in runs and alone, near and far apart.
                var cells = shown.cells
                for _ in 0..<(round % 9) { cells[Int(seed % UInt64(cells.count))] = Self.frame(1, 1, seed: &seed, palette: depth != .direct).cells[0] }
                let next = CellImage(width: 30, height: 8, cells: cells)
                let update = Self.update(from: shown, to: next, depth: depth)
                terminal.feed(update.bytes)
                #expect(terminal.unknown.isEmpty)
                #expect(update.shown == next, "tolerance 0 writes every change")
                #expect(terminal.picture == next.cells.map(terminal.look), "round \(round)")
                shown = update.shown
            }
        }
    }

    @Test func withATolerance_theScreenStaysWithinItAndTheErrorNeverAccumulates() {
        var seed: UInt64 = 42
        let tolerance = 3
        for start in [Self.frame(40, 10, seed: &seed), Self.sky(40, 10, seed: &seed)] {
        var terminal = TinyTerminal(width: 40, height: 10)
        var wanted = start
        terminal.feed(ANSIWriter.bytes(of: wanted, depth: .direct) + Array("\u{1B}[10A".utf8))
        var shown = wanted
        var exactBytes = 0, tolerantBytes = 0
        var exactShown = wanted
        for _ in 0..<200 {
            // A slow drift of 1–2 levels a frame: far beyond the tolerance after 200 frames.
            wanted = Self.drift(wanted, by: 2, seed: &seed)
            let update = Self.update(from: shown, to: wanted, depth: .direct, tolerance: tolerance)
            terminal.feed(update.bytes)
            #expect(terminal.unknown.isEmpty)
            let unlike = zip(terminal.picture, update.shown.cells).filter { $0 != $1 }.count
            #expect(unlike == 0, "the returned picture is what the terminal shows \(zip(terminal.picture, update.shown.cells).first { $0 != $1 }.map { "\($0)" } ?? "")")
            let far = zip(update.shown.cells, wanted.cells).filter { !Self.within($0, $1, tolerance) }.count
            #expect(far == 0, "every cell on screen is within \(tolerance) of the frame")
            shown = update.shown
            tolerantBytes += update.bytes.count
            let exact = Self.update(from: exactShown, to: wanted, depth: .direct)
            exactBytes += exact.bytes.count
            exactShown = exact.shown
        }
        #expect(tolerantBytes * 2 < exactBytes, "a drift below the tolerance is mostly not written (\(tolerantBytes) vs \(exactBytes))")
        }
    }

    /// What a player hands the viewer: each frame settled toward the one before.
    @Test func aSettledFrameKeepsCloseCellsAndStaysWithinTheToleranceOfTheTruth() {
        var seed: UInt64 = 11
        var truth = Self.sky(30, 8, seed: &seed)
        var shown = truth
        var kept = 0
        for _ in 0..<100 {
            truth = Self.drift(truth, by: 2, seed: &seed)
            let settled = shown.settled(toward: truth, tolerance: 3)
            for index in truth.cells.indices {
                #expect(settled.cells[index].isClose(to: truth.cells[index], within: 3))
                if settled.cells[index] == shown.cells[index] { kept += 1 }
            }
            shown = settled
        }
        #expect(kept > 30 * 8 * 100 / 2, "most cells drift less than the tolerance and stay (\(kept))")
        #expect(shown.settled(toward: truth, tolerance: 0) == truth, "tolerance 0 is the frame itself")
        let other = Self.frame(4, 4, seed: &seed)
        #expect(shown.settled(toward: other, tolerance: 3) == other, "a new size is the frame itself")
    }

    @Test func aCellWhoseHalvesMatchIsASpaceInTheBackgroundColour() {
        let red = Color.rgb(200, 10, 10)
        let blank = CellImage(width: 3, height: 1, cells: Array(repeating: ImageCell(glyph: "▀", foreground: .rgb(0, 0, 0), background: .rgb(0, 0, 0)), count: 3))
        let flat = CellImage(width: 3, height: 1, cells: Array(repeating: ImageCell(glyph: "▀", foreground: red, background: red), count: 3))
        let (bytes, shown) = Self.update(from: blank, to: flat, depth: .direct)
        #expect(String(decoding: bytes, as: UTF8.self) == "\u{1B}[1G\u{1B}[48;2;200;10;10m   \u{1B}[0m\r")
        #expect(shown == flat)
    }

    @Test func aDifferentSizeIsWrittenWhole() {
        var seed: UInt64 = 3
        let small = Self.frame(4, 2, seed: &seed), large = Self.frame(6, 3, seed: &seed)
        var terminal = TinyTerminal(width: 6, height: 3)
        let update = Self.update(from: small, to: large, depth: .direct, tolerance: 10)
        terminal.feed(update.bytes)
        #expect(update.shown == large)
        #expect(terminal.picture == large.cells.map(terminal.look))
    }
}

extension FrameWriterTests {
    /// Cells with attributes (text, not a picture) are written with the whole sequence for
    /// their style, and a wide grapheme's right half is left to the terminal.
    @Test func textWithAttributesAndAWideGraphemeIsWrittenWhole() {
        var shown = Canvas(width: 6, height: 2)
        var next = shown
        next.text("a", x: 1, y: 1, style: Style(foreground: .palette(2), attributes: [.bold]))
        next.text("山", x: 3, y: 1)
        let diff = next.diff(from: shown)
        let bytes = FrameWriter.bytes(for: diff, of: next, shown: &shown, depth: .palette256)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == "\u{1B}[1B\u{1B}[2G\u{1B}[0;1;32ma\u{1B}[0m 山\u{1B}[0m\u{1B}[1A\r", "\(text.debugDescription)")
        #expect(shown == next, "what the terminal shows now")
        #expect(FrameWriter.bytes(for: next.diff(from: shown), of: next, shown: &shown, depth: .palette256).isEmpty)
    }
}

extension FrameWriterTests {
    /// The terminal's own colours are two colours (its text's and its background's): a half
    /// block in either is never made a space or swapped to ▄, by the frame writer or by
    /// `stories print`.
    @Test func halfBlocksInTheTerminalsOwnColoursAreWrittenAsTheyAre() {
        let red = Color.rgb(200, 0, 0)
        let cells = [ImageCell(glyph: "▀", foreground: red, background: .default), ImageCell(glyph: "▀", foreground: .default, background: red),
                     ImageCell(glyph: "▀", foreground: .default, background: .default), ImageCell(glyph: "█", foreground: .default, background: red)]
        let image = CellImage(width: cells.count, height: 1, cells: cells)
        for depth in [ColorDepth.direct, .palette256] {
            var shown = Canvas(width: cells.count, height: 1)
            let next = Canvas(image: image)
            let written = String(decoding: FrameWriter.bytes(for: next.diff(from: shown), of: next, shown: &shown, depth: depth), as: UTF8.self)
            #expect(written.filter { $0 == "▀" }.count == 3 && written.contains("█") && !written.contains("▄"), "\(written.debugDescription)")
            #expect(shown == next)
            let printed = String(decoding: ANSIWriter.bytes(of: image, depth: depth), as: UTF8.self)
            #expect(printed.filter { $0 == "▀" }.count == 3 && printed.contains("█") && !printed.contains("▄"), "\(printed.debugDescription)")
        }
    }
}
