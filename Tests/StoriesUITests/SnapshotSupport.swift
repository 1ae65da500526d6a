import Foundation
import Testing
@testable import StoriesUI

/// Compares a screen with `__Snapshots__/<name>.txt`; `STORIES_UPDATE_SNAPSHOTS=1` rewrites it.
func expectSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("__Snapshots__").appendingPathComponent("\(name).txt")
    switch SnapshotFile.verify(text, at: url) {
    case .matched:
        break
    case .recorded(let path):
        Issue.record("Recorded a new snapshot at \(path); review it, then run the tests again.", sourceLocation: sourceLocation)
    case .mismatched(let diff):
        Issue.record("Snapshot '\(name)' differs (rerun with \(SnapshotFile.updateVariable)=1 to accept):\n\(diff)", sourceLocation: sourceLocation)
    }
}

