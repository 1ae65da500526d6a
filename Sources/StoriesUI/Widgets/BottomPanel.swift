import StoriesCells
import StoriesCore
/// The panel the gesture log and the metrics overlay draw in: the lower part of the screen
/// above the hint line, a dark background, a rule with the title on its first row.
struct BottomPanel {
    let box: Rect
    let background = Style(foreground: .palette(252), background: .palette(234))

    /// Draws the panel (at least `minimumHeight` rows, else half the screen) and returns it.
    static func draw(title: String, minimumHeight: Int, into canvas: inout Canvas) -> BottomPanel {
        let height = min(max(minimumHeight, canvas.height / 2), canvas.height - 2)
        let panel = BottomPanel(box: Rect(x: 0, y: canvas.height - 1 - height, width: canvas.width, height: height))
        canvas.fill(panel.box, style: panel.background)
        let border = panel.background.with(foreground: Theme.accent)
        canvas.text(String(repeating: "─", count: canvas.width), x: 0, y: panel.box.y, style: border)
        canvas.text(title, x: 2, y: panel.box.y, style: border.adding(.bold), maxWidth: canvas.width - 4)
        return panel
    }
}
