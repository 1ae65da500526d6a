/// The Viewer feature's slice: which screen is shown (the home, or the viewer and where it
/// is) and the movement between two screens. Written by `ViewerFeature`, which is handed only this slice,
/// and the parent.
public struct ViewingState: Equatable, Sendable {
    public enum Screen: Equatable, Sendable {
        case home
        case viewer(ViewerState)
    }

    public var screen: Screen = .home
    /// The movement being drawn between two screens, if any (see `Transition`).
    public var transition: Transition?

    public init() {}

    public var viewer: ViewerState? {
        if case .viewer(let viewer) = screen { return viewer }
        return nil
    }
}
