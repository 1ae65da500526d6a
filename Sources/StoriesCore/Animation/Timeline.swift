/// How a step's progress (0…1 of its time) becomes progress along its values.
public enum Easing: String, Equatable, Sendable, CaseIterable {
    case linear, easeIn, easeOut, easeInOut

    /// The eased value of `t` in 0…1 (cubic curves; clamped outside).
    public func callAsFunction(_ t: Double) -> Double {
        let t = min(1, max(0, t))
        switch self {
        case .linear: return t
        case .easeIn: return t * t * t
        case .easeOut:
            let u = 1 - t
            return 1 - u * u * u
        case .easeInOut:
            if t < 0.5 { return 4 * t * t * t }
            let u = -2 * t + 2
            return 1 - u * u * u / 2
        }
    }
}

/// An animation as data: named steps, each with its own begin time (relative to the
/// timeline's start), duration, easing and values. Steps are chained by when they begin,
/// not by completion callbacks, so the value of any step at any moment is a pure function
/// of the clock: a frame drawn late shows where the animation is, never where it was.
public struct Timeline: Equatable, Sendable {
    public struct Step: Equatable, Sendable {
        public var name: String
        public var begin: Double
        public var duration: Double
        public var easing: Easing
        public var from: Double
        public var to: Double

        public init(_ name: String, begin: Double = 0, duration: Double, easing: Easing = .easeOut,
                    from: Double = 0, to: Double = 1) {
            self.name = name
            self.begin = begin
            self.duration = max(0, duration)
            self.easing = easing
            self.from = from
            self.to = to
        }

        public var end: Double { begin + duration }

        public func value(atOffset offset: Double) -> Double {
            let t = duration > 0 ? (offset - begin) / duration : (offset >= begin ? 1 : 0)
            return from + (to - from) * easing(t)
        }
    }

    /// When the timeline began (uptime seconds).
    public var start: Double
    public var steps: [Step]

    public init(start: Double, steps: [Step]) {
        self.start = start
        self.steps = steps
    }

    /// When the last step ends (uptime seconds).
    public var end: Double { start + (steps.map(\.end).max() ?? 0) }

    public func isFinished(at uptime: Double) -> Bool { uptime >= end }

    /// A step's value at a moment: its `from` before it begins, its `to` after it ends.
    /// Nil for a name the timeline does not have.
    public func value(_ name: String, at uptime: Double) -> Double? {
        steps.first { $0.name == name }?.value(atOffset: uptime - start)
    }
}
