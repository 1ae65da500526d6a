import Foundation

/// A file that could not be written, and why, in words.
public struct FileWriteFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(SafeText.line(path)): \(SafeText.line(reason))" }
}

/// A file the app writes as it goes that could not be written: which, where, why — and
/// what it means for the person (the rest of the recording is lost, the seen state is not
/// kept). Comes into the reducer as `AppAction.writeFailed`, is said at once on the notice
/// line and kept in the problems list, and again when the app ends, whose exit status then
/// says so.
public struct WriteFailure: Equatable, Sendable {
    public enum File: String, Equatable, Sendable {
        case recording = "--record"
        case gestureLog = "--gesture-log"
        case metrics = "--metrics"
        case seenState = "seen state"
    }

    public var file: File
    public var path: String
    public var reason: String

    public init(_ file: File, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    public init(_ file: File, _ failure: FileWriteFailure) {
        self.init(file, path: failure.path, reason: failure.reason)
    }

    /// One line: what follows for the person first (a notice line too narrow for the rest
    /// still says it), then which file and why.
    public var line: String {
        let what = "\(file.rawValue) \(SafeText.line(path, maxColumns: 300)): \(SafeText.line(reason, maxColumns: 300))"
        return switch file {
        case .recording: "The recording stops here: \(what)"
        case .gestureLog: "No more routing decisions are logged: \(what)"
        case .metrics: "No more navigations are written: \(what)"
        case .seenState: "What you watch is not kept for next time: \(what)"
        }
    }
}
