/// The Pointer feature's slice: the gesture in progress and the log of routing decisions.
/// Written by `PointerFeature`, which is handed only this slice, and the parent.
public struct PointerState: Equatable, Sendable {
    /// The mouse pointer's gesture so far: the only record of a press, a hold or a drag.
    public var pointer = Pointer.idle
    /// The latest routing decisions, oldest first (at most `logLimit`).
    public var log: [GestureDecision] = []
    public static let logLimit = 40
    /// Decisions logged since the start (the log keeps the latest; `--gesture-log` writes
    /// every one, counting with this).
    public var decisionCount = 0

    public init() {}
}
