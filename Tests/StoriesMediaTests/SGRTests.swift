import StoriesCells
import Testing

/// The one SGR encoder: what each colour and attribute becomes at each depth.
@Suite struct SGRTests {
    func text(_ style: Style, _ depth: ColorDepth) -> String {
        String(decoding: SGR.sequence(for: style, depth: depth) { ColorMapping.terminalColor($0, depth: depth) }, as: UTF8.self)
    }

    @Test func stylesAtEachDepth() {
        #expect(text(Style(), .palette256) == "\u{1B}[0m")
        #expect(text(Style(foreground: .palette(196), attributes: [.bold]), .palette256) == "\u{1B}[0;1;38;5;196m")
        #expect(text(Style(foreground: .palette(9), background: .palette(2)), .sixteen) == "\u{1B}[0;91;42m")
        #expect(text(Style(foreground: .rgb(1, 2, 3), attributes: [.italic, .underline, .reverse]), .direct)
                == "\u{1B}[0;3;4;7;38;2;1;2;3m")
        #expect(text(Style(background: .palette(196)), .direct) == "\u{1B}[0;48;2;255;0;0m", "a palette colour as its RGB")
        #expect(text(Style(foreground: .rgb(255, 0, 0)), .palette256) == "\u{1B}[0;38;5;196m")
        #expect(text(Style(foreground: .palette(196)), .none) == "\u{1B}[0m", "no colour where the terminal has none")
    }
}
