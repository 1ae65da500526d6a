import Foundation
import StoriesCells
import StoriesCore
import StoriesUI
import Testing

/// Compares snapshot text with a committed file. With the environment variable
/// `STORIES_UPDATE_SNAPSHOTS=1` it rewrites the file instead; a missing file is written and
/// reported as a failure, so a new snapshot is always looked at before it counts.
public enum SnapshotFile {
    public static let updateVariable = "STORIES_UPDATE_SNAPSHOTS"

    public enum Outcome: Equatable {
        case matched
        case recorded(path: String)
        case mismatched(diff: String)
    }

    public static func verify(_ actual: String, at url: URL,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        let update = environment[updateVariable] == "1"
        let existing = try? String(contentsOf: url, encoding: .utf8)
        if !update, let existing {
            return existing == actual ? .matched : .mismatched(diff: diff(expected: existing, actual: actual))
        }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? actual.write(to: url, atomically: true, encoding: .utf8)
        if update, existing == actual { return .matched }
        return .recorded(path: url.path)
    }

    /// What a test reports about `actual` against `__Snapshots__/<name>.txt` beside the test
    /// file at `testFile` (`#filePath`): nil when it matched, else the message.
    public static func problem(with actual: String, named name: String, besideTestFile testFile: String) -> String? {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent()
            .appendingPathComponent("__Snapshots__").appendingPathComponent("\(name).txt")
        switch verify(actual, at: url) {
        case .matched:
            return nil
        case .recorded(let path):
            return "Recorded a new snapshot at \(path); review it, then run the tests again."
        case .mismatched(let diff):
            return "Snapshot '\(name)' differs (rerun with \(updateVariable)=1 to accept):\n\(diff)"
        }
    }

    /// The differing lines, numbered, expected (-) above actual (+).
    public static func diff(expected: String, actual: String) -> String {
        let e = expected.components(separatedBy: "\n"), a = actual.components(separatedBy: "\n")
        var out: [String] = []
        for i in 0..<max(e.count, a.count) {
            let el = i < e.count ? e[i] : "<none>", al = i < a.count ? a[i] : "<none>"
            if el != al { out.append("line \(i + 1):\n- \(el)\n+ \(al)") }
        }
        return out.joined(separator: "\n")
    }
}

/// Compares a screen with `__Snapshots__/<name>.txt` beside the test file;
/// `STORIES_UPDATE_SNAPSHOTS=1` rewrites it. The one snapshot helper every test target uses.
public func expectSnapshot(_ text: String, named name: String, filePath: String = #filePath,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    if let problem = SnapshotFile.problem(with: text, named: name, besideTestFile: filePath) {
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
}
