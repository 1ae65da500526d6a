import StoriesFeedIO
import Foundation
import StoriesCore

/// `--gesture-log FILE`: every routing decision (what the `g` overlay shows) as one JSON
/// line, as it is made — keys, clicks, the hold timer, resizes — so a QA session's routing
/// can be read, diffed and searched afterwards.
///
///     {"t":1.65,"phase":"viewing","input":"mouse release left at 70,12","gesture":"tap right",
///      "handler":"viewer.tapZones","result":["nextItem"],"notes":["column 70 is in …"],
///      "declined":[{"recognizer":"hold","reason":"released after 50 ms, under 250 ms"}]}
@MainActor
final class GestureLogWriter {
    private var file: LineFile?
    /// A write failed: the log ends there, said once.
    var onFailure: (@MainActor (WriteFailure) -> Void)?

    init(file: LineFile) { self.file = file }

    /// Writes the decisions logged since the state was `before` (each with the phase the
    /// input met).
    func write(_ state: AppState, before: AppState, startUptime: Double) {
        let new = state.gesture.decisionCount - before.gesture.decisionCount
        guard new > 0 else { return }
        let phase = GesturePhase(before).rawValue
        for decision in state.gesture.log.suffix(min(new, state.gesture.log.count)) {
            let line: JSONValue = .object([
                "t": .rounded(decision.time - startUptime, places: 3), "phase": .string(phase), "input": .string(decision.input),
                "gesture": .string(decision.gesture), "handler": .string(decision.handler),
                "result": .strings(decision.result), "notes": .strings(decision.notes),
                "declined": .array(decision.declined.map { .object(["recognizer": .string($0.recognizer), "reason": .string($0.reason)]) }),
            ])
            guard let file else { continue }
            let data = line.data()
            // A full disk or a closed pipe ends the log, never the app; it is said.
            if let failure = file.write([UInt8](data)) {
                self.file = nil
                onFailure?(WriteFailure(.gestureLog, failure))
            }
        }
    }
}
