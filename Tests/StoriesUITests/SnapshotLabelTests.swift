import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Snapshot style labels come from the style, not from where it is first met: a change to
/// one style changes only the rows that use it (issue 28, point 7).
@Suite struct SnapshotLabelTests {
    func canvas(first: Style) -> Canvas {
        var canvas = Canvas(width: 6, height: 3)
        canvas.text("ab", x: 0, y: 0, style: first)
        canvas.text("cd", x: 0, y: 1, style: Style(foreground: .palette(2)))
        canvas.text("ef", x: 0, y: 2, style: Style(foreground: .palette(3), attributes: [.bold]))
        return canvas
    }

    func styleRows(_ text: String) -> [String] {
        Array(text.components(separatedBy: "-- style rows\n")[1].split(separator: "\n").map(String.init))
    }

    @Test func aChangedStyleRelabelsOnlyItsOwnRows() {
        let before = Snapshot.text(of: canvas(first: Style(foreground: .palette(1))), styles: true)
        let after = Snapshot.text(of: canvas(first: Style(foreground: .palette(9), attributes: [.underline])), styles: true)
        let (a, b) = (styleRows(before), styleRows(after))
        #expect(a.count == 3 && b.count == 3)
        #expect(a[0] != b[0], "the changed style's row")
        #expect(a[1] == b[1] && a[2] == b[2], "every other row as it was:\n\(before)\n\(after)")
        #expect(a[1].count == 4, "two characters a cell")
    }
}
