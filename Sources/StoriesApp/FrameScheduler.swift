import StoriesCore
import StoriesUI

/// When frames are drawn: a redraw is coalesced into one per scheduler turn, and a tick
/// is scheduled for the moment the screen next changes by itself
/// (`AppView.secondsUntilNextChange`), never sooner than `minimumInterval`. With nothing
/// moving there is no timer at all, and an idle app uses no CPU.
@MainActor
final class FrameScheduler {
    /// The shortest gap between frames (about 30 a second; a faster video drops frames).
    static let minimumInterval = 1.0 / 30

    private let scheduler: any EngineScheduler
    private var tickWork: ScheduledWork?
    private(set) var redrawScheduled = false
    var redraw: @MainActor () -> Void = {}
    var tick: @MainActor () -> Void = {}

    init(scheduler: any EngineScheduler) { self.scheduler = scheduler }

    func setNeedsDisplay() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        scheduler.after(0) { [weak self] in
            guard let self, self.redrawScheduled else { return }
            self.redrawScheduled = false
            self.redraw()
        }
    }

    /// The frame was drawn now: no coalesced redraw is owed.
    func drew() { redrawScheduled = false }

    /// When the last tick that fired was due (uptime seconds).
    private var lastDue: Double?

    /// Re-arms the tick for the state just reached. The gap is counted from when the last
    /// tick was due, not from now: a tick that fires a little late does not push the next
    /// one later, so a video's ticks stay on its frame grid instead of drifting off it
    /// (which showed each frame a frame late and then skipped one to catch up).
    func update(for state: AppState) {
        tickWork?.cancel()
        tickWork = nil
        guard let delay = AppView.secondsUntilNextChange(state, width: state.screenWidth, height: state.screenHeight) else { return }
        let now = scheduler.now().uptime
        let earliest = lastDue.map { $0 + Self.minimumInterval - now } ?? Self.minimumInterval
        let wait = max(delay, earliest, 0.001)
        let due = now + wait
        tickWork = scheduler.after(wait) { [weak self] in
            self?.tickWork = nil
            self?.lastDue = due
            self?.tick()
        }
    }

    func stop() {
        tickWork?.cancel()
        tickWork = nil
        redrawScheduled = false
    }
}
