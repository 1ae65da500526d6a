import StoriesCells
import StoriesCore

/// The last step of every frame: each text cell is made to read against what it is drawn
/// on — at least 4.5:1, rings, bars and frames 3:1 — on this terminal's background (light or
/// dark) at its colour depth. Pictures (block cells) are left as they are; a colour that
/// already reads is kept, one that does not becomes the nearest that does.
extension Canvas {
    public mutating func keepReadable(on display: Display) {
        guard display.colorDepth != .none else { return }
        let background = display.background.tuple
        // The terminal's own text colour, as a light or dark terminal usually has it.
        let foreground: Contrast.RGB8 = display.isLight ? (0, 0, 0) : (229, 229, 229)
        var memo: [Style: Style] = [:], markMemo: [Style: Style] = [:]
        for index in cells.indices {
            let cell = cells[index]
            let isMark: Bool
            if let grapheme = cell.grapheme {
                guard grapheme != " ", let scalar = grapheme.unicodeScalars.first else { continue }
                if CellSymbols.isBlockSymbol(scalar) { continue } // a picture's cell
                isMark = (0x2500...0x257F).contains(scalar.value)
            } else {
                isMark = false // a wide grapheme's right half: as its text
            }
            let style = cell.style
            if let known = isMark ? markMemo[style] : memo[style] {
                if known != style { setStyle(at: index, known) }
                continue
            }
            let fixed = Self.readable(style, minimum: isMark ? Contrast.mark : Contrast.text, depth: display.colorDepth,
                                      background: background, foreground: foreground)
            if isMark { markMemo[style] = fixed } else { memo[style] = fixed }
            if fixed != style { setStyle(at: index, fixed) }
        }
    }

    /// A style whose text reads on its background (`reverse` swaps what is shown as which).
    static func readable(_ style: Style, minimum: Double, depth: ColorDepth, background: Contrast.RGB8,
                         foreground: Contrast.RGB8) -> Style {
        let reversed = style.attributes.contains(.reverse)
        let text = reversed ? style.background : style.foreground
        let under = reversed ? style.foreground : style.background
        let textDefault = reversed ? background : foreground
        let underShown = Contrast.shown(under, depth: depth, fallback: reversed ? foreground : background)
        let bold = style.attributes.contains(.bold) && !reversed
        let fixed = Contrast.readable(text, on: underShown, minimum: minimum, depth: depth, fallback: textDefault, bold: bold)
        if bold, Contrast.ratio(of: fixed, bold: true, on: underShown, depth: depth, fallback: textDefault) < minimum {
            // No colour of this depth reads both as it is and shown bright (bold black on
            // white is xterm's grey, 3.9:1): the text loses its bold here, not its colour.
            var plain = style
            plain.attributes.remove(.bold)
            return readable(plain, minimum: minimum, depth: depth, background: background, foreground: foreground)
        }
        guard fixed != text else { return style }
        var copy = style
        if reversed { copy.background = fixed } else { copy.foreground = fixed }
        if Contrast.ratio(of: fixed, bold: bold, on: underShown, depth: depth, fallback: textDefault) < minimum, under != .default {
            // No colour of this depth reads on that one (8 colours on a magenta card): the
            // text goes on the terminal's own background instead.
            let plain = Style(foreground: text, background: .default, attributes: style.attributes.subtracting(.reverse))
            return readable(plain, minimum: minimum, depth: depth, background: background, foreground: foreground)
        }
        return copy
    }
}
