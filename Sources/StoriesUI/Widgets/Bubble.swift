import StoriesCore

/// A story bubble in the ring row: a ring around the author's initials, the name below.
/// Unseen stories get the coloured ring, seen ones a grey ring; the selected one is drawn
/// heavy with its name highlighted.
public struct Bubble {
    public static let slotWidth = 10
    public static let height = 4
    static let ringWidth = 8

    public var name: String
    public var initials: String
    public var isSeen: Bool
    public var isSelected: Bool

    public init(name: String, isSeen: Bool, isSelected: Bool) {
        self.name = name
        self.initials = Bubble.initials(of: name)
        self.isSeen = isSeen
        self.isSelected = isSelected
    }

    /// First grapheme of the first two words, upper-cased: "Ayla Demir" → "AD", "山田 花子" → "山花".
    public static func initials(of name: String) -> String {
        let words = name.split(separator: " ").prefix(2)
        let letters = words.compactMap { $0.first.map { String($0).uppercased() } }.joined()
        return letters.truncated(toWidth: 4, ellipsis: false)
    }

    /// Draws into the slot whose left column is `x` and top row is `y`.
    public func draw(into canvas: inout Canvas, x: Int, y: Int) {
        let left = x + 1
        let inner = Bubble.ringWidth - 2
        let (h, v, tl, tr, bl, br) = isSelected
            ? ("━", "┃", "┏", "┓", "┗", "┛")
            : ("─", "│", "╭", "╮", "╰", "╯")
        let bold: Attributes = isSelected ? [.bold] : []
        let top = Style(foreground: isSeen ? Theme.ringSeen : Theme.ringTop, attributes: bold)
        let side = Style(foreground: isSeen ? Theme.ringSeen : Theme.ringSide, attributes: bold)
        let bottom = Style(foreground: isSeen ? Theme.ringSeen : Theme.ringBottom, attributes: bold)

        canvas.text(tl + String(repeating: h, count: inner) + tr, x: left, y: y, style: top)
        canvas.text(v, x: left, y: y + 1, style: side)
        canvas.text(v, x: left + inner + 1, y: y + 1, style: side)
        canvas.text(bl + String(repeating: h, count: inner) + br, x: left, y: y + 2, style: bottom)
        let initialsStyle = Style(foreground: isSeen ? Theme.muted : .palette(255), attributes: [.bold])
        canvas.centered(initials, in: Rect(x: left + 1, y: y + 1, width: inner, height: 1), y: y + 1, style: initialsStyle)

        let nameStyle = isSelected
            ? Style(foreground: .palette(255), attributes: [.bold, .reverse])
            : Style(foreground: isSeen ? Theme.muted : .palette(252))
        canvas.centered(name, in: Rect(x: x, y: y + 3, width: Bubble.slotWidth - 1, height: 1), y: y + 3, style: nameStyle)
    }
}
