import Foundation

/// What a flow expects at one moment (docs/gestures.md, "Flows", lists them with their
/// members).
public enum FlowExpectation: Equatable, Sendable {
    /// A text on the screen (or not, `present: false`), within one row.
    case text(String, place: TextPlace, present: Bool)
    /// The gesture an input became: among the routing decisions since the last input step,
    /// one with this gesture (and handler, declined recognizers, results) when given.
    case gesture(FlowGesture)
    /// What the screen shows: the home, or a story (and an item of it).
    case shown(FlowShown)
    /// The viewer's progress: item `item` of `of`, the current item played between
    /// `atLeast` and `atMost` (shares of its time).
    case progress(item: Int?, of: Int?, atLeast: Double?, atMost: Double?)
    /// A story's ring (every item seen), or one item, seen or not.
    case seen(story: String, item: String?, seen: Bool)
    /// The latest finished navigation (to that story or item, when named): a preload hit or
    /// not, and its time to visible at most `visibleWithin` ms on the virtual clock.
    case navigation(story: String?, item: FlowItem?, hit: Bool?, visibleWithin: Double?)
    /// The whole screen, line by line, trailing blanks ignored: a snapshot's lines (`file`
    /// names where they were read from).
    case screen(lines: [String], file: String?)
}

public enum TextPlace: Equatable, Sendable {
    case anywhere
    /// Columns `x..<x+width` of rows `y..<y+height`.
    case region(x: Int, y: Int, width: Int, height: Int)
    /// Starting at this cell.
    case cell(x: Int, y: Int)
}

/// An item named by its number in its story (1 is the first) or its id.
public enum FlowItem: Equatable, Sendable {
    case number(Int)
    case id(String)
}

public struct FlowGesture: Equatable, Sendable {
    public var gesture: String?
    public var handler: String?
    public var declined: [String] = []
    public var result: [String] = []
    public init(gesture: String? = nil, handler: String? = nil, declined: [String] = [], result: [String] = []) {
        (self.gesture, self.handler, self.declined, self.result) = (gesture, handler, declined, result)
    }
}

public enum FlowShown: Equatable, Sendable {
    case home
    /// A story by id (or its author's name), and an item of it.
    case story(String, item: FlowItem?)
}

/// What a run shows at the moment an expectation is checked.
public struct FlowObservation {
    /// Seconds since the run started.
    public var time: Double
    /// The screen: each row's columns, the grapheme drawn there ("" for the second column of
    /// a wide one).
    public var rows: [[String]]
    public var state: AppState
    /// The routing decisions since the last input step began.
    public var decisions: [GestureDecision]
    /// Every finished navigation so far, oldest first.
    public var navigations: [NavigationRecord]

    public init(time: Double, rows: [[String]], state: AppState, decisions: [GestureDecision], navigations: [NavigationRecord]) {
        (self.time, self.rows, self.state, self.decisions, self.navigations) = (time, rows, state, decisions, navigations)
    }

    /// The screen's lines, trailing blanks removed (as snapshots keep them).
    public var lines: [String] {
        rows.map { row in
            var line = row.joined()
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

/// An expectation's verdict: what was found, and what to show beside it when it failed.
public struct FlowVerdict: Equatable, Sendable {
    public var passed: Bool
    /// What the run showed, in words ("story ana, item 2 of 4 (ana-2)").
    public var actual: String
    /// Lines that help read a failure: the screen, or a diff of it against the snapshot.
    public var evidence: [String] = []

    public init(passed: Bool, actual: String, evidence: [String] = []) {
        (self.passed, self.actual, self.evidence) = (passed, actual, evidence)
    }
}
