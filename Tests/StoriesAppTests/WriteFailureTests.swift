@testable import StoriesFeedIO
import Foundation
import StoriesApp
import StoriesCore
import StoriesTestSupport
import Testing

/// Issue 27, point 6: a recording, gesture log or metrics file that cannot be written —
/// here a full device (`/dev/full`'s), where every write fails with "No space left on device" — is said at
/// once on the notice line and kept in the problems list, once for each file; nothing more
/// is written to it, and the app goes on. (Before, the first failed write dropped the file
/// without a word and the run ended with status 0.)
@MainActor @Suite struct WriteFailureTests {
    let device = FullDevice.make()

    func full() throws -> LineFile {
        try LineFile.open(try #require(device.path, Comment(rawValue: device.problem ?? "")), append: false)
    }

    @Test func aRecordingThatCannotBeWrittenIsSaidAtOnceAndKept() throws {
        let driver = AppDriver(width: 100, height: 30)
        driver.engine.record(to: try full())
        driver.settle()
        let failure = try #require(driver.state.chrome.failedWrites.first)
        #expect(failure.file == .recording && failure.path == device.path)
        #expect(failure.reason == "the disk is full (No space left on device)", "\(failure.reason)")
        #expect(driver.state.chrome.notice == "⚠ The recording stops here: --record \(failure.path): the disk is full (No space left on device)")
        #expect(driver.text.contains("⚠ The recording stops here: --record \(failure.path.prefix(20))"), "on the screen:\n\(driver.text)")
        // Inputs go on (and are not written); the failure is said once.
        driver.press(.key(.right), .key(.right))
        #expect(driver.state.chrome.failedWrites.count == 1 && driver.state.feed.warnings.filter { $0.message.hasPrefix("The recording stops here") }.count == 1)
        #expect(driver.state.row.selection == 2, "the app goes on")
    }

    @Test func aGestureLogAndMetricsThatCannotBeWrittenAreEachSaidOnce() throws {
        let driver = AppDriver(width: 100, height: 30)
        var told: [WriteFailure] = []
        driver.engine.onWriteFailed = { told.append($0) }
        driver.engine.writeGestureLog(to: try full())
        driver.engine.writeMetrics(to: try full())
        driver.press(.key(.right))
        #expect(driver.state.chrome.failedWrites.map(\.file) == [.gestureLog], "the first decision's line failed")
        driver.press(.key(.enter))
        driver.finishWork()
        driver.press(.key(.right))
        driver.finishWork()
        #expect(driver.state.chrome.failedWrites.map(\.file) == [.gestureLog, .metrics], "a navigation's line failed too")
        #expect(told.map(\.file) == [.gestureLog, .metrics], "each told once, as it happened")
        let lines = driver.state.feed.warnings.map(\.message)
        let path = device.path ?? ""
        #expect(lines.contains { $0.hasPrefix("No more routing decisions are logged: --gesture-log \(path): the disk is full") })
        #expect(lines.contains { $0.hasPrefix("No more navigations are written: --metrics \(path): the disk is full") })
    }

    /// A file that cannot even be opened is refused before the screen (`LineFile.open`).
    @Test func aFileThatCannotBeOpenedSaysWhy() throws {
        #expect(throws: FileWriteFailure(path: "/nonexistent/folder/x.jsonl", reason: "No such file or directory")) {
            try LineFile.open("/nonexistent/folder/x.jsonl", append: false)
        }
        #expect(throws: FileWriteFailure(path: "/tmp", reason: "it is a folder")) { try LineFile.open("/tmp", append: true) }
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("no-reader-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        #expect(throws: FileWriteFailure(path: fifo, reason: "it is a FIFO with no reader (start the reader first)")) {
            try LineFile.open(fifo, append: false) // at once, not waiting for a reader
        }
    }
}
