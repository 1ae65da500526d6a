import Foundation

/// A flow: a session to run headless on the virtual clock, with what should be true along
/// the way. The file is JSON lines, like a recording (docs/gestures.md, "Flows"): the first
/// line a header, then one step a line — the recording's inputs (`key`, `mouse`, `resize`,
/// `cell`, `end`), gestures written whole (`tap`, `hold`, `drag`), `wait`, and `expect`.
/// Any recording is a flow without expectations, and `stories record --flow` writes one.
///
///     {"stories-flow":1,"width":100,"height":30,"setup":{"feed":{"demo":true}}}
///     {"key":"Right"}
///     {"expect":"shown","story":"mika","item":1}
///     {"tap":[80,15]}
///     {"expect":"gesture","gesture":"tap right","declined":["hold","swipe"]}
///     {"expect":"text","text":"Mika","region":[0,0,100,3]}
public struct Flow: Equatable, Sendable {
    public static let formatVersion = 1
    /// The largest flow file read (a recording's limit).
    public static let maxBytes = InputRecording.maxBytes
    /// The most virtual time one flow may take: waits add up to at most this.
    public static let maxDuration: Double = 3600
    /// The most one expectation waits for the app to settle.
    public static let settleLimit: Double = 10
    /// The most virtual time a run takes, settles included: steps past it are not run (an
    /// expectation among them fails, saying so).
    public static let maxRunTime: Double = 2 * maxDuration

    /// The file's name, as lines about it say it.
    public var file: String
    public var width: Int
    public var height: Int
    public var started: Double
    public var seen: SeenState
    /// What shaped the run: the header's `setup` over the defaults (the demo feed, no
    /// network delays, seed 1, preloading on, 256 colours).
    public var setup: SessionSetup
    /// Whether the header named a setup (a version 1 recording does not).
    public var setupGiven: Bool
    public var steps: [Step]

    public struct Step: Equatable, Sendable {
        /// The file's line the step came from (1-based).
        public var line: Int
        /// `t`: the moment it happens, in seconds since the start; nil: when the step
        /// before it is done.
        public var at: Double?
        public var kind: Kind
        /// A name for the step in reports (`"name"`), else one made from what it checks.
        public var name: String?

        public init(line: Int, at: Double? = nil, kind: Kind, name: String? = nil) {
            (self.line, self.at, self.kind, self.name) = (line, at, kind, name)
        }
    }

    public enum Kind: Equatable, Sendable {
        /// Entries fed one after another, each `after` seconds after the one before.
        case inputs([(after: Double, entry: InputRecording.Entry)])
        /// Time passes (everything due on the way happens).
        case wait(Double)
        /// Time passes until nothing is left to do (loads, pictures, an animation).
        case settle
        case expect(FlowExpectation, now: Bool)

        public static func == (a: Kind, b: Kind) -> Bool {
            switch (a, b) {
            case (.inputs(let x), .inputs(let y)):
                x.count == y.count && zip(x, y).allSatisfy { $0.after == $1.after && $0.entry == $1.entry }
            case (.wait(let x), .wait(let y)): x == y
            case (.settle, .settle): true
            case (.expect(let x, let n), .expect(let y, let m)): x == y && n == m
            default: false
            }
        }
    }

    public var expectationCount: Int {
        steps.reduce(0) { count, step in if case .expect = step.kind { count + 1 } else { count } }
    }
}
