/// A movement between screens, drawn over the state it leads to. The reducer changes the
/// logical state at once (the viewer is already on the next story when the cube starts
/// turning); a transition only says how the change looks, so cutting it short — input
/// during an animation, `--reduce-motion` — never changes where the app ends up.
public struct Transition: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The viewer between full screen (the timeline's "zoom" at 1) and the bubble of
        /// `viewer.storyIndex` (at 0): present grows it, dismiss shrinks it, a pull-down
        /// released early grows it back. The home screen lies behind it, darkened by
        /// "backdrop" (1: fully dark).
        case zoom(viewer: ViewerState)
        /// Two faces of a cube: at "turn" 0 `leaving` fills the screen, at 1 `arriving` does;
        /// `forward` turns it leftwards (the next story comes in from the right).
        case cube(leaving: ViewerState, arriving: ViewerState, forward: Bool)
    }

    public var kind: Kind
    public var timeline: Timeline

    public init(kind: Kind, timeline: Timeline) {
        self.kind = kind
        self.timeline = timeline
    }

    /// Present: the viewer grows out of the tapped bubble, ~250 ms.
    public static let presentDuration = 0.25
    /// Dismiss: back into the bubble, ~250 ms.
    public static let dismissDuration = 0.25
    /// A cube turn between stories from a key (a drag released over the threshold runs
    /// the rest of the way in the matching share of this).
    public static let cubeDuration = 0.3

    /// The viewer zooming from `from` to `to` (0: the bubble, 1: full screen), in the share of
    /// `fullDuration` that distance takes; the backdrop follows with its own step, which
    /// begins a little later when the viewer shrinks so the row shows as it arrives.
    public static func zoom(_ viewer: ViewerState, from: Double, to: Double, fullDuration: Double, at start: Double) -> Transition {
        let duration = fullDuration * abs(to - from)
        let growing = to > from
        return Transition(kind: .zoom(viewer: viewer), timeline: Timeline(start: start, steps: [
            .init("zoom", duration: duration, easing: growing ? .easeOut : .easeIn, from: from, to: to),
            .init("backdrop", begin: growing ? 0 : duration * 0.2, duration: duration * (growing ? 0.8 : 0.8),
                  easing: .linear, from: from, to: to),
        ]))
    }

    /// A cube turn from `from` to `to` (0: `leaving` shown, 1: `arriving` shown).
    public static func cube(leaving: ViewerState, arriving: ViewerState, forward: Bool,
                            from: Double = 0, to: Double = 1, at start: Double) -> Transition {
        Transition(kind: .cube(leaving: leaving, arriving: arriving, forward: forward), timeline: Timeline(start: start, steps: [
            .init("turn", duration: cubeDuration * abs(to - from), easing: .easeInOut, from: from, to: to),
        ]))
    }

    /// The zoom (0…1) and backdrop (0…1) at a moment, for a `.zoom` transition.
    public func zoom(at uptime: Double) -> (scale: Double, backdrop: Double) {
        (timeline.value("zoom", at: uptime) ?? 1, timeline.value("backdrop", at: uptime) ?? 1)
    }

    /// The cube's turn (0…1) at a moment.
    public func turn(at uptime: Double) -> Double {
        timeline.value("turn", at: uptime) ?? 1
    }
}

/// A viewer drag in progress, following the pointer (`AppState.pointer` holds it).
public enum Drag: Equatable, Sendable {
    /// Horizontal: the share of the screen width moved, negative to the left (towards the
    /// next story), positive to the right (the previous one).
    case swipe(offset: Double)
    /// Down: the share of the screen height moved (0…1).
    case dismiss(offset: Double)
}
