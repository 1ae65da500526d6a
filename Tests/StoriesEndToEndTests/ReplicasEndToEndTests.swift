import Foundation
import StoriesTestSupport
import Testing

/// Issue 34, points 4 and 5. Two `stories serve` replicas sharing PostgreSQL behind nginx (the
/// configuration docs/deploy.md gives), viewers sending seen batches under load, one replica
/// killed with SIGKILL mid-way and started again. No acknowledged batch may be lost, and no
/// request may fail beyond the ones in flight at the kill.
@Suite(.serialized, .ownThread) struct ReplicasEndToEndTests {
    /// A replica at a fixed port (so it comes back where nginx looks for it).
    static func replica(port: Int, database: String, viewers: String, folder: URL, says: String = "seen state in postgres://") throws -> Child {
        let out = folder.appendingPathComponent("replica-\(port)-\(UUID().uuidString.prefix(4)).out").path
        let child = try Child([try Binary.requireBuilt(), "serve", "--port", String(port), "--database", database, "--viewers", viewers,
                               "--log", folder.appendingPathComponent("replica-\(port).log").path],
                              environment: ProcessInfo.processInfo.environment, stdout: .file(out), stderr: .file(out + ".err"))
        var started = false
        Wait.until(20, every: 0.05) {
            started = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains(says)
            return started || !child.isRunning
        }
        if started { return child }
        let said = ((try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? "")
        Issue.record("replica on \(port) did not start: \(said)")
        throw TestPostgres.Unavailable(description: "replica did not start")
    }

    /// One request on a connection of its own; the status (0: no answer), body and head.
    static func send(port: Int, _ method: String, _ path: String, token: String, body: String = "") -> (status: Int, body: String, head: String) {
        let request = "\(method) \(path) HTTP/1.1\r\nHost: stories\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        guard let answer = ServeEndToEndTests.request(port: port, request), answer.hasPrefix("HTTP/1.1 ") else { return (0, "", "") }
        let status = Int(answer.dropFirst(9).prefix(3)) ?? 0
        let split = answer.range(of: "\r\n\r\n")
        let body = split.map { String(answer[$0.upperBound...]) } ?? ""
        return (status, body, split.map { String(answer[..<$0.lowerBound]) } ?? answer)
    }

    /// docs/deploy.md's nginx block for replicas, as the file has it, on loopback: the
    /// upstreams at `ports`, listening on a free port; started, and answering `token`'s GET.
    static func nginx(_ nginx: String, ports: [Int], folder: URL, token: String) throws -> (Child, Int) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/deploy.md"), encoding: .utf8)
        let marker = try #require(doc.range(of: "nginx in front, trying the other replica when one fails"))
        let open = try #require(doc.range(of: "```nginx\n", range: marker.upperBound..<doc.endIndex))
        let close = try #require(doc.range(of: "```", range: open.upperBound..<doc.endIndex))
        var block = String(doc[open.upperBound..<close.lowerBound])
        let front = freeLoopbackPort()
        for (documented, port) in zip(["127.0.0.1:8081", "127.0.0.1:8082"], ports) {
            try #require(block.contains(documented), "docs/deploy.md's block names \(documented)")
            block = block.replacingOccurrences(of: documented, with: "127.0.0.1:\(port)")
        }
        try #require(block.contains("listen 80;"))
        block = block.replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(front);")
        let confFile = folder.appendingPathComponent("nginx.conf")
        try (ServeEndToEndTests.nginxConf(folder: folder) + block + "}\n").write(to: confFile, atomically: true, encoding: .utf8)
        let proxy = try Child([nginx, "-p", folder.path, "-c", confFile.path], environment: ProcessInfo.processInfo.environment)
        var up = false
        Wait.until(15, every: 0.1) {
            up = Self.send(port: front, "GET", "/v1/seen", token: token).status == 200
            return up || !proxy.isRunning
        }
        if !up { proxy.stop() }
        try #require(up, "nginx did not start: \((try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")")
        return (proxy, front)
    }

    /// Every tooltip of `sent` (by viewer) is in what the server at `port` has.
    static func expectKept(_ sent: [Int: [String]], port: Int, tokens: [String]) throws {
        for (index, token) in tokens.enumerated() {
            let answer = Self.send(port: port, "GET", "/v1/seen?since=0", token: token)
            try #require(answer.status == 200, "server on \(port): \(answer)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            let kept = Set(json["tooltips"] as? [String] ?? [])
            let lost = (sent[index] ?? []).filter { !kept.contains($0) }
            #expect(!(sent[index] ?? []).isEmpty && lost.isEmpty,
                    "viewer \(index) on \(port): \(lost.count) of \(sent[index]?.count ?? 0) acknowledged batches lost, e.g. \(lost.prefix(3))")
        }
    }

    /// Viewers (one thread each) sending batches one after another, each with a tooltip of
    /// its own: a batch acknowledged is one whose tooltip must be there at the end.
    /// `@unchecked Sendable`: `lock` guards every field the threads share.
    final class Load: @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [Int: [String]] = [:]
        private var failed: [String] = []
        /// When each batch was acknowledged (seconds of uptime), in order.
        private var times: [Double] = []
        private var stopping = false
        private var threads: [Thread] = []

        init(port: Int, tokens: [String]) {
            let items = [("ayla", "astronaut"), ("ayla", "rocket"), ("mika", "chelsea"), ("mika", "coffee")]
            for (index, token) in tokens.enumerated() {
                let thread = Thread { [self] in
                    var count = 0
                    while !lock.withLock({ stopping }) {
                        count += 1
                        let tooltip = "load-\(index)-\(count)"
                        let (story, item) = items[count % items.count]
                        let body = #"{"version":1,"seen":[{"story":"\#(story)","item":"\#(item)"}],"tooltips":["\#(tooltip)"]}"#
                        let answer = ReplicasEndToEndTests.send(port: port, "PUT", "/v1/seen", token: token, body: body)
                        lock.withLock {
                            if answer.status == 200 {
                                sent[index, default: []].append(tooltip)
                                times.append(Load.uptime())
                            } else {
                                let later = answer.head.lowercased().contains("\r\nretry-after:") ? " [Retry-After]" : ""
                                failed.append("\(answer.status)\(later) \(answer.body.prefix(120))")
                            }
                        }
                        if answer.status != 200 { Pace.pause(0.02) } // a client's pause after a failure
                    }
                }
                thread.start()
                threads.append(thread)
            }
        }

        func acknowledged() -> Int { lock.withLock { sent.values.map(\.count).reduce(0, +) } }

        func failures() -> [String] { lock.withLock { failed } }

        static func uptime() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

        /// The longest time between two acknowledgements after `from` (uptime seconds), and
        /// when it began.
        func longestGap(after from: Double) -> (seconds: Double, began: Double) {
            let after = lock.withLock { times.filter { $0 >= from } }
            var longest = (seconds: 0.0, began: from)
            for (earlier, later) in zip(after, after.dropFirst()) where later - earlier > longest.seconds { longest = (later - earlier, earlier) }
            return longest
        }

        /// Waits at least `seconds`, and then until more than `count` batches are
        /// acknowledged (at most a minute: a machine busy with the rest of the tests answers
        /// slower, and the tests are about what is kept, not how fast); the count then.
        func acknowledged(after seconds: Double, moreThan count: Int) -> Int {
            Pace.pause(seconds) // the load runs this long: the time is the input
            Wait.until(60) { acknowledged() > count }
            return acknowledged()
        }

        /// Stops the threads; what each viewer had acknowledged, and what failed.
        func finish() -> (sent: [Int: [String]], failed: [String]) {
            lock.withLock { stopping = true }
            let ended = Wait.until(60) { threads.allSatisfy(\.isFinished) }
            if !ended { Issue.record("the load's threads did not end within a minute of being told to") }
            return lock.withLock { (sent, failed) }
        }
    }

    /// One server on SQLite, killed with SIGKILL while batches are written as fast as it
    /// answers, started again on the same file: every batch it acknowledged is there (WAL:
    /// a commit is in the log before the answer goes).
    @Test func anSQLiteServerKilledMidWriteLosesNoAcknowledgedBatch() throws {
        let (folder, _) = try ServeEndToEndTests.scratch("sqlite-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewersFile = folder.appendingPathComponent("viewers.txt").path
        var tokens: [String] = []
        for name in ["ayla", "bo"] {
            tokens.append(try Binary.run(["serve", "add-viewer", name, "--viewers", viewersFile]).out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let store = folder.appendingPathComponent("seen.sqlite").path
        let port = freeLoopbackPort()
        var server = try Self.replica(port: port, database: store, viewers: viewersFile, folder: folder, says: "seen state in \(store)")
        defer { server.stop() }
        let load = Load(port: port, tokens: tokens)
        _ = load.acknowledged(after: 1.5, moreThan: 20)
        server.signal(SIGKILL)
        server.wait()
        let (sent, _) = load.finish()
        server = try Self.replica(port: port, database: store, viewers: viewersFile, folder: folder, says: "seen state in \(store)")
        #expect(sent.values.map(\.count).reduce(0, +) > 20, "batches were written before the kill: \(sent.mapValues(\.count))")
        try Self.expectKept(sent, port: port, tokens: tokens)
    }

    @Test func aReplicaKilledUnderLoadLosesNoAcknowledgedBatch() throws {
        let nginx = try #require(["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                 "nginx is not installed (scripts/deps installs it)")
        let postgres = try TestPostgres.shared()
        let database = postgres.url(try postgres.database())
        let (folder, _) = try ServeEndToEndTests.scratch("replicas")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewersFile = folder.appendingPathComponent("viewers.txt").path
        var tokens: [String] = []
        for name in ["ayla", "bo", "chen", "dara"] {
            let added = try Binary.run(["serve", "add-viewer", name, "--viewers", viewersFile])
            tokens.append(added.out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let ports = [freeLoopbackPort(), freeLoopbackPort()]
        var replicas = try ports.map { try Self.replica(port: $0, database: database, viewers: viewersFile, folder: folder) }
        defer { for replica in replicas { replica.stop() } }

        let (proxy, front) = try Self.nginx(nginx, ports: ports, folder: folder, token: tokens[0])
        defer { proxy.stop() }

        let load = Load(port: front, tokens: tokens)
        let beforeKill = load.acknowledged(after: 2, moreThan: 20)
        replicas[0].signal(SIGKILL)
        replicas[0].wait()
        let whileDown = load.acknowledged(after: 2, moreThan: beforeKill + 20) - beforeKill
        let restartedLog = folder.appendingPathComponent("replica-\(ports[0]).log")
        let batches = { ((try? String(contentsOf: restartedLog, encoding: .utf8)) ?? "").components(separatedBy: "PUT /v1/seen").count }
        let beforeRestart = batches()
        replicas[0] = try Self.replica(port: ports[0], database: database, viewers: viewersFile, folder: folder)
        // Past fail_timeout nginx sends to it again: batches reach the restarted replica.
        let held = Wait.until(15, every: 0.1) { batches() > beforeRestart + 5 }
        #expect(held, "nginx sends to the restarted replica again")
        let (sent, failed) = load.finish()
        #expect(beforeKill > 20 && whileDown > 20, "batches went on: \(beforeKill) before the kill, \(whileDown) while one replica was down")
        #expect(failed.count <= tokens.count, "at most the requests in flight at the kill fail: \(failed) (acknowledged \(beforeKill) before the kill, \(whileDown) while down, \(sent.values.map(\.count)) by viewer)")
        // Every acknowledged batch is there, whichever replica is asked.
        for port in ports { try Self.expectKept(sent, port: port, tokens: tokens) }
        // The replica killed left no lock or half a batch: both answer a new batch.
        for port in ports {
            #expect(Self.send(port: port, "PUT", "/v1/seen", token: tokens[0], body: #"{"version":1,"seen":[{"story":"ayla","item":"rocket"}]}"#).status == 200)
        }
    }
}
