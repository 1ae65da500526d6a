/// The ViewModels feature's slice: what the ring row and the viewer draw, built off the
/// main queue. Written by `ViewModelsFeature`, which is handed only this slice,
/// and the parent.
public struct ViewModelState: Equatable, Sendable {
    /// What the ring row draws, built from the feed's store and the seen state.
    public var ring = ViewModelList<RingBubbleViewModel>()
    /// What the viewer draws for each loaded story, one model an item, built for the
    /// screen's width.
    public var items: [StoryID: [ViewerItemViewModel]] = [:]
    /// What the section area draws, built for the screen of sections shown when it was
    /// asked for (`HomeState.generation`).
    public var home: HomeViewModels?
    /// Stories whose item models a build on its way will bring (asked for, not installed).
    public var building: Set<StoryID> = []
    /// Stories whose item models are kept at most: those farthest from where the person is
    /// go first, and are built again (about a millisecond) when wanted, so memory does not
    /// grow with the distance travelled.
    public static let storiesKept = 48

    public init() {}
}
