import Foundation

/// The bounds every number from outside is held to where it enters (terminal input,
/// recordings, flags), so no arithmetic on it can trap and no size can ask for more memory
/// than a real screen: docs/gestures.md lists them.
public enum InputLimits {
    /// A screen side in cells: the same limit for `--size`, a recording's header and its
    /// `resize` lines, and a terminal's reported size.
    public static let maxScreenSide = 1000
    /// The largest cell coordinate a mouse event keeps (larger ones are held to it).
    public static let maxCoordinate = maxScreenSide - 1
    /// The latest time in a recording, in seconds since it began: a year.
    public static let maxRecordingTime: Double = 366 * 86_400
    /// Wall-clock seconds since 1970 a recording may start at: up to the year 5000.
    public static let maxWallClock: Double = 95_617_584_000

    /// A screen side held to 1…`maxScreenSide`.
    public static func side(_ value: Int) -> Int { min(max(1, value), maxScreenSide) }
    /// A cell coordinate held to 0…`maxCoordinate`.
    public static func coordinate(_ value: Int) -> Int { min(max(0, value), maxCoordinate) }
}
