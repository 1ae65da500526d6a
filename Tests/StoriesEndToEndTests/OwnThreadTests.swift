@testable import StoriesFeedIO
import Foundation
import StoriesCore
import StoriesTestSupport
import Testing

@Suite(.ownThread) struct OwnThreadTests {
    @Test func aTestRunsOnItsOwnQueueNotThePool() async {
        #expect(QueueExecutor.current == "test.aTestRunsOnItsOwnQueueNotThePool()")
        #expect(await RealTimePlaces.shared.free < RealTimePlaces.width, "it holds a place")
    }

    @Test(.timed) func aTimedTestRunsWithNoOtherRealTimeTestBesideIt() async {
        #expect(QueueExecutor.current == "test.aTimedTestRunsWithNoOtherRealTimeTestBesideIt()")
        #expect(await RealTimePlaces.shared.free == 0, "it holds every place")
    }

    /// First come, first served: a test waiting for every place is not overtaken by later
    /// ones that need one (else a timed test could wait for ever behind a stream of them).
    @Test func placesAreGivenInTurn() async throws {
        let places = RealTimePlaces(width: 3)
        await places.take(1)
        let order = OrderBox()
        let whole = Task { await places.take(3); order.append("all three") }
        let held = await AsyncWait.until(10, every: 0.001) { await places.waitingCount >= 1 }
        #expect(held)
        let one = Task { await places.take(1); order.append("one") }
        let held2 = await AsyncWait.until(10, every: 0.001) { await places.waitingCount >= 2 }
        #expect(held2)
        #expect(await places.free == 2, "one place is free to take, yet the later test waits its turn")
        await places.giveBack(1)
        await whole.value
        #expect(order.items == ["all three"])
        await places.giveBack(3)
        await one.value
        #expect(order.items == ["all three", "one"])
        #expect(await places.free == 2)
    }

    /// Swift Testing runs every test on Swift's cooperative pool, as wide as the machine has
    /// cores (two here). A test that blocks a thread in real time — a child process, tmux, a
    /// sleep, a semaphore — holds one of those two for as long as it waits. Two at once and
    /// every async test in the process stops: in a full run a `bench video` smoke test held one
    /// thread for five minutes, and PostgreSQL's tests, waiting for an answer that had come, gave up
    /// after 4 s. So every suite in a file that blocks runs its tests on a thread of its own
    /// (`.ownThread` or `.timed`), or on the main actor (which is not the pool).
    /// A new blocking helper belongs in the pattern below.
    @Test func everySuiteThatBlocksInRealTimeRunsOffThePool() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let blocking = try Regex(#"Binary\.run\(|Tmux\.|XTerminal\b|SoundServer\b|Spawn\.|Child\(|TestPostgres\b|(^|[^.\w])u?sleep\(|Thread\.sleep\(|(^|[^\w])(Wait\.|Pace\.pause\(|Fault\.late\([^,)]*\))|\.wait\((timeout:[^)]*)?\)|waitUntilExit\(\)|readDataToEndOfFile\(\)"#)
        let suite = try Regex(#"@Suite(\([^)]*\))?\s*(@MainActor\s+)?(final\s+)?(struct|class)\s+(\w+)"#)
        let extensionOf = try Regex(#"(?m)^extension\s+(\w+)"#)
        var offPool = Set<String>(), blockingFiles: [(file: String, text: String)] = []
        var checked = 0
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Fuzz/") && !file.hasPrefix("StoriesTestSupport/") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: suite) {
                let whole = String(text[match.range])
                if whole.contains("ownThread") || whole.contains(".timed") || whole.contains("@MainActor") {
                    if let name = match.output[5].substring { offPool.insert(String(name)) }
                }
            }
            // Helpers that wait (Tmux, XTerminal, Binary…) are named by the pattern where they are used.
            // `await Pace.pause`, `await Fault.late` suspend (the blocking forms have no await).
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            let blocks = code.replacing("await Pace.", with: "").replacing("await Fault.", with: "").contains(blocking)
            if text.contains("@Test"), blocks { blockingFiles.append((file, text)) }
            checked += 1
        }
        #expect(checked > 50, "the test sources were not found under \(tests.path)")
        #expect(blockingFiles.count > 10)
        for (file, text) in blockingFiles {
            let suites = text.matches(of: suite).compactMap { $0.output[5].substring.map(String.init) }
            let extended = text.matches(of: extensionOf).compactMap { $0.output[1].substring.map(String.init) }
            if suites.isEmpty && extended.isEmpty { Issue.record("\(file) blocks in real time outside any suite") }
            for name in suites + (suites.isEmpty ? extended : []) where !offPool.contains(name) {
                Issue.record("\(file) blocks in real time, and \(name) runs on the cooperative pool: give it .ownThread (or .timed)")
            }
        }
    }
}

/// What happened, in order, from several tasks.
private final class OrderBox: @unchecked Sendable {
    // `lock` guards `list`.
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.lock(); list.append(item); lock.unlock() }
    var items: [String] { lock.lock(); defer { lock.unlock() }; return list }
}
