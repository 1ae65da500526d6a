import StoriesCells
import StoriesCore
import StoriesMedia
import Testing
@testable import StoriesTerminal

/// Issue 45, point 6: pictures in 8 and 16 colours are picked among the colours the
/// terminal really has — its OSC 4 answers, or its kind's defaults.
@Suite struct TerminalPaletteTests {
    /// The burst asks for the 16 colours in one OSC 4, except where strings are not sent
    /// (tmux, screen, the Linux console) or COLORTERM says 24-bit (pictures never use them).
    @Test func theBurstAsksForTheSixteenColoursWhereTheyMatter() {
        let ask = "\u{1B}]4;0;?;1;?;2;?;3;?;4;?;5;?;6;?;7;?;8;?;9;?;10;?;11;?;12;?;13;?;14;?;15;?\u{1B}\\"
        let xterm = TerminalProbe.burst(environment: ["TERM": "xterm"])
        #expect(xterm.contains(ask) && xterm.hasSuffix("\u{1B}[c"), "DA1 stays last")
        for environment in [["TERM": "xterm-kitty", "COLORTERM": "truecolor"], ["TERM": "linux"], ["TERM": "screen"],
                            ["TMUX": "/tmp/t,1,0", "TERM": "tmux-256color"]] {
            #expect(!TerminalProbe.burst(environment: environment).contains("\u{1B}]4;"), "\(environment)")
            #expect(!TerminalProbe.asksPalette(environment))
        }
    }

    /// Answers, by BEL or ST, in any order, some missing: what was answered, the defaults
    /// for the rest. Numbers past 15, other forms and hostile bodies change nothing.
    @Test func theAnswersMakeThePalette() {
        var replies = ProbeReplies()
        replies.feed(Array("\u{1B}]4;4;rgb:2626/8b8b/d2d2\u{07}\u{1B}]4;0;rgb:00/2b/36\u{1B}\\".utf8))
        replies.feed(Array("\u{1B}]4;16;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}]4;1;rgb:zz/00/00\u{1B}\\\u{1B}]4;2;#ff0000\u{1B}\\".utf8))
        replies.feed(Array("\u{1B}]4;-1;rgb:ff/ff/ff\u{1B}\\\u{1B}]4;3;rgb:fffff/0/0\u{1B}\\\u{1B}]4;5;rgb:1/2\u{1B}\\".utf8))
        #expect(replies.paletteAnswers.count == 2)
        let palette = replies.palette(defaults: .xterm)
        #expect(palette[4] == (38, 139, 210) && palette[0] == (0, 43, 54))
        #expect(palette[1] == TerminalPalette.xterm[1] && palette[2] == TerminalPalette.xterm[2] && palette[15] == (255, 255, 255))
        #expect(replies.palette(defaults: .linuxConsole)[1] == (170, 0, 0), "the Linux console's red where not answered")
        #expect(TerminalPalette.defaults(term: "linux") == .linuxConsole && TerminalPalette.defaults(term: "foot") == .xterm)
        // An answer that comes late (read by the input decoder) counts the same.
        var late = ProbeReplies()
        late.read(answer: "\u{1B}]4;12;rgb:8080/8080/ffff\u{1B}\\")
        #expect(late.palette(defaults: .xterm)[12] == (128, 128, 255) && late != ProbeReplies())
    }

    /// The picker chooses among the terminal's colours: Solarized's blue (its number 4) is
    /// drawn as number 4 where the terminal says that is its blue, and not with xterm's
    /// palette, where number 4 is a far deeper blue.
    @Test(arguments: [ColorDepth.eight, .sixteen])
    func thePickerUsesTheTerminalsColours(depth: ColorDepth) {
        let solarized = TerminalPalette.xterm.setting(4, to: (38, 139, 210)).setting(6, to: (42, 161, 152))
        var image = RGBImage(width: 2, height: 4)
        for i in 0..<8 { image[i % 2, i / 2] = RGBPixel(38, 139, 210) }
        let own = CellImage(pixels: image, symbols: .octant, depth: depth, palette: solarized)[0, 0]
        #expect(own.foreground == .palette(4) && own.background == .palette(4), "\(own)")
        let xterm = CellImage(pixels: image, symbols: .octant, depth: depth)[0, 0]
        #expect(xterm.foreground != .palette(4) || xterm.background != .palette(4), "\(xterm)")
    }

    /// The palette is in the rendition key at 8 and 16 colours only: at 256 colours and
    /// 24-bit one key serves every terminal.
    @Test func thePaletteIsPartOfTheKeyOnlyWhereItIsUsed() {
        let solarized = TerminalPalette.xterm.setting(4, to: (38, 139, 210))
        func key(_ depth: ColorDepth, _ palette: TerminalPalette) -> RenditionKey {
            RenditionKey(location: "a.jpg", width: 10, height: 5, depth: depth, palette: palette)
        }
        #expect(key(.sixteen, solarized) != key(.sixteen, .xterm) && key(.eight, solarized) != key(.eight, .xterm))
        #expect(key(.palette256, solarized) == key(.palette256, .xterm) && key(.direct, solarized) == key(.direct, .xterm))
    }
}
