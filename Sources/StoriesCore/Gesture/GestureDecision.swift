/// One routing decision, as the gesture overlay (`g`) shows it and tests read it: the raw
/// input, the gesture it became, the handler that took it, what that did, and which
/// recognizers declined it and why.
public struct GestureDecision: Equatable, Sendable {
    /// When the input was read (uptime seconds).
    public var time: Double
    /// The raw input: "key →", "mouse press left at 60,12", "timer (hold check)".
    public var input: String
    /// What it became: "tap right", "swipe to the next story", "hold", "none".
    public var gesture: String
    /// Who took it: "viewer.tapZones", "viewer.cube", "home.ring", "keys.viewer", "-".
    public var handler: String
    /// The actions it led to, as words ("nextItem", "drag swipe -0.31"); empty when none.
    public var result: [String]
    /// Why, in words, when it helps: "column 70 is in the right two thirds (26–79)".
    public var notes: [String] = []
    /// Recognizers that looked at the input and passed, each with its reason.
    public var declined: [Declined]

    public struct Declined: Equatable, Sendable {
        public var recognizer: String
        public var reason: String

        public init(_ recognizer: String, _ reason: String) {
            self.recognizer = recognizer
            self.reason = reason
        }
    }

    public init(time: Double, input: String, gesture: String, handler: String, result: [String] = [],
                declined: [Declined] = []) {
        self.time = time
        self.input = input
        self.gesture = gesture
        self.handler = handler
        self.result = result
        self.declined = declined
    }

    /// The decision in one line: "mouse release left at 70,12 → tap right → viewer.tapZones → nextItem".
    public var summary: String {
        var line = "\(input) → \(gesture) → \(handler)"
        if !result.isEmpty { line += " → " + result.joined(separator: ", ") }
        return line
    }

    /// The notes and declines in one line: "column 70 is in the right two thirds ·
    /// declined: hold (released after 90 ms); swipe (moved 0 cells)".
    public var detail: String? {
        var parts = notes
        if !declined.isEmpty {
            parts.append("declined: " + declined.map { "\($0.recognizer) (\($0.reason))" }.joined(separator: "; "))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
