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

    struct Line: Encodable {
        struct Declined: Encodable {
            var recognizer: String
            var reason: String
        }
        var t: Double
        var phase: String
        var input: String
        var gesture: String
        var handler: String
        var result: [String]
        var notes: [String]
        var declined: [Declined]
    }

    /// Writes the decisions logged since the state was `before` (each with the phase the
    /// input met).
    func write(_ state: AppState, before: AppState, startUptime: Double) {
        let new = state.gesture.decisionCount - before.gesture.decisionCount
        guard new > 0 else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let phase = GesturePhase(before).rawValue
        for decision in state.gesture.log.suffix(min(new, state.gesture.log.count)) {
            let line = Line(t: ((decision.time - startUptime) * 1000).rounded() / 1000, phase: phase, input: decision.input,
                            gesture: decision.gesture, handler: decision.handler, result: decision.result, notes: decision.notes,
                            declined: decision.declined.map { Line.Declined(recognizer: $0.recognizer, reason: $0.reason) })
            guard let data = try? encoder.encode(line), let file else { continue }
            // A full disk or a closed pipe ends the log, never the app; it is said.
            if let failure = file.write([UInt8](data)) {
                self.file = nil
                onFailure?(WriteFailure(.gestureLog, failure))
            }
        }
    }
}
