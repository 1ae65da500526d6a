import StoriesCells

/// What the terminal shows pictures with: how many colours, and the shape of a cell. The
/// runtime reports it as `AppAction.display` — at start, and whenever it changes (a resize
/// can change a cell's pixel size) — so it is in the state, in recordings, and in every
/// rendition key: cells made for another display are never drawn as if they fitted this
/// one. (Next: the graphics protocol the terminal speaks, and the audio output.)
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

    public init(colorDepth: ColorDepth = .palette256, cellAspect: Double = Display.standardCellAspect) {
        self.colorDepth = colorDepth
        self.cellAspect = Self.bounded(cellAspect: cellAspect)
    }

    public static func bounded(cellAspect: Double) -> Double {
        guard cellAspect.isFinite else { return standardCellAspect }
        return min(max(cellAspect, cellAspectRange.lowerBound), cellAspectRange.upperBound)
    }
}
