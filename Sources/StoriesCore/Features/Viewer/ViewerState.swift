/// The open story in the viewer and how far its current item has played.
public struct ViewerState: Equatable, Sendable {
    public var storyIndex: Int
    public var itemIndex: Int
    /// Paused by the user (Space). The help overlay stops playback too, without this.
    public var isPaused = false
    public var playback: Playback
    /// The story's items (or, past the last story, the next page) are still on their way;
    /// nothing plays until they arrive.
    public var isWaiting = false
    /// While waiting: the item to show when they arrive (nil: the first unseen).
    public var wantedItem: Int?

    public init(storyIndex: Int, itemIndex: Int, startedAt: Double) {
        self.storyIndex = storyIndex
        self.itemIndex = itemIndex
        self.playback = Playback(startedAt: startedAt)
    }
}
/// Elapsed time of the current item, measured on the monotonic clock, so the progress bar
/// follows time and not frames, and stands still while stopped.
public struct Playback: Equatable, Sendable {
    /// Seconds played before the last stop.
    public var banked: Double = 0
    /// When it started running again; nil while stopped.
    public var runningSince: Double?

    public init(startedAt: Double) { runningSince = startedAt }

    public var isRunning: Bool { runningSince != nil }

    public func elapsed(at uptime: Double) -> Double {
        banked + max(0, uptime - (runningSince ?? uptime))
    }

    public mutating func stop(at uptime: Double) {
        banked = elapsed(at: uptime)
        runningSince = nil
    }

    public mutating func run(at uptime: Double) {
        if runningSince == nil { runningSince = uptime }
    }
}
