import Foundation
import StoriesApp
import StoriesAssets
import StoriesCore
import StoriesFeedIO
import StoriesHTTP
import StoriesTestSupport
import Testing

/// Issue 46, point 1: recovery is one mechanism, everywhere, tested as a property. The same
/// scripted session runs twice against a real `stories serve` on loopback — once with the
/// server up throughout, once with it killed (SIGKILL) and started again on the same port at
/// 20 moments drawn from a seed — with and without preloading. Afterwards the faulty run must
/// come, within the retry policy's bound (30 s), to the same screens as the clean one: no ⚠
/// a retry would clear, nothing marked seen that was not shown, and no request storm. The
/// same for a feed folder whose `stories/` and `media/` are moved away for a while (a disk
/// unmounted, a deploy swapping folders).
@Suite(.serialized) @MainActor struct FaultInjectionTests {
    /// Where the stories come from, and how it goes away and comes back.
    protocol Outage: AnyObject {
        var isUp: Bool { get }
        func kill()
        func start() throws
        func source(cache: URL) throws -> any FeedSource
    }

    /// A copy of the demo feed folder whose sub-folders are moved away and back.
    final class Folder: Outage {
        let root: URL
        private(set) var isUp = true
        init(folder: URL) throws {
            root = folder.appendingPathComponent("feed")
            try FileManager.default.copyItem(at: try #require(DemoFeed.directory), to: root)
        }
        func kill() {
            for name in ["stories", "media"] {
                try? FileManager.default.moveItem(at: root.appendingPathComponent(name), to: root.appendingPathComponent(".\(name)-away"))
            }
            isUp = false
        }
        func start() throws {
            for name in ["stories", "media"] {
                try FileManager.default.moveItem(at: root.appendingPathComponent(".\(name)-away"), to: root.appendingPathComponent(name))
            }
            isUp = true
        }
        func source(cache: URL) throws -> any FeedSource { try FeedFolder(directory: root) }
    }

    /// `stories serve` of the demo feed, on a port kept across restarts.
    final class Server: Outage {
        private(set) var process: Child?
        private(set) var port = 0
        let folder: URL

        init(folder: URL) throws {
            self.folder = folder
            try start()
        }

        /// Starts it (on its port once it has one) and waits for its first line.
        func start() throws {
            let out = folder.appendingPathComponent("serve-\(UUID().uuidString.prefix(6)).out")
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
            let child = try Child([try BuiltBinary.requireBuilt(), "serve", "--port", String(port), "--database", "none"],
                                  environment: environment, stdout: .file(out.path), stderr: .file(out.path + ".err"))
            process = child
            var text = ""
            Wait.until(20, every: 0.01) {
                text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
                return text.contains("\n") || !child.isRunning
            }
            let address = try #require(text.range(of: "127.0.0.1:"), "stories serve did not start: '\(text)' \((try? String(contentsOfFile: out.path + ".err", encoding: .utf8)) ?? "")")
            port = try #require(Int(text[address.upperBound...].prefix { $0.isNumber }))
        }

        /// Gone at once, as a machine lost.
        func kill() {
            process?.signal(SIGKILL)
            process?.wait()
            process = nil
        }

        var isUp: Bool { process != nil }
        deinit { process?.stop() }
        func source(cache: URL) throws -> any FeedSource {
            try HTTPFeed(server: "http://127.0.0.1:\(port)", cache: HTTPCache(directory: cache))
        }
    }

    /// The HTTP source, counting what is asked of it. `@unchecked Sendable`: `counts` only
    /// under `lock`.
    final class Counting: FeedSource, @unchecked Sendable {
        let inner: any FeedSource
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        init(_ inner: any FeedSource) { self.inner = inner }
        var asked: [String: Int] { lock.withLock { counts } }
        var total: Int { asked.values.reduce(0, +) }
        private func count(_ kind: String) { lock.withLock { counts[kind, default: 0] += 1 } }

        var title: String { inner.title }
        var waitsOnNetwork: Bool { inner.waitsOnNetwork }
        func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage { count("page"); return try inner.page(after: cursor, limit: limit) }
        func story(id: StoryID) throws(FeedError) -> StoryLoad { count("story"); return try inner.story(id: id) }
        func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? { count("media"); return try inner.media(at: location, maxBytes: maxBytes) }
        func home() throws(FeedError) -> HomeLoad { count("home"); return try inner.home() }
    }

    /// A person's session: keys, each followed by a wait (seconds).
    static let script: [([InputEvent], Double)] = [
        ([.key(.right)], 1), ([.key(.right)], 1.5), ([.key(.enter)], 2), ([.key(.character("l"))], 1),
        ([.key(.character("l"))], 2), ([.key(.character("]"))], 3), ([.key(.character("l"))], 6), ([.key(.escape)], 1),
        ([.key(.end)], 1), ([.key(.enter)], 2.5), ([.key(.character("l"))], 2), ([.key(.character("["))], 2),
        ([.key(.escape)], 1), ([.key(.home)], 1), ([.key(.right)], 0.5), ([.key(.right)], 0.5), ([.key(.right)], 0.5),
        ([.key(.enter)], 4), ([.key(.character("l"))], 1), ([.key(.escape)], 1), ([.key(.down)], 1.5), ([.key(.up)], 1),
    ]

    struct Outcome {
        var driver: AppDriver
        var seenWithoutShowing: [String]
        var asked: [String: Int]
        var faults = 0
        var warnings: [String]
    }

    /// The script against the server, with the server down between the moments in
    /// `faults` (half-second steps of the session: kill at the first of a pair, start again
    /// at the second); then the server up and the policy's bound waited out.
    func session(_ server: any Outage, preload: PreloadPolicy, faults: [(kill: Int, start: Int)], folder: URL) throws -> Outcome {
        if !server.isUp { try server.start() }
        let source = Counting(try server.source(cache: folder.appendingPathComponent("cache-\(UUID().uuidString.prefix(6))")))
        let driver = AppDriver(width: 80, height: 24, source: source, preload: preload)
        var step = 0
        var injected = 0
        func tick(_ seconds: Double) throws {
            var left = seconds
            while left > 0 {
                if faults.contains(where: { $0.kill == step }), server.isUp { server.kill(); injected += 1 }
                if faults.contains(where: { $0.start == step }), !server.isUp { try server.start() }
                driver.wait(min(0.5, left))
                left -= 0.5
                step += 1
            }
        }
        for (keys, wait) in Self.script {
            driver.press(keys)
            try tick(wait)
        }
        if !server.isUp { try server.start() }
        // The policy's bound: every failure is asked again within 30 s of its last try.
        driver.wait(31)
        driver.finishWork()
        let store = driver.state.feed.store
        var unshown: [String] = []
        for (storyID, items) in driver.state.seen.items {
            guard let story = store.positions[storyID].flatMap({ store.story(at: $0) }) else { continue }
            for item in story.items where items.contains(item.id) {
                if let media = item.content.media, !driver.state.media.shown.contains(media.location) { unshown.append("\(storyID)/\(item.id)") }
            }
        }
        return Outcome(driver: driver, seenWithoutShowing: unshown, asked: source.asked, faults: injected,
                       warnings: driver.state.feed.warnings.map(\.message))
    }

    enum Kind: Sendable { case server, folder }

    @Test(arguments: [Kind.server, .folder], [PreloadPolicy.on, .off])
    func aSessionWithTheSourceGoneTwentyTimesEndsAsOneWithout(kind: Kind, preload: PreloadPolicy) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server: any Outage = kind == .server ? try Server(folder: folder) : try Folder(folder: folder)
        let clean = try session(server, preload: preload, faults: [], folder: folder)

        // Twenty outages, each from a half-second step to one 1–3 steps later, apart.
        var random = SplitMix(seed: preload == .on ? 46 : 4646)
        let steps = Int(Self.script.map(\.1).reduce(0, +) * 2)
        var moments: [(kill: Int, start: Int)] = []
        var at = 0
        while moments.count < 20, at < steps {
            at += Int.random(in: 0...1, using: &random)
            let length = Int.random(in: 1...3, using: &random)
            moments.append((at, at + length))
            at += length + 1
        }
        #expect(moments.count == 20, "the script is long enough for 20 outages: \(steps) steps")
        let faulty = try session(server, preload: preload, faults: moments, folder: folder)

        #expect(faulty.faults == 20)
        // What an outage hid was not seen, rightly: the two runs are compared with the same
        // seen state (each given the other's, as another terminal's would be).
        let seenClean = clean.driver.state.seen, seenFaulty = faulty.driver.state.seen
        clean.driver.deliver(.seenElsewhere(seenFaulty))
        faulty.driver.deliver(.seenElsewhere(seenClean))
        var screens: [(String, String)] = []
        for keys in [[], [InputEvent.key(.enter)], [.key(.character("l"))], [.key(.escape), .key(.down)]] as [[InputEvent]] {
            for driver in [clean.driver, faulty.driver] {
                driver.press(keys)
                driver.wait(0.5)
                driver.finishWork()
            }
            screens.append((clean.driver.text, faulty.driver.text))
        }
        print("fault injection (\(kind), preload \(preload)): \(faulty.faults) outages; requests clean \(clean.asked) = \(clean.asked.values.reduce(0, +)), "
              + "with faults \(faulty.asked) = \(faulty.asked.values.reduce(0, +)); screens compared: \(screens.count)")
        for (index, (a, b)) in screens.enumerated() {
            #expect(a == b, "screen \(index) differs after the faults:\n\(b)\n— without faults —\n\(a)")
            #expect(!b.contains("⚠"), "no ⚠ left that a retry clears:\n\(b)\n\(faulty.warnings)")
        }
        #expect(faulty.seenWithoutShowing.isEmpty && clean.seenWithoutShowing.isEmpty, "seen but never shown: \(faulty.seenWithoutShowing)")
        // No storm: the outages cost retries, bounded by the policy — at most two a fault
        // (measured: at most 14 more for 20).
        let extra = faulty.asked.values.reduce(0, +) - clean.asked.values.reduce(0, +)
        #expect(extra <= 2 * 20, "\(extra) more requests for 20 outages: \(faulty.asked) against \(clean.asked)")
    }
}
