/// The Home feature's slice: the screens of sections and the tooltip. Written by
/// `HomeFeature`, which is handed only this slice, and the parent.
public struct HomeState: Equatable, Sendable {
    /// The screens of home sections: the first is the home itself (the sections below the
    /// ring row, as the feed sent them), each later one a screen a cell opened; the last is
    /// the one shown. Never empty.
    public var levels = [HomeLevel(title: "", sections: [])]
    /// Counts changes to the sections shown (the home re-fetched, a screen opened or
    /// closed): view models built for an older count are not drawn.
    public var generation = 0
    /// Where the request for the home sections stands.
    public var request = HomeRequest.notStarted
    /// The id of the tooltip on screen: shown the first time its cell is focused, and never
    /// again (`seen` remembers it).
    public var tooltip: String?

    public init() {}

    /// The screen of sections shown.
    public var level: HomeLevel {
        get { levels[levels.count - 1] }
        set { levels[levels.count - 1] = newValue }
    }
}
