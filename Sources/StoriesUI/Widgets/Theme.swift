import StoriesCells

/// The app's colours, in palette indices every 256-colour terminal has; the backend maps
/// them down on smaller terminals.
public enum Theme {
    public static let ringTop = Color.palette(214)      // orange
    public static let ringSide = Color.palette(205)     // pink
    public static let ringBottom = Color.palette(135)   // purple
    public static let ringSeen = Color.palette(244)
    public static let accent = Color.palette(213)
    public static let muted = Color.palette(245)
    public static let warning = Color.palette(214)
    public static let progressDone = Color.palette(255)
    public static let progressTodo = Color.palette(240)
    public static let placeholderBackground = Color.palette(235)
    public static let placeholderFrame = Color.palette(242)

    public static let title = Style(foreground: accent, attributes: [.bold])
    public static let mutedText = Style(foreground: muted)
    public static let hint = Style(foreground: muted)
    public static let hintKey = Style(foreground: .palette(252), attributes: [.bold])
}
