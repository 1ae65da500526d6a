import Foundation
import Testing
@testable import StoriesUI

/// Compares a screen with `__Snapshots__/<name>.txt`; `STORIES_UPDATE_SNAPSHOTS=1` rewrites it.
func expectSnapshot(_ text: String, named name: String, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) {
    if let problem = SnapshotFile.problem(with: text, named: name, besideTestFile: filePath) {
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
}
