import StoriesFeedIO
import CStoriesTestSupport
import Foundation
import StoriesCore
import Testing

/// Runs each test of a suite with a `QueueExecutor` of its own as its task executor
/// preference, off Swift's cooperative pool (as wide as the machine has cores: two here),
/// and only while it holds a place among the tests that wait in real time.
///
/// - The end-to-end tests wait in real time (tmux, child processes) with blocking calls. On
///   the pool a handful of them at once took every thread for the whole run, and the async
///   tests in the same process waited up to a minute for one.
/// - The loopback server tests run Hummingbird; its connection tasks are child tasks of
///   the test, so they inherit the preference and answer while the pool is busy with the
///   hundreds of other tests started at the same moment.
/// - Places (`RealTimePlaces`): off the pool, nothing else limits how many of these tests
///   run at once. Twenty apps in tmux, servers and PostgreSQL on two cores made a second a
///   second and a half, and tests that measure real time (a sound silenced within 50 ms,
///   a ring that turns grey within a second) measured the crowd. At most
///   `RealTimePlaces.width` run at once; a test marked `.timed` takes every place, so it
///   measures with no other real-time test beside it.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    /// Whether this test measures real time and runs with no other real-time test beside it.
    public let alone: Bool

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A test under both `.ownThread` (its suite's) and `.timed` (its own) is given one
        // scope's worth: the outer scope takes the places, the inner one runs the body.
        if RealTimePlaces.held { return try await function() }
        let alone = test.traits.contains { ($0 as? OwnThreadTrait)?.alone == true }
        let places = alone ? RealTimePlaces.width : 1
        await RealTimePlaces.shared.take(places)
        let began = ContinuousClock.now
        defer { RealTimePlaces.log(test.name, places: places, held: ContinuousClock.now - began) }
        do {
            try await RealTimePlaces.$held.withValue(true) {
                try await withTaskExecutorPreference(QueueExecutor(label: "test.\(test.name)")) { try await function() }
            }
        } catch {
            await RealTimePlaces.shared.giveBack(places)
            throw error
        }
        await RealTimePlaces.shared.giveBack(places)
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, off the cooperative pool (see `OwnThreadTrait`).
    public static var ownThread: Self { Self(alone: false) }

    /// A test that measures real time: on a thread of its own, with no other test that waits
    /// in real time running beside it (see `OwnThreadTrait`).
    public static var timed: Self { Self(alone: true) }
}

/// The places among tests that wait in real time: taken first come, first served (a `.timed`
/// test that waits for every place is not overtaken by later ones that need one).
public actor RealTimePlaces {
    /// How many real-time tests run at once: two cores, each test a child process or a
    /// server besides itself.
    public static let width = 3
    public static let shared = RealTimePlaces(width: RealTimePlaces.width)
    @TaskLocal static var held = false

    /// With `STORIES_PLACES_LOG=FILE`, each real-time test's name, places and seconds held
    /// are appended to FILE: where the suite's wall time goes (docs/testing.md).
    nonisolated static func log(_ name: String, places: Int, held: Duration) {
        guard let path = ProcessInfo.processInfo.environment["STORIES_PLACES_LOG"] else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let seconds = Double(held.components.seconds) + Double(held.components.attoseconds) / 1e18
        let line = Array("\(String(format: "%.1f", seconds))\t\(places)\t\(name)\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } // one append: lines never interleave
    }

    /// Places no test holds now.
    public private(set) var free: Int
    private var waiting: [(places: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(width: Int) { free = width }

    /// How many wait for places now.
    public var waitingCount: Int { waiting.count }

    public func take(_ places: Int) async {
        if waiting.isEmpty, free >= places { free -= places; return }
        await withCheckedContinuation { waiting.append((places, $0)) }
    }

    public func giveBack(_ places: Int) {
        free += places
        while let first = waiting.first, first.places <= free {
            free -= first.places
            waiting.removeFirst()
            first.continuation.resume()
        }
    }
}

/// A device where every write fails with "No space left on device" (`/dev/full`, char 1,7),
/// made in a folder of the test's own: a machine (a container, a VM) may have no /dev/full,
/// and a test that opened a missing one would write a regular file and see nothing fail.
public enum FullDevice {
    /// The path of a full device; nil (with the reason recorded by the caller) when none can be made.
    public static func make() -> (path: String?, problem: String?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("full-device-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("full").path
        if mknod(path, S_IFCHR | 0o666, dev_t(0x107) /* makedev(1, 7) */) == 0 { return (path, nil) }
        let reason = String(cString: strerror(errno))
        var info = stat()
        if stat("/dev/full", &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR { return ("/dev/full", nil) }
        return (nil, "no full device: mknod said \(reason) and /dev/full is not a device")
    }
}

/// Swaps two names at once (`renameat2` with `RENAME_EXCHANGE`): 0, or -1 with errno.
public func exchangeNames(_ a: String, _ b: String) -> Int32 { stories_test_exchange(a, b) }

/// A TCP socket connected to 127.0.0.1:`port` (the tests' raw HTTP clients), with a small
/// receive buffer when `receiveBuffer` is given (set before connecting, so the window is
/// small from the start); nil when nothing listens there.
public func loopbackSocket(port: Int, receiveBuffer: Int32? = nil) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { close(fd); return nil }
    return fd
}

/// A loopback port nothing listens on now (bound and let go).
public func freeLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}
