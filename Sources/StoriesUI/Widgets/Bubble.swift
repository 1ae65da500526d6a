import StoriesCells
import StoriesCore

/// A story bubble in the ring row: a ring around the author's initials, the name below.
/// Unseen stories get the coloured ring with a dot on its corner, seen ones a grey ring
/// with none (so they differ without colour too); the selected one is drawn heavy with its
/// name highlighted.
public struct Bubble {
    public static let slotWidth = RingLayout.slotWidth
    public static let height = RingLayout.bubbleHeight
    static let ringWidth = RingLayout.ringWidth

    /// How the ring is drawn.
    public enum Ring: Equatable, Sendable {
        case unseen, seen
        /// The story's items are on their way after Enter: a bright head runs round the
        /// ring, one cell per step (`step` counts from when the opening began).
        case loading(step: Int)
        /// They did not come; Enter tries again.
        case failed
    }

    public var name: String
    public var initials: String
    public var ring: Ring
    public var isSelected: Bool
    /// Right to left: the unseen dot on the ring's top-left corner, where the row's reading starts.
    public var rightToLeft = false

    public init(name: String, initials: String, ring: Ring, isSelected: Bool) {
        self.name = name
        self.initials = initials
        self.ring = ring
        self.isSelected = isSelected
    }

    public init(_ model: RingBubbleViewModel, isSelected: Bool, ring: Ring? = nil) {
        self.init(name: model.name, initials: model.initials, ring: ring ?? (model.isSeen ? .seen : .unseen), isSelected: isSelected)
    }

    /// Cells round the ring, clockwise from the top-left corner: 8 along the top, the right
    /// side, 8 back along the bottom, the left side (18 in all).
    static func ringCells(left: Int, top: Int) -> [(x: Int, y: Int, glyph: String)] {
        let width = ringWidth
        var cells: [(Int, Int, String)] = []
        for x in 0..<width { cells.append((left + x, top, x == 0 ? "┏" : x == width - 1 ? "┓" : "━")) }
        cells.append((left + width - 1, top + 1, "┃"))
        for x in (0..<width).reversed() { cells.append((left + x, top + 2, x == 0 ? "┗" : x == width - 1 ? "┛" : "━")) }
        cells.append((left, top + 1, "┃"))
        return cells
    }

    /// Steps of the loading ring per second.
    public static let spinnerStepsPerSecond = 12.0

    /// The head of the loading ring and a fading tail of two cells.
    private func drawSpinner(step: Int, into canvas: inout Canvas, left: Int, top: Int) {
        let cells = Bubble.ringCells(left: left, top: top)
        let styles = [Style(foreground: Theme.ringTop, attributes: [.bold]),
                      Style(foreground: Theme.ringSide, attributes: [.bold]),
                      Style(foreground: Theme.ringBottom)]
        for (offset, style) in styles.enumerated() {
            let index = ((step - offset) % cells.count + cells.count) % cells.count
            let cell = cells[index]
            canvas.text(cell.glyph, x: cell.x, y: cell.y, style: style)
        }
    }

    /// Draws into the slot whose left column is `x` and top row is `y`.
    public func draw(into canvas: inout Canvas, x: Int, y: Int) {
        let left = x + 1
        let inner = Bubble.ringWidth - 2
        var (h, v, tl, tr, bl, br) = isSelected
            ? ("━", "┃", "┏", "┓", "┗", "┛")
            : ("─", "│", "╭", "╮", "╰", "╯")
        if case .loading = ring { (h, v) = ("┄", "┆") }
        let bold: Attributes = isSelected ? [.bold] : []
        let colours: (Color, Color, Color) = switch ring {
        case .unseen: (Theme.ringTop, Theme.ringSide, Theme.ringBottom)
        case .seen: (Theme.ringSeen, Theme.ringSeen, Theme.ringSeen)
        case .loading: (Theme.ringSeen, Theme.ringSeen, Theme.ringSeen)
        case .failed: (Theme.warning, Theme.warning, Theme.warning)
        }
        let top = Style(foreground: colours.0, attributes: bold)
        let side = Style(foreground: colours.1, attributes: bold)
        let bottom = Style(foreground: colours.2, attributes: bold)

        // Unseen stories carry a dot on the ring's corner as well as its colours, so the two
        // differ on a terminal without colour (NO_COLOR, 8 colours read as grey).
        let dotted = ring == .unseen
        canvas.text((dotted && rightToLeft ? "●" : tl) + String(repeating: h, count: inner) + (dotted && !rightToLeft ? "●" : tr),
                    x: left, y: y, style: top)
        canvas.text(v, x: left, y: y + 1, style: side)
        canvas.text(v, x: left + inner + 1, y: y + 1, style: side)
        canvas.text(bl + String(repeating: h, count: inner) + br, x: left, y: y + 2, style: bottom)
        if case .loading(let step) = ring { drawSpinner(step: step, into: &canvas, left: left, top: y) }
        let label = ring == .failed ? "⚠" : initials
        let initialsStyle = Style(foreground: ring == .seen ? Theme.muted : .palette(255), attributes: [.bold])
        canvas.centered(label, in: Rect(x: left + 1, y: y + 1, width: inner, height: 1), y: y + 1, style: initialsStyle)

        let nameStyle = isSelected
            ? Style(foreground: .palette(255), attributes: [.bold, .reverse])
            : Style(foreground: ring == .seen ? Theme.muted : .palette(252))
        let used = canvas.centered(name, in: Rect(x: x, y: y + 3, width: Bubble.slotWidth - 1, height: 1), y: y + 3, style: nameStyle)
        if isSelected { canvas.focus(x: x + max(0, (Bubble.slotWidth - 1 - used) / 2), y: y + 3) }
    }
}
