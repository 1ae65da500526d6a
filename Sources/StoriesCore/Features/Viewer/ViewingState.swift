/// The Viewer feature's slice: which screen is shown (the home, or the viewer and where it
/// is) and the movement between two screens. Written only by the Viewer feature and the parent
/// (`FeatureOwnershipTests`).
public struct ViewingState: Equatable, Sendable {
    public var screen: AppState.Screen = .home
    /// The movement being drawn between two screens, if any (see `Transition`).
    public var transition: Transition?

    public init() {}

    public var viewer: ViewerState? {
        if case .viewer(let viewer) = screen { return viewer }
        return nil
    }
}
