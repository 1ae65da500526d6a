import StoriesFeedIO
import Foundation
import StoriesCore

/// Measures every navigation (through `NavigationTracker`) from the states the reducer
/// reaches and the frames drawn, and reports each as it completes: to `--metrics FILE`,
/// to `onNavigation` (the bench), and to the `i` overlay's list.
@MainActor
final class MetricsReporter {
    private var tracker = NavigationTracker()
    private var file: LineFile?
    var onNavigation: (@MainActor (NavigationRecord) -> Void)?
    /// A write failed: no more lines are written, said once.
    var onFailure: (@MainActor (WriteFailure) -> Void)?

    var records: [NavigationRecord] { tracker.records }
    var hits: Int { tracker.hits }
    var count: Int { tracker.count }

    func write(to file: LineFile) { self.file = file }

    /// After an action changed the state. Returns true when a record was emitted.
    @discardableResult
    func stateChanged(_ state: AppState, by action: AppAction) -> Bool {
        let inputTime: Double
        if case .input(_, let readAt) = action { inputTime = readAt } else { inputTime = state.now.uptime }
        guard let overtaken = tracker.update(state, trigger: Self.trigger(of: action, in: state), inputTime: inputTime,
                                             mediaReady: { state.media.status[$0.location] == .ready }) else { return false }
        emit(overtaken)
        return true
    }

    /// After a frame was drawn: the navigation ends at the first frame holding its item
    /// whole. Returns true when a record was emitted.
    @discardableResult
    func frameDrawn(_ state: AppState, at uptime: Double) -> Bool {
        guard let viewer = state.viewer, !viewer.isWaiting, state.isUsable,
              let record = tracker.frame(state, at: uptime, complete: !state.awaitsMedia) else { return false }
        emit(record)
        return true
    }

    private func emit(_ record: NavigationRecord) {
        // A full disk ends the lines, not the app; it is said.
        if let file, let failure = file.write(record.jsonLine) {
            self.file = nil
            onFailure?(WriteFailure(.metrics, failure))
        }
        onNavigation?(record)
    }

    /// The gesture a navigation is measured under: for an input, the gesture it became.
    static func trigger(of action: AppAction, in state: AppState) -> String {
        switch action {
        case .input: state.gesture.log.last?.gesture ?? "input"
        case .navigation(.command(let command)): GestureRecognizer.meaning(of: command, in: state).0
        case .navigation(.select): "open"
        case .app(.tick): "auto-advance"
        default: "arrival"
        }
    }
}
