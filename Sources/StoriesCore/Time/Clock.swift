import Foundation

/// A point in time as the app sees it: `uptime` (monotonic seconds, for durations and
/// progress) and `date` (wall clock, for "3h ago").
public struct Moment: Equatable, Sendable {
    public var uptime: Double
    public var date: Date

    public init(uptime: Double, date: Date) {
        self.uptime = uptime
        self.date = date
    }

    /// This moment moved on by `seconds`, on both clocks.
    public func advanced(by seconds: Double) -> Moment {
        Moment(uptime: uptime + seconds, date: date.addingTimeInterval(seconds))
    }
}

/// The source of time. The app uses `SystemClock`; tests pass moments they choose.
public protocol Clock: Sendable {
    func now() -> Moment
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Moment {
        Moment(uptime: ProcessInfo.processInfo.systemUptime, date: Date())
    }
}
