import StoriesCells
import StoriesMedia
import CNcursesw
import Foundation
import StoriesCore
import StoriesUI

/// OSC 8 links over the cells ncurses drew.
extension CursesScreen {
    /// Writes each link's cells again, as they already are, inside an OSC 8 hyperlink, so a
    /// terminal that knows OSC 8 makes them clickable (one that does not ignores the
    /// sequence). The cursor and attributes are saved and restored around it (DECSC,
    /// DECRC), so ncurses' idea of the terminal stays true.
    func writeHyperlinks(_ canvas: Canvas) {
        var out = "\u{1B}7"
        for link in canvas.links where link.y >= 0 && link.y < canvas.height && link.x >= 0 {
            // The URL passed every check a link gets; still, nothing below space or DEL goes out.
            let url = String(String.UnicodeScalarView(link.url.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
            out += "\u{1B}[\(link.y + 1);\(link.x + 1)H\u{1B}]8;;\(url)\u{1B}\\"
            var x = link.x
            while x < min(canvas.width, link.x + link.width) {
                let cell = canvas[x, link.y]
                out += sgr(cell.style) + (cell.grapheme.map(String.init) ?? "")
                x += max(1, cell.grapheme.map { DisplayWidth.of($0) } ?? 1)
            }
            out += "\u{1B}]8;;\u{1B}\\"
        }
        writeRaw(out + "\u{1B}[0m\u{1B}8")
    }

    /// The SGR sequence for a cell's style, as ncurses would set it (the one encoder, `SGR`).
    func sgr(_ style: Style) -> String {
        String(decoding: SGR.sequence(for: style, depth: colorDepth) { self.terminalColor($0) }, as: UTF8.self)
    }
}
