import StoriesCells
import StoriesCore

/// The box over the current screen that has the keyboard: the `?` help, listing the key
/// bindings in force there (read from the live `KeyBindings` table), or the `p` list of
/// every feed problem. What is in it and where it goes come from `ModalLayout`; a box that
/// does not fit scrolls, and its last line says so.
public enum HelpOverlay {
    public static func render(_ state: AppState, into canvas: inout Canvas) {
        guard let content = ModalLayout.content(state) else { return }
        let box = content.box
        let background = Style(foreground: .palette(252), background: .palette(236))
        canvas.fill(box, style: background)
        let border = background.with(foreground: Theme.accent)
        let inner = max(0, box.width - 2)
        canvas.text("╭" + String(repeating: "─", count: inner) + "╮", x: box.x, y: box.y, style: border)
        for y in (box.y + 1)..<max(box.y + 1, box.maxY - 1) {
            canvas.text("│", x: box.x, y: y, style: border)
            canvas.text("│", x: box.maxX - 1, y: y, style: border)
        }
        canvas.text("╰" + String(repeating: "─", count: inner) + "╯", x: box.x, y: box.maxY - 1, style: border)
        canvas.centered(content.title, in: box, y: box.y, style: border.adding(.bold))

        let scroll = max(0, min(content.maxScroll, state.chrome.modalScroll))
        let shown = content.rows.dropFirst(scroll).prefix(content.visibleLines)
        var y = content.firstLine
        // The focus on the box's first line shown (the box has the keyboard).
        canvas.focus(x: box.x + 3, y: y)
        for row in shown {
            if content.keyColumn > 0 {
                canvas.text(row.keys, x: box.x + 3, y: y, style: background.with(foreground: .palette(255)).adding(.bold),
                            maxWidth: content.keyColumn - 1)
            }
            canvas.text(row.text, x: box.x + 3 + content.keyColumn, y: y, style: background,
                        maxWidth: inner - content.keyColumn - 3)
            y += 1
        }
        canvas.centered(footer(state, content: content, scroll: scroll), in: box, y: content.footerLine,
                        style: background.with(foreground: Theme.muted))
    }

    /// "? close", or where the page is and the keys that move it when the box scrolls.
    static func footer(_ state: AppState, content: ModalLayout.Content, scroll: Int) -> String {
        let keys = { (command: Command) in
            state.bindings.bindings(in: .box).first { $0.command == command }?.inputs.first?.description
        }
        let close = (keys(.closeBox) ?? "?") + " close"
        let room = content.box.width - 4
        guard content.maxScroll > 0 else {
            // Every key that closes it, when they fit.
            let all = state.bindings.bindings(in: .box).first { $0.command == .closeBox }.map { $0.keyNames + ": close" }
            return all.flatMap { $0.displayWidth <= room ? $0 : nil } ?? close
        }
        let last = min(content.rows.count, scroll + content.visibleLines)
        let next = scroll < content.maxScroll ? keys(.screenfulNext).map { "\($0) more" } : nil
        let back = scroll > 0 ? keys(.screenfulPrevious).map { "\($0) back" } : nil
        // The longest form that fits the box: where the page is, the keys that move it, how to close.
        let candidates = [["\(scroll + 1)–\(last) of \(content.rows.count)", next, back, close],
                          ["\(scroll + 1)–\(last)/\(content.rows.count)", next, back, close],
                          ["\(scroll + 1)–\(last)/\(content.rows.count)", next ?? back, close],
                          ["\(scroll + 1)–\(last)/\(content.rows.count)", close]]
            .map { $0.compactMap { $0 }.joined(separator: " · ") }
        return candidates.first { $0.displayWidth <= room } ?? candidates[candidates.count - 1]
    }
}
