import Foundation
import StoriesCore

/// `--record`: every input and resize, with its time since the engine started, as JSON
/// lines (docs/gestures.md); the header carries the start and the seen state, so a replay
/// anywhere opens the same items.
@MainActor
final class SessionRecorder {
    private var file: FileHandle?

    func start(_ file: FileHandle, header: InputRecording) {
        self.file = file
        write(header.headerLine)
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
        do { try file?.write(contentsOf: Data((line + "\n").utf8)) } catch { file = nil } // a full disk ends the recording, not the app
    }
}
