import Foundation
import StoriesTestSupport
import Testing

/// Issue 51, points 4 and 5: what an operator meets. `GET /v1/health`, a token in a query
/// string kept out of the access log, the warning for a bind beyond loopback, and SIGTERM
/// while viewers' polls are held and batches are being written.
@Suite(.serialized, .ownThread) struct ServeOperationsEndToEndTests {
    static func viewer(_ folder: URL, _ name: String = "ayla") throws -> (file: String, token: String) {
        let file = folder.appendingPathComponent("viewers.txt").path
        let token = try Binary.run(["serve", "add-viewer", name, "--viewers", file]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        return (file, token)
    }

    @Test func healthSaysLiveAndReadyAndTheStoresState() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("health")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (viewers, token) = try Self.viewer(folder)
        let store = folder.appendingPathComponent("seen.sqlite")
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers, "--database", store.path])
        defer { _ = server.stop() }
        // No token needed: nginx and orchestrators ask it.
        let ready = ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/health", token: "")
        #expect(ready.status == 200 && ready.body == #"{"database":"ok","live":true,"ready":true,"status":200}"#, "\(ready)")
        #expect(ReplicasEndToEndTests.send(port: server.port, "HEAD", "/v1/health", token: "").status == 200)
        // The store moved away: not ready (503, when to try again), still live.
        try FileManager.default.moveItem(at: store, to: folder.appendingPathComponent("moved.sqlite"))
        var unready = (status: 0, body: "", head: "")
        Wait.until(10, every: 0.2) {
            unready = ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/health", token: "")
            return unready.status == 503
        }
        #expect(unready.status == 503 && unready.body.contains(#""database":"unavailable""#) && unready.body.contains(#""ready":false"#)
                && unready.head.contains("Retry-After: 2"), "\(unready)")
        // Why, in the access log's line for the 503 (the health answer does not say).
        #expect(ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/seen", token: token).status == 503)
        #expect(Wait.until(5, every: 0.05) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("GET /v1/seen 503")
        })
        let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(logged.split(separator: "\n").contains { $0.contains("GET /v1/seen 503") && $0.contains("ms (the seen store cannot be used now: ") },
                "\(logged.suffix(600))")
        let live = ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/health?live", token: "")
        #expect(live.status == 200 && live.body == #"{"live":true,"status":200}"#, "\(live)")
        // Back in place: ready again.
        try FileManager.default.moveItem(at: folder.appendingPathComponent("moved.sqlite"), to: store)
        #expect(Wait.until(10, every: 0.2) { ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/health", token: "").status == 200 })
        // Everything else still needs the token.
        #expect(ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/seen", token: "").status == 401)
        #expect(ReplicasEndToEndTests.send(port: server.port, "GET", "/v1/seen", token: token).status == 200)
    }

    @Test func aTokenInTheQueryStringIsNotLogged() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("redact")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (viewers, token) = try Self.viewer(folder)
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers, "--database", "none"])
        for target in ["/v1/feed?token=\(token)", "/v1/feed?limit=2&Token=\(token)&x=1", "/v1/home?access_token=\(token)", "/v1/feed?%74oken=\(token)",
                       "/v1/feed?limit=3;t=\(token)", "/v1/feed?\(token)", "/v1/media/\(token)"] {
            _ = ReplicasEndToEndTests.send(port: server.port, "GET", target, token: token)
        }
        #expect(server.stop() == 0)
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(!logged.contains(token.dropFirst(3).prefix(16)), "no token in the log:\n\(logged)")
        for line in ["GET /v1/feed?token=REDACTED 200", "GET /v1/feed?limit=2&Token=REDACTED&x=REDACTED 200", "GET /v1/home?access_token=REDACTED 200",
                     "GET /v1/feed?%74oken=REDACTED 200", "GET /v1/feed?limit=3;t=REDACTED 400", "GET /v1/feed?REDACTED 200", "GET /v1/media/REDACTED 404"] {
            #expect(logged.contains(line), "\(line) in:\n\(logged)")
        }
        // Each line: its time, the level, method, target, status, bytes and milliseconds.
        let first = try #require(logged.split(separator: "\n").first { $0.contains("GET /v1/feed?token=") })
        #expect(first.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info GET \S+ 200 \d+ \d+\.\dms/) != nil, "\(first)")
    }

    @Test func aBindBeyondLoopbackSaysItIsPlainHTTP() throws {
        let (folder, _) = try ServeEndToEndTests.scratch("bind")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (host, warned) in [("0.0.0.0", true), ("127.0.0.1", false)] {
            let out = folder.appendingPathComponent("\(host).out").path
            let child = try Child([try Binary.requireBuilt(), "serve", "--host", host, "--port", "0", "--database", "none"],
                                  environment: ProcessInfo.processInfo.environment, stdout: .file(out), stderr: .file(out + ".err"))
            var said = ""
            Wait.until(20) {
                said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                return said.contains("\n") || !child.isRunning
            }
            #expect(said.contains("http://\(host):"), "started: \(said)")
            #expect(child.stop() == 0)
            let errors = (try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? ""
            if warned {
                #expect(errors.contains("listening on every interface over plain HTTP") && errors.contains("Put TLS in front"), "\(errors)")
            } else {
                #expect(!errors.contains("plain HTTP"), "\(errors)")
            }
        }
    }

    /// `--tls-cert`/`--tls-key`: HTTPS itself (a certificate of its own for 127.0.0.1, checked
    /// by OpenSSL's client), no plain-HTTP warning on every interface; a key another user could
    /// change, or one that is not the certificate's, refused at start with why.
    @Test func aServerWithACertificateSpeaksHTTPS() throws {
        let (folder, _) = try ServeEndToEndTests.scratch("tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        let other = folder.appendingPathComponent("other.pem").path
        for (certificate, privateKey) in [(cert, key), (folder.appendingPathComponent("other-cert.pem").path, other)] {
            let made = TestPostgres.run(["/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", privateKey, "-out", certificate])
            try #require(made.status == 0, "openssl: \(made.output)")
            chmod(privateKey, 0o600)
        }
        let out = folder.appendingPathComponent("serve.out").path
        let server = try Child([try Binary.requireBuilt(), "serve", "--host", "0.0.0.0", "--port", "0", "--database", "none", "--tls-cert", cert, "--tls-key", key],
                               environment: ProcessInfo.processInfo.environment, stdout: .file(out), stderr: .file(out + ".err"))
        defer { server.stop() }
        var said = ""
        Wait.until(20) {
            said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            return said.contains("\n") || !server.isRunning
        }
        let at = try #require(said.range(of: "https://0.0.0.0:"), "started: \(said) \((try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? "")")
        let port = try #require(Int(said[at.upperBound...].prefix { $0.isNumber }))
        let request = folder.appendingPathComponent("request.txt").path
        try "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".write(toFile: request, atomically: true, encoding: .utf8)
        let input = open(request, O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let answer = folder.appendingPathComponent("answer.txt").path
        let client = try Child(["/usr/bin/openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", cert, "-verify_return_error", "-quiet"],
                               environment: ProcessInfo.processInfo.environment, stdin: input, stdout: .file(answer), stderr: .file(answer + ".err"))
        let status = client.wait()
        let got = (try? String(contentsOfFile: answer, encoding: .utf8)) ?? ""
        #expect(status == 0 && got.hasPrefix("HTTP/1.1 200") && got.contains(#""live":true"#), "\(status): \(got) \((try? String(contentsOfFile: answer + ".err", encoding: .utf8)) ?? "")")
        // Plain HTTP to it is not answered as HTTP.
        let plain = ReplicasEndToEndTests.send(port: port, "GET", "/v1/health", token: "")
        #expect(plain.status == 0, "\(plain)")
        #expect(server.stop() == 0)
        let errors = (try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? ""
        #expect(!errors.contains("plain HTTP"), "\(errors)")

        // Refused at start: a key its group may change, a key of another certificate.
        chmod(key, 0o660)
        let loose = try Binary.run(["serve", "--port", "0", "--database", "none", "--tls-cert", cert, "--tls-key", key])
        #expect(loose.status != 0 && loose.err.contains("--tls-key: is writable by its group"), "\(loose.err)")
        chmod(key, 0o600)
        let mismatched = try Binary.run(["serve", "--port", "0", "--database", "none", "--tls-cert", cert, "--tls-key", other])
        #expect(mismatched.status != 0 && mismatched.err.contains("--tls-key: does not go with the certificate"), "\(mismatched.err)")
        let alone = try Binary.run(["serve", "--port", "0", "--tls-cert", cert])
        #expect(alone.status != 0 && alone.err.contains("--tls-cert and --tls-key go together"), "\(alone.err)")
    }

    /// SIGTERM while 40 viewers' polls wait at the server and four viewers write batches:
    /// every poll is answered at once with a whole answer (200, JSON), the server exits 0,
    /// and every batch it acknowledged is in the store when it starts again.
    @Test func sigtermAnswersHeldPollsAndLosesNoBatch() throws {
        let (folder, _) = try ServeEndToEndTests.scratch("sigterm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewersFile = folder.appendingPathComponent("viewers.txt").path
        var tokens: [String] = []
        for name in ["ayla", "bo", "chen", "dara", "eve"] {
            tokens.append(try Binary.run(["serve", "add-viewer", name, "--viewers", viewersFile]).out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let watcher = tokens.removeLast() // records nothing: her polls wait
        let store = folder.appendingPathComponent("seen.sqlite").path
        let port = freeLoopbackPort()
        let server = try ReplicasEndToEndTests.replica(port: port, database: store, viewers: viewersFile, folder: folder, says: "seen state in \(store)")
        let load = ReplicasEndToEndTests.Load(port: port, tokens: tokens)
        _ = load.acknowledged(after: 0.5, moreThan: 20)
        // Polls of a viewer who records nothing: they wait (up to 30 s) until the server stops.
        let polls = Polls(port: port, token: watcher, count: 40)
        try #require(Wait.until(20, every: 0.05) { Self.sockets(of: server.pid) >= 40 + 4 }, "the polls are held: \(Self.sockets(of: server.pid)) sockets")
        let stopping = ReplicasEndToEndTests.Load.uptime()
        server.signal(SIGTERM)
        let status = server.wait()
        let took = ReplicasEndToEndTests.Load.uptime() - stopping
        let answers = polls.finish()
        let (sent, _) = load.finish()
        #expect(status == 0 && took < 5, "exit status \(status) after \(took) s")
        #expect(answers.count == 40 && answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") && $0.hasSuffix("}") }, "\(answers.filter { !$0.hasPrefix("HTTP/1.1 200") }.prefix(3))")
        #expect(answers.allSatisfy { $0.contains(#""next":"#) })
        let again = try ReplicasEndToEndTests.replica(port: port, database: store, viewers: viewersFile, folder: folder, says: "seen state in \(store)")
        defer { again.stop() }
        try ReplicasEndToEndTests.expectKept(sent, port: port, tokens: tokens)
    }

    /// Polls whose clients go away are given up at once: their sockets closed and their
    /// answers in the log, not held to the end of their 30 s wait (churn would pile them up).
    @Test func aPollWhoseClientLeftIsGivenUpAtOnce() throws {
        let (folder, _) = try ServeEndToEndTests.scratch("gone")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (viewers, token) = try Self.viewer(folder)
        let store = folder.appendingPathComponent("seen.sqlite").path
        let port = freeLoopbackPort()
        let server = try ReplicasEndToEndTests.replica(port: port, database: store, viewers: viewers, folder: folder, says: "seen state in \(store)")
        defer { server.stop() }
        let idle = Self.sockets(of: server.pid)
        var fds: [Int32] = []
        for _ in 0..<20 {
            guard let fd = loopbackSocket(port: port) else { continue }
            let request = Array("GET /v1/seen?since=0&wait=30 HTTP/1.1\r\nHost: stories\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            fds.append(fd)
        }
        try #require(fds.count == 20 && Wait.until(10, every: 0.05) { Self.sockets(of: server.pid) >= idle + 20 }, "20 polls held")
        let left = ReplicasEndToEndTests.Load.uptime()
        for fd in fds { close(fd) }
        let given = Wait.until(10, every: 0.05) { Self.sockets(of: server.pid) <= idle }
        let took = ReplicasEndToEndTests.Load.uptime() - left
        #expect(given && took < 5, "the server's sockets back to \(idle) \(String(format: "%.2f", took)) s after the clients left (now \(Self.sockets(of: server.pid)))")
        let logged = (try? String(contentsOf: folder.appendingPathComponent("replica-\(port).log"), encoding: .utf8)) ?? ""
        #expect(logged.components(separatedBy: "GET /v1/seen?since=0&wait=30 200").count - 1 == 20, "\(logged.suffix(400))")
    }

    /// Sockets the process holds (from /proc).
    static func sockets(of pid: pid_t) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "").hasPrefix("socket:") }.count
    }

    /// Long polls on threads of their own, each one request; their whole answers.
    /// `@unchecked Sendable`: `lock` guards `answers`.
    final class Polls: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [String] = []
        private var threads: [Thread] = []

        init(port: Int, token: String, count: Int) {
            for _ in 0..<count {
                let thread = Thread { [self] in
                    let request = "GET /v1/seen?since=0&wait=30 HTTP/1.1\r\nHost: stories\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"
                    let answer = ServeEndToEndTests.request(port: port, request) ?? ""
                    lock.withLock { answers.append(answer) }
                }
                thread.start()
                threads.append(thread)
            }
        }

        func finish() -> [String] {
            Wait.until(30) { threads.allSatisfy(\.isFinished) }
            return lock.withLock { answers }
        }
    }
}
