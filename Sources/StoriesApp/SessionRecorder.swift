import StoriesFeedIO
import Foundation
import StoriesCore

/// `--record`: every input and resize, with its time since the engine started, as JSON
/// lines (docs/gestures.md); the header carries the start and the seen state, so a replay
/// anywhere opens the same items. A write that fails ends the recording and is reported
/// (`onFailure`), as is reaching the most a replay reads: the rest of the session would
/// make a file no replay takes.
@MainActor
final class SessionRecorder {
    private var file: LineFile?
    private var bytes = 0
    /// A write failed, or the recording reached its bound: said once.
    var onFailure: (@MainActor (WriteFailure) -> Void)?

    /// Writing a flow (`stories record --flow`): checkpoints go in between the inputs.
    private(set) var isFlow = false

    func start(_ file: LineFile, header: InputRecording, flow: Bool = false) {
        self.file = file
        bytes = 0
        isFlow = flow
        write(flow ? Flow.headerLine(width: header.width, height: header.height, started: header.started, seen: header.seen,
                                     setup: header.setup) : header.headerLine)
    }

    /// A flow's checkpoint: an expectation at `elapsed`.
    func checkpoint(_ expectation: FlowExpectation, at elapsed: Double) {
        guard file != nil, isFlow, let line = Flow.checkpointLine(expectation, at: elapsed) else { return }
        write(line)
    }

    func record(_ entry: InputRecording.Entry, at elapsed: Double) {
        guard file != nil else { return }
        write(InputRecording.line(entry, at: elapsed))
    }

    /// Marks the end of a recording (the app is quitting).
    func end(at elapsed: Double) {
        record(.end, at: elapsed)
        file = nil
    }

    private func write(_ line: String) {
        guard let file else { return }
        bytes += line.utf8.count + 1
        if bytes > InputRecording.maxBytes {
            self.file = nil
            onFailure?(WriteFailure(.recording, path: file.path,
                                    reason: "it reached \(SafeFile.megabytes(InputRecording.maxBytes)), the most a replay reads"))
            return
        }
        if let failure = file.write(line) {
            self.file = nil // a full disk ends the recording, not the app
            onFailure?(WriteFailure(.recording, failure))
        }
    }
}
