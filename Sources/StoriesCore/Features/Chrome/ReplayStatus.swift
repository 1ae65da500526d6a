/// Where a live replay (`--replay` in the terminal) is.
public struct ReplayStatus: Equatable, Sendable {
    /// The recording's file name.
    public var name: String
    /// Uptime when its inputs began (the engine's start): the replay's time counts from here.
    public var since: Double
    /// When the recording ends (its last entry), or where `--until` stops it.
    public var end: Double
    public var stoppedEarly: Bool
    public var isOver = false

    public init(name: String, since: Double, end: Double, stoppedEarly: Bool) {
        self.name = name
        self.since = since
        self.end = end
        self.stoppedEarly = stoppedEarly
    }

    /// "▶ replaying r.jsonl 3.2/9.5 s", then "■ replay over at 9.5 s" (or "stopped at").
    public func label(at uptime: Double) -> String {
        let name = SafeText.line(self.name, maxColumns: 24)
        if isOver { return "■ replay \(name) \(stoppedEarly ? "stopped" : "over") at \(Self.seconds(end)) s" }
        return "▶ replaying \(name) \(Self.seconds(min(end, max(0, uptime - since))))/\(Self.seconds(end)) s"
    }

    public static func seconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)"
    }
}
/// A box over the screen that has the keyboard.
public enum Modal: String, Equatable, Sendable {
    case help, problems
}
