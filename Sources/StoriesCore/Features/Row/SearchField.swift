/// The `/` field: the text typed so far and what it found among the stories loaded.
public struct SearchField: Equatable, Sendable {
    public var text = ""
    /// The selection when the search began: Esc goes back to it.
    public var selectionBefore: Int
    /// Stories loaded whose name or handle holds the text.
    public var matches = 0

    public init(selectionBefore: Int) { self.selectionBefore = selectionBefore }
}
/// What a search along the feed is looking for (`RowState.seeking`).
public enum SeekTarget: Equatable, Sendable {
    /// A story a home cell opened: it opens when found.
    case story(StoryID)
    /// The true last story of the feed (End): selected as each page arrives.
    case last
    /// The first story after this index with an item not seen yet (`n`).
    case unseen(after: Int)
    /// The first story from this index whose name or handle holds the text (`/`).
    case name(String, from: Int)

    /// The most stories and pages this search looks through before it stops and says so.
    var limits: (stories: Int, pages: Int) {
        self == .last ? (RowState.endSeekLimit, RowState.endSeekPageLimit) : (RowState.seekLimit, RowState.seekPageLimit)
    }
}
