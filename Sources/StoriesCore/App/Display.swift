import StoriesCells

/// What the terminal shows pictures with: how many colours, and the shape of a cell. The
/// runtime reports it as `AppAction.display` — at start, and whenever it changes (a resize
/// can change a cell's pixel size) — so it is in the state, in recordings, and in every
/// rendition key: cells made for another display are never drawn as if they fitted this
/// one.
public struct Display: Equatable, Sendable {
    public var colorDepth: ColorDepth
    /// A cell's width over its height (pixels), bounded by `cellAspectRange` (set only
    /// through `init`, so it is never out of range).
    public private(set) var cellAspect: Double

    /// The usual cell: twice as tall as it is wide.
    public static let standardCellAspect = 0.5
    /// The shapes taken from outside (a terminal's pixel size, a recording): anything else
    /// is brought to the nearest end, and a number that is not one to the usual shape.
    public static let cellAspectRange = 0.2...2.0

    /// The terminal's background: what it answered to OSC 11, or what `COLORFGBG` or the
    /// `theme` setting say (black when nothing says). Text is kept readable against it.
    public var background: RGB
    /// Whether anything said the background (OSC 11, `COLORFGBG`, the `theme` setting).
    /// When nothing did, `background` is only a guess for darkening: text keeps the
    /// terminal's own colours (SGR 39/49, which read on whatever it has), and an accent is
    /// kept only where it reads on black and on white alike (`Canvas.readableAnywhere`).
    public var backgroundKnown = true
    /// The block symbols pictures are drawn with (`--symbols`, `symbols =`; by default the
    /// richest the terminal is known to draw).
    public var symbols: CellSymbols
    /// How the terminal shows real pixels (`cells`: it does not, or was told not to).
    public var graphics: GraphicsProtocol
    /// A cell's size in pixels, when the terminal says: real pixels are sized by it, and
    /// without it a photo stays in cells.
    public var cellPixels: CellPixels?
    /// Whether a video's (or an animation's) frames are shown in real pixels too: false
    /// once the terminal could not take them in time (they are cells then; stills stay pixels).
    public var movingPixels = true
    /// The largest picture the terminal takes, when it says one smaller than its window
    /// (xterm's sixel limit, XTSMGRAPHICS): a larger photo is cells.
    public var largestPicture: PixelArea?
    /// The 16 colours the terminal shows (OSC 4's answers, or its kind's defaults):
    /// pictures in 8 and 16 colours are picked among them.
    public var palette: TerminalPalette = .xterm

    public init(colorDepth: ColorDepth = .palette256, cellAspect: Double = Display.standardCellAspect,
                background: RGB = Display.dark, symbols: CellSymbols = .half,
                graphics: GraphicsProtocol = .cells, cellPixels: CellPixels? = nil) {
        self.colorDepth = colorDepth
        self.cellAspect = Self.bounded(cellAspect: cellAspect)
        self.background = background
        self.symbols = symbols
        self.graphics = graphics
        self.cellPixels = cellPixels
    }

    /// The same display with a cell of another shape (bounded as `init` bounds it).
    public func withCellAspect(_ aspect: Double) -> Display {
        var copy = self
        copy.cellAspect = Self.bounded(cellAspect: aspect)
        return copy
    }

    /// The cell size real pixels are drawn for: the terminal's, when it shows pixels and
    /// says how large a cell is; nil otherwise (pictures are cells).
    public var pixelCell: CellPixels? { graphics.showsPixels ? cellPixels : nil }

    /// What a dark and a light terminal are taken to have when they do not say.
    public static let dark = RGB(0, 0, 0)
    public static let light = RGB(255, 255, 255)

    /// A light background: dark text reads on it.
    public var isLight: Bool { Contrast.luminance(background.tuple) > 0.18 }

    public static func bounded(cellAspect: Double) -> Double {
        guard cellAspect.isFinite else { return standardCellAspect }
        return min(max(cellAspect, cellAspectRange.lowerBound), cellAspectRange.upperBound)
    }
}

extension RGB {
    /// As `Contrast` takes a colour.
    public var tuple: Contrast.RGB8 { (red, green, blue) }
}

/// Which background the app reads text against: the terminal's, as it answers (auto, the
/// default), or one said outright (`theme = dark|light`, `--theme`).
public enum ThemeChoice: String, Sendable, CaseIterable {
    case auto, dark, light

    /// `COLORFGBG` ("15;0": text 15 on background 0), which some terminals set: the
    /// background's palette number says dark (0–6, 8) or light (7, 9–15). nil when unset or
    /// unreadable.
    public static func background(fromCOLORFGBG value: String?) -> RGB? {
        guard let value, let last = value.split(separator: ";").last, let index = Int(last), (0...15).contains(index) else { return nil }
        return index == 7 || index >= 9 ? Display.light : Display.dark
    }

    /// An OSC 11 answer's body ("11;rgb:ffff/ffff/ffff", 1 to 4 hex digits a channel):
    /// the colour. nil for anything else.
    public static func background(fromOSC body: String) -> RGB? {
        guard body.hasPrefix("11;"), let (r, g, b) = TerminalPalette.rgb(fromSpec: body.dropFirst(3)) else { return nil }
        return RGB(r, g, b)
    }
}

/// What says which background the terminal has: the person's `theme`, the terminal's
/// answer to OSC 11 (at start or late), `COLORFGBG`, and whether it said it is XTerm. The
/// runtime reports them (`AppEvent.background`); the reducer decides the background from
/// them (`decided`), whenever one changes.
public struct BackgroundFacts: Equatable, Sendable {
    public var theme: ThemeChoice
    /// The body of the terminal's OSC 11 answer ("11;rgb:ffff/ffff/ffff"), once it answered.
    public var answer: String?
    public var colorfgbg: String?
    /// The terminal said it is XTerm (XTVERSION), whose default background is white.
    public var isXTerm: Bool

    public init(theme: ThemeChoice, answer: String? = nil, colorfgbg: String? = nil, isXTerm: Bool = false) {
        self.theme = theme
        self.answer = answer
        self.colorfgbg = colorfgbg
        self.isXTerm = isXTerm
    }

    /// The background text is kept readable on, and whether anything said it: as the theme
    /// says; with `auto`, as the terminal answered, else as `COLORFGBG` hints, else a guess
    /// for darkening only (XTerm's default white where it says it is XTerm, black
    /// elsewhere) with the terminal's own colours for text.
    public var decided: (background: RGB, known: Bool) {
        switch theme {
        case .dark: return (Display.dark, true)
        case .light: return (Display.light, true)
        case .auto:
            let said = answer.flatMap(ThemeChoice.background(fromOSC:)) ?? ThemeChoice.background(fromCOLORFGBG: colorfgbg)
            return (said ?? (isXTerm ? Display.light : Display.dark), said != nil)
        }
    }
}
