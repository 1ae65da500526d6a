import StoriesCells
import StoriesMedia
import Foundation
import CNcursesw
import Glibc
import StoriesCore
import StoriesUI
import Testing
@testable import StoriesTerminal

/// ncurses is one global screen, so these run one at a time, each on a headless SCREEN
/// (`newterm` writing to a temporary file, reading from /dev/null).
@Suite(.serialized) @MainActor struct CursesScreenTests {
    func withScreen(term: String = "xterm-256color", environment: [String: String] = [:],
                    _ body: (CursesScreen) throws -> Void) throws {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        let screen = try CursesScreen(termName: term, input: input, output: output, environment: environment, mouse: false)
        defer { screen.close() }
        try body(screen)
    }

    @Test func anUnknownTerminalIsAClearErrorNotAnExit() throws {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        #expect(throws: TerminalError.unknownTerminal("no-such-terminal-xyz")) {
            _ = try CursesScreen(termName: "no-such-terminal-xyz", input: input, output: output, environment: [:])
        }
        #expect(throws: TerminalError.termNotSet) {
            _ = try CursesScreen(input: input, output: output, environment: [:])
        }
        #expect(TerminalError.unknownTerminal("x").description.contains("TERM=xterm-256color"))
    }

    /// A motion's frames are written by the frame writer, past ncurses (a cube frame through
    /// ncurses cost 7 ms at 120×40): only the cells that changed, from the top left; when the
    /// motion ends ncurses' screen is made whole again from the whole canvas.
    @Test func aMotionsFramesGoPastNcursesAndItsScreenIsWholeAfter() throws {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        let screen = try CursesScreen(termName: "xterm-256color", input: input, output: output, environment: [:], mouse: false)
        defer { screen.close() }
        let (width, height) = (screen.size.width, screen.size.height)
        var still = Canvas(width: width, height: height)
        still.text("before", x: 0, y: 0, style: Style(foreground: .palette(196)))
        screen.draw(still)
        fflush(output)
        let start = ftell(output)
        var motion = still
        motion.text("moving", x: 2, y: 3, style: Style(foreground: .palette(46)))
        motion.isMotion = true
        screen.draw(motion)
        #expect(screen.lastDrawnCellCount == 6, "the six changed cells")
        #expect(screen.cell(x: 2, y: 3)?.text == " ", "ncurses was not told")
        fflush(output)
        let end = ftell(output)
        var bytes = [UInt8](repeating: 0, count: end - start)
        fseek(output, start, SEEK_SET)
        _ = fread(&bytes, 1, bytes.count, output)
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(written.hasPrefix("\u{1B}[H"), "from the top left: \(written.debugDescription)")
        #expect(written.contains("moving") && !written.contains("before"), "only what changed")
        #expect(written.contains("38;5;46"), "in its colour")
        // At rest again: ncurses holds the whole canvas.
        var after = motion
        after.isMotion = false
        after.text("at rest", x: 0, y: 5)
        screen.draw(after)
        #expect(screen.cell(x: 2, y: 3)?.text == "m" && screen.cell(x: 0, y: 0)?.text == "b" && screen.cell(x: 0, y: 5)?.text == "a")
        #expect(screen.lastDrawnCellCount > width * height / 2, "every cell handed to ncurses again")
    }

    @Test func drawsWideCharactersAndColoursIntoTheCells() throws {
        try withScreen { screen in
            var canvas = Canvas(width: screen.size.width, height: screen.size.height)
            canvas.text("山田🌸a", x: 0, y: 0, style: Style(foreground: .palette(213), background: .palette(17), attributes: [.bold]))
            screen.draw(canvas)
            let first = try #require(screen.cell(x: 0, y: 0))
            #expect(first.text == "山")
            #expect(first.foreground == 213 && first.background == 17)
            #expect(first.attributes & STORIES_A_BOLD != 0)
            #expect(screen.cell(x: 2, y: 0)?.text == "田")
            #expect(screen.cell(x: 4, y: 0)?.text == "🌸")
            #expect(screen.cell(x: 6, y: 0)?.text == "a")
        }
    }

    /// The bottom-right cell is drawn like any other (ncurses says ERR there because the
    /// cursor cannot move on, which is not a refusal), and joined or flagged clusters land
    /// in the cells the canvas gave them.
    @Test func theBottomRightCellAndSplitClustersAreDrawnAsTheCanvasHasThem() throws {
        try withScreen { screen in
            let (width, height) = (screen.size.width, screen.size.height)
            var canvas = Canvas(width: width, height: height)
            canvas.text("z", x: width - 1, y: height - 1)
            canvas.text("\u{1F1FA}\u{1F1F8}|\u{1F468}\u{200D}\u{1F469}|\u{915}\u{94D}\u{937}\u{93F}|", x: 0, y: 0)
            screen.draw(canvas)
            #expect(screen.cell(x: width - 1, y: height - 1)?.text == "z")
            let row = (0..<12).map { screen.cell(x: $0, y: 0)?.text ?? "?" }
            #expect(row[0] == "\u{1F1FA}" && row[1] == "\u{1F1F8}" && row[2] == "|", "\(row)")
            #expect(row[3] == "\u{1F468}" && row[5] == "|", "the family is its first person, two columns: \(row)")
            #expect(row[6] == "\u{915}\u{94D}" && row[7] == "\u{937}" && row[8] == "\u{93F}" && row[9] == "|", "\(row)")
        }
    }

    @Test func onlyChangedCellsAreHandedToNcurses() throws {
        try withScreen { screen in
            var canvas = Canvas(width: screen.size.width, height: screen.size.height)
            canvas.text("hello", x: 0, y: 0)
            screen.draw(canvas)
            #expect(screen.lastDrawnCellCount == canvas.width * canvas.height)
            screen.draw(canvas)
            #expect(screen.lastDrawnCellCount == 0)
            canvas.text("J", x: 0, y: 0)
            screen.draw(canvas)
            #expect(screen.lastDrawnCellCount == 1)
            #expect(screen.cell(x: 0, y: 0)?.text == "J")
        }
    }

    @Test func pairsAboveTwoHundredFiftyFiveKeepTheirColours() throws {
        try withScreen { screen in
            #expect(screen.colorDepth == .palette256)
            var canvas = Canvas(width: screen.size.width, height: screen.size.height)
            for y in 0..<20 {
                for x in 0..<20 {
                    canvas.text("x", x: x, y: y, style: Style(foreground: .palette(UInt8(x + 20)), background: .palette(UInt8(y + 100))))
                }
            }
            screen.draw(canvas)
            #expect(screen.pairsInUse == 400)
            for (x, y) in [(0, 0), (19, 19), (7, 13)] {
                let cell = try #require(screen.cell(x: x, y: y))
                #expect(cell.foreground == Int32(x + 20) && cell.background == Int32(y + 100))
            }
        }
    }

    @Test func aFullPairTableIsEmptiedNotRecycledUnderCellsOnScreen() throws {
        // TERM=xterm has 8 colours and 64 pairs: nine-by-nine combinations do not fit.
        try withScreen(term: "xterm") { screen in
            #expect(screen.colorDepth == .eight)
            var canvas = Canvas(width: screen.size.width, height: screen.size.height)
            let colours: [Color] = [.default] + (0..<8).map { .palette(UInt8($0)) }
            for (y, bg) in colours.enumerated() {
                for (x, fg) in colours.enumerated() { canvas.text("#", x: x, y: y, style: Style(foreground: fg, background: bg)) }
            }
            screen.draw(canvas)
            #expect(screen.pairsInUse == 63)
            // A normal frame afterwards gets correct colours for every cell.
            var next = Canvas(width: screen.size.width, height: screen.size.height)
            for x in 0..<8 { next.text("o", x: x, y: 0, style: Style(foreground: .palette(UInt8(x)), background: .palette(UInt8(7 - x)))) }
            screen.draw(next)
            for x in 0..<8 {
                let cell = try #require(screen.cell(x: x, y: 0))
                #expect(cell.foreground == Int32(x) && cell.background == Int32(7 - x))
            }
        }
    }

    /// A video changes most cells' colours every frame: the pair table fills again and
    /// again. Every frame still shows every cell in its own colours, and pair numbers stay
    /// inside the table.
    @Test func aTableThatFillsOverAndOverKeepsEveryFramesColours() throws {
        try withScreen { screen in
            let (width, height) = screen.size
            var seed: UInt64 = 9
            func next() -> UInt8 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: seed >> 40) }
            let frames = 65_536 / (width * height) + 3 // past the table's 65 535 pairs
            for frame in 0..<frames {
                var canvas = Canvas(width: width, height: height)
                var expected: [(Int32, Int32)] = []
                for y in 0..<height {
                    for x in 0..<width {
                        let fg = next(), bg = next()
                        canvas.text("▀", x: x, y: y, style: Style(foreground: .palette(fg), background: .palette(bg)))
                        expected.append((Int32(fg), Int32(bg)))
                    }
                }
                screen.draw(canvas)
                #expect(screen.pairsInUse <= 65_535)
                var wrong = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let cell = try #require(screen.cell(x: x, y: y))
                        let (fg, bg) = expected[y * width + x]
                        if cell.foreground != fg || cell.background != bg { wrong += 1 }
                    }
                }
                #expect(wrong == 0, "frame \(frame): \(wrong) cells in the wrong colours")
            }
        }
    }

    @Test func noColorTurnsColoursOff() throws {
        try withScreen(environment: ["NO_COLOR": "1"]) { screen in
            #expect(screen.colorDepth == .none)
            var canvas = Canvas(width: 10, height: 2)
            canvas.text("a", x: 0, y: 0, style: Style(foreground: .palette(1), attributes: [.reverse]))
            screen.draw(canvas)
            let cell = try #require(screen.cell(x: 0, y: 0))
            #expect(cell.foreground == -1)
            #expect(cell.attributes & STORIES_A_REVERSE != 0)
        }
    }

    /// What the screen wrote to its output file.
    static func written(_ file: UnsafeMutablePointer<FILE>) -> String {
        fflush(file)
        let fd = fileno(file)
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size > 0 else { return "" }
        var bytes = [UInt8](repeating: 0, count: size)
        _ = pread(fd, &bytes, size, 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `y` puts a link on the clipboard with OSC 52, base64 so nothing in it is a control
    /// sequence; a link on the canvas is written inside OSC 8, its cells as they are, with
    /// the cursor saved and restored around it.
    @Test func clipboardAndHyperlinksAreTheirSequences() throws {
        let output = try #require(tmpfile())
        let input = try #require(fopen("/dev/null", "r"))
        defer { fclose(output); fclose(input) }
        let screen = try CursesScreen(termName: "xterm-256color", input: input, output: output,
                                      environment: ["TERM": "xterm-256color"], mouse: false)
        defer { screen.close() }
        screen.copyToClipboard("https://hubblesite.org/\u{07}\u{1B}]0;x")
        let url = "https://hubblesite.org/"
        var canvas = Canvas(width: screen.size.width, height: screen.size.height)
        let drawn = canvas.text("↗ Hubble", x: 2, y: 5, style: Style(foreground: .palette(205), attributes: [.underline]))
        canvas.links = [.init(x: 2, y: 5, width: drawn, url: url)]
        screen.draw(canvas)
        let text = Self.written(output)
        let encoded = Data("https://hubblesite.org/\u{07}\u{1B}]0;x".utf8).base64EncodedString()
        #expect(text.contains("\u{1B}]52;c;\(encoded)\u{07}"), "OSC 52, the text base64")
        #expect(text.contains("\u{1B}7\u{1B}[6;3H\u{1B}]8;;\(url)\u{1B}\\"), "OSC 8 at the link's cell, after saving the cursor")
        #expect(text.contains("\u{1B}[0;4;38;5;205m↗\u{1B}[0;4;38;5;205m "), "the cells as they are drawn")
        #expect(text.contains("\u{1B}]8;;\u{1B}\\\u{1B}[0m\u{1B}8"), "the link closed, the cursor restored")
    }
}
