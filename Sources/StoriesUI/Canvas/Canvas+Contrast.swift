import StoriesCells
import StoriesCore

/// The last step of every frame: each text cell is made to read against what it is drawn
/// on — at least 4.5:1, rings, bars and frames 3:1 — on this terminal's background (light or
/// dark) at its colour depth. Pictures (block cells) are left as they are; a colour that
/// already reads is kept, one that does not becomes the nearest that does.
extension Canvas {
    public mutating func keepReadable(on display: Display) {
        let depth = display.colorDepth
        guard depth != .none else { return }
        // Nothing said the background: styles that read on any (`readableAnywhere`).
        guard display.backgroundKnown else { return fixEveryText { Self.readableAnywhere($0, minimum: $1, depth: depth) } }
        let background = display.background.tuple
        // The terminal's own text colour, as a light or dark terminal usually has it.
        let foreground: Contrast.RGB8 = display.isLight ? (0, 0, 0) : (229, 229, 229)
        fixEveryText { Self.readable($0, minimum: $1, depth: depth, background: background, foreground: foreground) }
    }

    /// Every text cell's style through `fix`, with the contrast it needs (marks 3:1, text
    /// 4.5:1), once a style and kind; blanks and pictures' block cells as they are.
    private mutating func fixEveryText(_ fix: (Style, Double) -> Style) {
        var memo: [Style: Style] = [:], markMemo: [Style: Style] = [:]
        for index in cells.indices {
            let cell = cells[index]
            let isMark: Bool
            if !cell.isContinuation {
                guard cell.glyph != .space, let scalar = cell.glyph.scalar ?? cell.grapheme?.unicodeScalars.first else { continue }
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
            let fixed = fix(style, isMark ? Contrast.mark : Contrast.text)
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

    static let black: Contrast.RGB8 = (0, 0, 0), white: Contrast.RGB8 = (255, 255, 255)

    /// A style that reads whatever the terminal's background is — when nothing said it (no
    /// OSC 11 answer, no `COLORFGBG`, the theme left to the terminal). Text on the terminal's
    /// own background keeps its colour only where it reads on black and on white alike, else
    /// takes the terminal's own (SGR 39); the terminal's own colour beside one of the app's
    /// (a badge, a card, a reversed cell) becomes black or white, whichever reads there.
    static func readableAnywhere(_ style: Style, minimum: Double, depth: ColorDepth) -> Style {
        switch (style.foreground, style.background) {
        case (.default, .default):
            return style
        case (let text, .default) where !style.attributes.contains(.reverse):
            // Text of the app's on the terminal's background.
            let bold = style.attributes.contains(.bold)
            let onBlack = Contrast.ratio(of: text, bold: bold, on: black, depth: depth, fallback: white)
            let onWhite = Contrast.ratio(of: text, bold: bold, on: white, depth: depth, fallback: black)
            guard min(onBlack, onWhite) < minimum else { return style }
            var copy = style
            copy.foreground = .default
            return copy
        default:
            // One of the app's colours under or over the terminal's own: that one becomes
            // black or white, whichever reads on the app's colour; then as on a known one.
            var copy = style
            let concrete = style.foreground == .default ? style.background : style.foreground
            let shown = Contrast.shown(concrete, depth: depth, fallback: black)
            let partner: Color = Contrast.ratio(shown, black) >= Contrast.ratio(shown, white) ? .rgb(0, 0, 0) : .rgb(255, 255, 255)
            if copy.foreground == .default { copy.foreground = partner }
            if copy.background == .default { copy.background = partner }
            let fixed = readable(copy, minimum: minimum, depth: depth, background: black, foreground: white)
            // Nothing of this depth read on the app's colour (8 colours on a cyan card): the
            // text went on the terminal's own background, and is judged as it is there.
            return fixed.background == .default || fixed.foreground == .default
                ? readableAnywhere(fixed, minimum: minimum, depth: depth) : fixed
        }
    }
}
