import Foundation

/// The one place a test sleeps. A test waits for a condition with a bound (`Wait.until`),
/// or holds one over a window to show that something does not happen (`Wait.holds`);
/// where time is itself the input — a key held, the gap a person leaves between presses, an
/// answer that arrives in two pieces — it says so (`Pace`); a fake server's or terminal's
/// delay is the fault under test (`Fault`). `RoomsTests` fails when any other file under
/// Tests sleeps. (`AsyncWait` is the same for async code.) Deadlines are on the monotonic
/// clock.
public enum Wait {
    /// Checks `condition` until it holds or `seconds` have passed; whether it held. A test
    /// asserts the result (or throws) with what it waited for.
    @available(*, noasync, message: "AsyncWait.until suspends rather than blocks")
    @discardableResult
    public static func until(_ seconds: Double, every: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(bounded(seconds))
        while true {
            if try condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(microseconds(every))
        }
    }

    /// Whether `condition` held the whole of `seconds` (checked every `every`): false as soon
    /// as it does not. For what must not happen — a retry that must not come, a frame that
    /// must not be drawn — where the window is the claim.
    @available(*, noasync, message: "AsyncWait.holds suspends rather than blocks")
    public static func holds(for seconds: Double, every: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(bounded(seconds))
        while ContinuousClock.now < deadline {
            if try !condition() { return false }
            usleep(microseconds(min(every, left(until: deadline))))
        }
        return try condition()
    }

    /// A bound on every wait: an hour.
    static func bounded(_ seconds: Double) -> Double { seconds.isFinite ? min(max(seconds, 0), 3600) : 0 }

    /// One step of a wait (at most a minute at a time; a longer pause takes several).
    static func microseconds(_ seconds: Double) -> UInt32 {
        UInt32(min(bounded(seconds), 60) * 1_000_000)
    }

    static func left(until deadline: ContinuousClock.Instant) -> Double {
        let (whole, fraction) = (deadline - ContinuousClock.now).components
        return max(0.001, Double(whole) + Double(fraction) / 1e18)
    }
}

/// `Wait` for async code: the same, suspending rather than blocking the thread (a test's
/// server may need the cooperative pool's threads meanwhile), in the caller's isolation. A
/// cancelled task stops waiting at once (with one last look).
public enum AsyncWait {
    /// As `Wait.until`.
    @discardableResult
    public static func until(_ seconds: Double, every: Double = 0.02, isolation: isolated (any Actor)? = #isolation,
                             _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(Wait.bounded(seconds))
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            do { try await Task.sleep(for: .seconds(Wait.bounded(every))) } catch { return try await condition() }
        }
    }

    /// As `Wait.holds`.
    public static func holds(for seconds: Double, every: Double = 0.05, isolation: isolated (any Actor)? = #isolation,
                             _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(Wait.bounded(seconds))
        while ContinuousClock.now < deadline {
            if try await !condition() { return false }
            do { try await Task.sleep(for: .seconds(min(every, Wait.left(until: deadline)))) } catch { break }
        }
        return try await condition()
    }
}

/// Time that is itself the input: a key held down, the gap a person leaves between two
/// presses, a long press, a terminal's answer written in two pieces.
public enum Pace {
    public static func pause(_ seconds: Double) {
        var left = Wait.bounded(seconds)
        while left > 0 {
            usleep(Wait.microseconds(left))
            left -= 60
        }
    }

    public static func pause(_ seconds: Double) async {
        try? await Task.sleep(for: .seconds(Wait.bounded(seconds)))
    }

    /// Runs `work` on `queue` `seconds` from `start`: a byte a slow link delivers at its
    /// own moment.
    public static func at(_ seconds: Double, from start: DispatchTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: start + .nanoseconds(Int(Wait.bounded(seconds) * 1e9)), execute: work)
    }
}

/// The delay a fake server, network or terminal puts in on purpose: the fault under test.
public enum Fault {
    /// Answers `seconds` late (cancellable: a server that is gone is cancelled by its caller).
    public static func late(_ seconds: Double) async throws {
        try await Task.sleep(for: .seconds(Wait.bounded(seconds)))
    }

    public static func late(_ seconds: Double) {
        Pace.pause(seconds)
    }

    /// Runs `work` (the fake's answer) on `queue` `seconds` from now.
    public static func late(_ seconds: Double, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(Wait.bounded(seconds) * 1e9)), execute: work)
    }
}
