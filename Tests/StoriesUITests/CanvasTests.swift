import StoriesCells
import StoriesCore
import StoriesMedia
import Testing
@testable import StoriesUI

@Suite struct CanvasTests {
    @Test func wideCharactersTakeTwoCellsAndPrintOnce() {
        var canvas = Canvas(width: 8, height: 1)
        let used = canvas.text("山田a", x: 0, y: 0)
        #expect(used == 5)
        #expect(canvas[0, 0].grapheme == "山")
        #expect(canvas[1, 0].isContinuation)
        #expect(Snapshot.lines(of: canvas) == ["山田a"])
    }

    @Test func aWideCharacterIsNeverSplitAtTheRightEdge() {
        var canvas = Canvas(width: 5, height: 1)
        canvas.put("山", width: 2, x: 4, y: 0, style: .plain)
        #expect(canvas[4, 0].grapheme == " ")
        canvas.text("ab山田", x: 0, y: 0, ellipsis: false)
        #expect(Snapshot.lines(of: canvas) == ["ab山"])
        #expect(!canvas[4, 0].isContinuation)
    }

    @Test func textIsCutToTheWidthWithAnEllipsis() {
        var canvas = Canvas(width: 20, height: 1)
        canvas.text("Maximiliana Wilhelmina", x: 2, y: 0, maxWidth: 10)
        #expect(Snapshot.lines(of: canvas) == ["  Maximilia…"])
        var narrow = Canvas(width: 6, height: 1)
        narrow.text("山田花子", x: 0, y: 0)
        #expect(Snapshot.lines(of: narrow) == ["山田…"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.text("山田", x: 0, y: 0)
        canvas.text("x", x: 1, y: 0)   // right half of 山
        #expect(Snapshot.lines(of: canvas) == [" x田"])
        canvas.text("y", x: 2, y: 0)   // left half of 田
        #expect(Snapshot.lines(of: canvas) == [" xy"])
        #expect(!canvas[3, 0].isContinuation)
        canvas.text("花", x: 3, y: 0)
        canvas.text("子", x: 2, y: 0)  // a wide character over the left half of another
        #expect(Snapshot.lines(of: canvas) == [" x子"])
        #expect(canvas.cells.indices.allSatisfy { i in
            !canvas.cells[i].isContinuation || (i > 0 && !canvas.cells[i - 1].isContinuation && canvas.cells[i - 1].grapheme != " ")
        })
    }

    @Test func drawingOutsideTheCanvasIsClipped() {
        var canvas = Canvas(width: 4, height: 2)
        canvas.text("hello", x: -2, y: 0, ellipsis: false)
        canvas.text("x", x: 0, y: 5)
        canvas.fill(Rect(x: -3, y: 1, width: 100, height: 100), style: Style(background: .palette(1)), with: "#")
        #expect(Snapshot.lines(of: canvas) == ["llo", "####"])
    }

    @Test func styleLayerNamesEachStyleOnce() {
        var canvas = Canvas(width: 6, height: 2)
        canvas.text("ab", x: 0, y: 0, style: Style(foreground: .palette(213), attributes: [.bold]))
        canvas.text("c", x: 3, y: 1, style: Style(foreground: .rgb(1, 2, 3), background: .palette(240)))
        #expect(Snapshot.text(of: canvas, styles: true) == """
            6x2
            ab
               c
            -- styles
            .. plain
            ac fg=#010203 bg=240
            im fg=213 bold
            -- style rows
            imim
            ......ac

            """)
    }
}
