import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Sextant and octant picture cells are pictures to every drawing pass that treats text:
/// the contrast pass leaves their colours (a smooth area's two close colours were pushed to
/// 4.5:1 — speckles), a transition scales them with the picture, a darkened band mixes
/// their two colours.
@Suite struct PictureCellsStayPicturesTests {
    static let symbols: [Character] = ["▀", "▞", "\u{1FB00}", "\u{1FB3B}", "\u{1CD00}", "\u{1CDE5}", "\u{1CEA8}", "\u{1FB85}"]

    @Test(arguments: symbols)
    func aPictureCellKeepsItsColoursAndIsNotText(_ glyph: Character) {
        let style = Style(foreground: .rgb(120, 90, 60), background: .rgb(118, 92, 61))
        var canvas = Canvas(width: 1, height: 1, cells: [Cell(glyph, style: style)])
        canvas.keepReadable(on: Display(colorDepth: .direct))
        #expect(canvas[0, 0].style == style, "\(glyph): colours kept")
        #expect(!Canvas.isText(canvas[0, 0]), "\(glyph) is a picture's cell")
        canvas.darken(rows: 0..<1, factor: 0.5)
        #expect(canvas[0, 0].style.background == .rgb(59, 45, 30), "\(glyph): the two colours' mean, darkened")
    }

    @Test func textNextToThemIsStillText() {
        let style = Style(foreground: .rgb(120, 90, 60), background: .rgb(118, 92, 61))
        var canvas = Canvas(width: 1, height: 1, cells: [Cell("a", style: style)])
        canvas.keepReadable(on: Display(colorDepth: .direct))
        #expect(canvas[0, 0].style != style, "a letter on a near-equal colour is made readable")
    }
}
