/// How a terminal shows real pixels (issue 31): kitty's graphics protocol, sixel, iTerm2's
/// inline images, or not at all (`cells`: pictures are drawn in block symbols). Found by
/// `TerminalProbe` and `GraphicsProtocol.detect` in StoriesTerminal, or said outright
/// (`--graphics`, `graphics =` in stories.conf).
public enum GraphicsProtocol: String, Sendable, CaseIterable {
    case kitty, sixel, iterm, cells

    /// A protocol by name, as `--graphics` and stories.conf say it (`auto` is not one: it
    /// means "find out", and is nil here like any other word). Case does not matter.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// Whether pictures are real pixels.
    public var showsPixels: Bool { self != .cells }
}

/// A size in pixels (the largest picture a terminal takes).
public struct PixelArea: Hashable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }
}

/// A terminal cell's size in pixels (TIOCGWINSZ, else `CSI 16 t`), bounded: a number from
/// outside becomes one in `widths` × `heights` or none at all.
public struct CellPixels: Hashable, Sendable {
    public let width: Int
    public let height: Int

    /// What a cell may measure: 2 to 64 pixels wide, 4 to 128 tall (a 4K screen's large
    /// font is about 30×60).
    public static let widths = 2...64
    public static let heights = 4...128

    /// nil when either side is outside the bounds (a terminal that says 0, or a lie).
    public init?(width: Int, height: Int) {
        guard Self.widths.contains(width), Self.heights.contains(height) else { return nil }
        self.width = width
        self.height = height
    }

    private init(known width: Int, _ height: Int) {
        self.width = width
        self.height = height
    }

    /// What a cell is taken to be when the terminal does not say: 10×20 pixels.
    public static let standard = CellPixels(known: 10, 20)
}

/// How a picture meets a frame of another shape.
public enum FitMode: String, Sendable, CaseIterable {
    /// Cover the frame, cropped where the picture has the most detail (a face, not the
    /// wall beside it), near the centre when nothing stands out.
    case fill
    /// Show all of it, over a backdrop made from the picture itself: stretched to cover the
    /// frame, blurred and darkened (as story apps do on a wide screen).
    case fit
}
