import StoriesCore

/// The `?` overlay: a box over the current screen listing the key bindings in force there,
/// read from the live `KeyBindings` table.
public enum HelpOverlay {
    public static func render(context: InputContext, bindings: KeyBindings, into canvas: inout Canvas) {
        var rows = bindings.bindings(in: context).filter { $0.command != .toggleHelp && !$0.inputs.isEmpty }
            .map { ($0.keyNames, $0.summary) }
        // The mouse is not rebindable; its gestures are listed after the keys.
        rows += context == .viewer ? mouseInViewer : [("click", "open a bubble, run a cell · wheel: choose")]
        let closing = bindings.bindings(in: .help).first?.keyNames ?? "?"
        let keyColumn = min(18, (rows.map { $0.0.displayWidth }.max() ?? 4) + 2)
        let summaryWidth = rows.map { $0.1.displayWidth }.max() ?? 10
        let boxWidth = min(canvas.width - 2, max(40, keyColumn + summaryWidth + 6))
        let boxHeight = min(canvas.height - 2, rows.count + 5)
        let box = Rect(x: (canvas.width - boxWidth) / 2, y: (canvas.height - boxHeight) / 2,
                       width: boxWidth, height: boxHeight)
        let background = Style(foreground: .palette(252), background: .palette(236))
        canvas.fill(box, style: background)
        let border = background.with(foreground: Theme.accent)
        let inner = box.width - 2
        canvas.text("╭" + String(repeating: "─", count: inner) + "╮", x: box.x, y: box.y, style: border)
        for y in (box.y + 1)..<(box.maxY - 1) {
            canvas.text("│", x: box.x, y: y, style: border)
            canvas.text("│", x: box.maxX - 1, y: y, style: border)
        }
        canvas.text("╰" + String(repeating: "─", count: inner) + "╯", x: box.x, y: box.maxY - 1, style: border)
        let title = context == .viewer ? " Keys · viewer " : " Keys · stories "
        canvas.centered(title, in: box, y: box.y, style: border.adding(.bold))

        var y = box.y + 2
        for (keys, summary) in rows where y < box.maxY - 2 {
            canvas.text(keys, x: box.x + 3, y: y, style: background.with(foreground: .palette(255)).adding(.bold),
                        maxWidth: keyColumn - 1)
            canvas.text(summary, x: box.x + 3 + keyColumn, y: y, style: background, maxWidth: inner - keyColumn - 3)
            y += 1
        }
        canvas.centered("\(closing): close", in: box, y: box.maxY - 2, style: background.with(foreground: Theme.muted))
    }

    static let mouseInViewer = [
        ("click", "left third: back · right: next"),
        ("hold", "press and hold: pause"),
        ("drag", "sideways: story · down: dismiss"),
    ]
}
