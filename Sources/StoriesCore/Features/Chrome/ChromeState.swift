/// The Chrome feature's slice: the notice line, the box over the screen, the overlays and
/// the replay's hint. Written by `ChromeFeature`, which is handed only this slice, and the parent; other
/// features say something on the notice line by a delegate action (`Delegate.notice`).
public struct ChromeState: Equatable, Sendable {
    /// A line saying what the last link (or anything else worth a line) did; the next key
    /// clears it.
    public var notice: String?
    /// A box over the screen that has the keyboard: the help (`?`) or the list of feed
    /// problems (`p`). Playback stops under it, and nothing is marked seen.
    public var modal: Modal?
    /// How far that box is scrolled, in lines; PgDn, PgUp, ↓, ↑ and the wheel move it a
    /// boxful at a time, held to the text so it can never point past the end.
    public var modalScroll = 0
    /// Links show their address beside their title (`u`).
    public var showsLinkAddress = false
    /// The gesture overlay (`g`) is shown.
    public var showsGestures = false
    /// The metrics overlay (`i`) is shown.
    public var showsMetrics = false
    /// A live replay in progress, or just over: the hint line says so, with the time.
    public var replay: ReplayStatus?
    /// Files the app writes as it goes that could not be written, one entry a file, in the
    /// order they failed: said again when the app ends, whose exit status then says so.
    public var failedWrites: [WriteFailure] = []

    public init() {}
}
