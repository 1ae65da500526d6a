/// What a video player has told the app about one video (by location), as `.video`
/// actions bring it: enough for the reducer to pace the item — its length, whether it
/// waits for frames, how often a frame is due.
public struct VideoStatus: Equatable, Sendable {
    /// Seconds, from the container; nil when it does not say (the feed's `duration` then).
    public var duration: Double?
    /// Where the stream really ended, once it has: the item ends there.
    public var endedAt: Double?
    /// Seconds between frames (the frame timer's pace while it plays).
    public var frameInterval: Double
    /// The file has sound; it plays muted for now.
    public var hasAudio: Bool
    /// An animation (a GIF): its item lasts its own duration (or the animation once through,
    /// when that is longer), the animation played within it as many times as the GIF says,
    /// its last frame held after the last; its stream's end never ends the item early.
    public var loops = false
    /// The player has no frame for the time shown: the clock waits (buffering mark).
    public var isStalled = false
    /// Why it cannot play, said on the item; the story goes on.
    public var failure: String?
    /// The size (cells) the frame on screen was last rendered at again (a resize or `f`
    /// while the video holds still): its news is what redraws the screen.
    public var redrawnAt: [Int]?

    public init(duration: Double? = nil, frameInterval: Double = 1.0 / 30, hasAudio: Bool = false) {
        self.duration = duration
        self.frameInterval = frameInterval
        self.hasAudio = hasAudio
    }
}

/// What a video player reports (the engine turns each into a `.video` action).
public enum VideoEvent: Equatable, Sendable {
    /// Opened: the headers' facts, bounded.
    /// `loops`: an animation (a GIF), played as many times as it says within its item.
    case opened(duration: Double?, frameInterval: Double, hasAudio: Bool, loops: Bool = false)
    /// No frame for the time shown yet (bytes or decoding behind): the clock must wait.
    case stalled
    /// Frames are there again.
    case resumed
    /// The stream ended at this time (seconds): the item is that long.
    case ended(at: Double)
    /// It cannot play, and why.
    case failed(String)
    /// No player could start: the video's bytes are not in the cache (let go since its
    /// poster was made, or a location with none).
    case noBytes
    /// The frame on screen was rendered again for a new size (width, height in cells):
    /// a paused video shows it at once, not its poster until the next key.
    case redrawn(width: Int, height: Int)
}
