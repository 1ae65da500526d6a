/// The Row feature's slice: the highlighted bubble, the story being opened, the `/` field
/// and a search along the feed. Written by `RowFeature`, which is handed
/// only this slice, and the parent.
public struct RowState: Equatable, Sendable {
    /// The highlighted bubble of the ring row.
    public var selection = 0
    /// A story whose bubble was opened and whose items are still on their way: the viewer
    /// opens when they arrive; meanwhile the row can be browsed, and Esc cancels.
    public var opening: StoryID?
    /// When the opening began (uptime): the loading ring turns with the time since.
    public var openingSince: Double = 0
    /// The `/` field on the home screen while a name is typed (nil: not searching).
    public var search: SearchField?
    /// Something further along the feed than the pages loaded so far: a story a home cell
    /// opened, the true last story (End), the next story with unseen items (`n`) or a
    /// person by name (`/`). Pages are asked for, one after another, until it comes, the
    /// feed ends, or the search's limit of stories has been looked through. Esc stops it.
    public var seeking: SeekTarget?
    /// Pages asked for by the search so far, and how many stories were loaded when it
    /// began (its limits count from there, so pressing the key again goes on).
    public var seekPages = 0
    public var seekStartCount = 0
    /// The most stories paged in while looking for one, and the most pages asked for (a
    /// feed whose pages bring nothing new cannot keep a search going). End goes further:
    /// it is asked for the end, wherever that is.
    public static let seekLimit = 1000
    public static let seekPageLimit = 100
    public static let endSeekLimit = 10_000
    public static let endSeekPageLimit = 1_000
    /// Tries of one page before a search gives up (the row's own paging goes on retrying).
    public static let seekAttempts = 4

    public init() {}
}
