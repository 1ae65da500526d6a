import Foundation
import StoriesTestSupport
import Testing

/// `stories serve` as a person starts it: it says where it listens, answers HTTP over a
/// real socket, and a SIGTERM lets it finish and exit 0.
@Suite(.serialized, .ownThread) struct ServeEndToEndTests {
    /// One HTTP/1.1 request over a plain socket; the whole answer as text.
    static func get(port: Int, _ request: String) throws -> String {
        try #require(Self.request(port: port, request), "connect to 127.0.0.1:\(port)")
    }

    /// The same, nil when nothing listens there (yet).
    static func request(port: Int, _ request: String) -> String? {
        guard let fd = loopbackSocket(port: port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// `stories serve` started as a person would; stopped with SIGTERM.
    final class Server {
        let process: Child
        let port: Int
        let firstLine: String

        /// Where standard output went (and standard error, `.err` after it), when kept.
        let output: URL?

        /// `output`: keep what it prints there (and its errors beside), for the test to read.
        init(port wanted: Int = 0, log: URL, shaping: [String] = [], directory: String? = nil, environment: [String: String] = [:],
             output: URL? = nil) throws {
            // Its first line goes to a file, read until it is there.
            let outFile = output ?? log.deletingLastPathComponent().appendingPathComponent("serve-\(UUID().uuidString).out")
            self.output = output
            defer { if output == nil { try? FileManager.default.removeItem(at: outFile) } }
            // Its seen store in the test's folder, never the machine's own state folder.
            var base = ProcessInfo.processInfo.environment
            base["XDG_STATE_HOME"] = log.deletingLastPathComponent().appendingPathComponent("serve-state").path
            process = try Child([try Binary.requireBuilt(), "serve", "--port", String(wanted), "--log", log.path] + shaping + (directory.map { [$0] } ?? []),
                                environment: base.merging(environment) { $1 }, stdout: .file(outFile.path),
                                stderr: output.map { .file($0.path + ".err") } ?? .null)
            // "stories serve: Demo stories on http://127.0.0.1:PORT (…)"
            var text = ""
            let child = process
            Wait.until(20) {
                text = (try? String(contentsOf: outFile, encoding: .utf8)) ?? ""
                return text.contains("\n") || !child.isRunning
            }
            firstLine = text
            let address = try #require(firstLine.range(of: "127.0.0.1:"), "stories serve did not start: '\(firstLine)'")
            port = try #require(Int(firstLine[address.upperBound...].prefix { $0.isNumber }))
        }

        func stop() -> Int32 { process.stop() }
    }

    @Test func servesTheDemoFeedAndStopsCleanlyOnSIGTERM() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-e2e-\(UUID().uuidString).log")
        let server = try Server(log: log)
        let process = server.process
        let text = server.firstLine
        #expect(text.hasPrefix("stories serve: Demo stories on http://127.0.0.1:"), "\(text)")
        // SIGINT and SIGTERM reach the graceful shutdown: no thread can take them first.
        #expect(try threadsNotBlocking([SIGINT, SIGTERM], in: process.pid) == [])
        let port = server.port

        let page = try Self.get(port: port, "GET /v1/feed?limit=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(page.hasPrefix("HTTP/1.1 200 OK"))
        #expect(page.contains("\"id\":\"ayla\"") && page.contains("\"nextCursor\":\"2\""))
        let tag = try #require(page.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5)
            .trimmingCharacters(in: .whitespaces))
        let revalidated = try Self.get(port: port, "GET /v1/feed?limit=2 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(tag)\r\nConnection: close\r\n\r\n")
        #expect(revalidated.hasPrefix("HTTP/1.1 304"))
        let traversal = try Self.get(port: port, "GET /v1/media/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(traversal.hasPrefix("HTTP/1.1 404") && !traversal.contains("root:"))

        // Oversize headers, a body where none is wanted, garbage: refused, and the server goes on.
        let bigHeader = try Self.get(port: port, "GET /v1/feed HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\nConnection: close\r\n\r\n")
        #expect(bigHeader.hasPrefix("HTTP/1.1 400"), "\(bigHeader.prefix(80))")
        let manyHeaders = try Self.get(port: port, "GET /v1/feed HTTP/1.1\r\nHost: x\r\n" + (0..<20_000).map { "X-\($0): y\r\n" }.joined() + "Connection: close\r\n\r\n")
        #expect(manyHeaders.hasPrefix("HTTP/1.1 400"))
        let post = try Self.get(port: port, "POST /v1/feed HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n" + String(repeating: "z", count: 10_000))
        #expect(post.hasPrefix("HTTP/1.1 405"))
        let garbage = try Self.get(port: port, "GARBAGE\r\n\r\n")
        #expect(garbage.hasPrefix("HTTP/1.1 400"))
        #expect(try Self.get(port: port, "GET /v1/home HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))

        #expect(process.stop() == 0, "SIGTERM: finish, then exit 0")
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains("GET /v1/feed?limit=2 200"), "the access log: \(logged)")
        #expect(logged.contains("GET /v1/media/../../../../etc/passwd 404"))
        try? FileManager.default.removeItem(at: log)
    }

    /// The viewer over real HTTP: the ring row and a story come from the server; with the
    /// server killed the app goes on from its cache and says so; with it back, it recovers.
    @Test func theAppBrowsesOverHTTPSurvivesTheServerAndRecovers() throws {
        let (folder, log) = try Self.scratch("serve-app")
        defer { try? FileManager.default.removeItem(at: folder) }
        var server = try Server(log: log)
        let port = server.port
        // 60 columns: five bubbles in view and five beyond, the first page (at 100 the row
        // would ask for the second at once, and this test wants it asked for with the server gone).
        let tmux = try Tmux(width: 60, height: 30)
        try tmux.type("XDG_CACHE_HOME=\(folder.path)/cache \(try Binary.requireBuilt()) --server http://127.0.0.1:\(port)")
        try tmux.waitFor("the ring row from the server") { $0.first?.contains("Demo stories") == true && $0.prefix(7).contains { $0.contains("╭") || $0.contains("┏") } }
        // The server-driven sections below the row, from GET /v1/home.
        try tmux.waitFor(text: "Featured")
        try tmux.waitFor(text: "Liftoff · a launch in")
        #expect(try String(contentsOf: log, encoding: .utf8).contains("GET /v1/home 200"))
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        #expect(try String(contentsOf: log, encoding: .utf8).contains("GET /v1/stories/ayla 200"))
        try tmux.press("Escape")
        try tmux.waitFor("back on the row") { $0.prefix(7).contains { $0.contains("╭") || $0.contains("┏") } }

        #expect(server.stop() == 0)
        // Mika's story was loaded with the first page (preloading): it opens from the cache.
        try tmux.press("Right")
        try tmux.press("Enter")
        try tmux.waitFor(text: "Mika")
        try tmux.waitFor(text: "1/3")
        try tmux.press("Escape")
        // Far along the row the next page is needed: the server is gone, and the app says so.
        for _ in 0..<9 { try tmux.press("Right") }
        try tmux.waitFor("the page failing, said on screen", timeout: 30) { lines in
            lines.contains { $0.contains("⚠") && ($0.contains("reach the server") || $0.contains("offline")) }
        }
        #expect(tmux.text.contains("10+ stories"), "what it has stays")
        #expect(tmux.text.contains("Featured"), "the sections stay too")

        server = try Self.restart(port: port, log: log)
        try tmux.waitFor("the next page once the server is back", timeout: 60) { $0.first?.hasSuffix(" 11 stories") == true }
        let secondPage = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("cursor=10") }
        #expect(secondPage.count == 1 && secondPage.first?.contains(" 200 ") == true,
                "the second page was asked for only once the server was back: \(secondPage)")
        try tmux.press("q")
        #expect(server.stop() == 0)
    }

    /// Issue 29, point 6: a server that comes up after the app leaves no stale line — the
    /// home's "trying again" goes from the screen and from `p` once the sections load; a
    /// wrong address (a 404) is said once, with its URL, and not asked again.
    @Test func aServerThatComesLaterLeavesNoStaleLineAndAWrongAddressIsSaidOnce() throws {
        let (folder, log) = try Self.scratch("serve-late")
        defer { try? FileManager.default.removeItem(at: folder) }
        let probe = try Server(log: log)
        let port = probe.port
        #expect(probe.stop() == 0) // a port nobody listens on now
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("XDG_CACHE_HOME=\(folder.path)/cache \(try Binary.requireBuilt()) --server http://127.0.0.1:\(port)")
        try tmux.waitFor(text: "Trying again")
        let server = try Self.restart(port: port, log: log)
        try tmux.waitFor(text: "Featured", timeout: 60)
        try tmux.waitFor("no line about what has since loaded") { lines in
            let text = lines.joined(separator: "\n")
            return !text.contains("did not load") && !text.contains("No answer") && !text.contains("trying again")
        }
        try tmux.press("p")
        try tmux.waitFor(text: "Esc close")
        #expect(!tmux.text.contains("home sections did not load"), "the problems list holds no line that is no longer true")
        try tmux.press("Escape", "q")
        try tmux.waitForPrompt()

        // The right server, the wrong address: its 404 is said once, with the URL.
        try tmux.type("XDG_CACHE_HOME=\(folder.path)/cache \(try Binary.requireBuilt()) --server http://127.0.0.1:\(port)/wrong")
        try tmux.waitFor(text: "(not asked again)")
        let screen = try tmux.screen()
        let row = try #require(screen.firstIndex { $0.contains("(not asked again)") })
        let line = screen[row] + screen[row + 1] // two lines: the address and its answer, whole
        #expect(line.contains("/wrong/v1/feed") && line.contains("404"), "\(line)")
        #expect(!tmux.text.contains("Trying again"))
        let wrongAsks = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("/wrong/v1/feed") } }
        // A retry would have come within four seconds (1 s, then 2 s): none comes.
        let held = Wait.holds(for: 4, every: 0.1) { wrongAsks().count <= 1 }
        #expect(held)
        let asked = wrongAsks()
        #expect(asked.count == 1, "asked once: \(asked)")
        try tmux.press("q")
        try tmux.waitForPrompt()
        #expect(server.stop() == 0)
    }

    /// A fresh folder for one test (its caller removes it) and the server's log in it.
    static func scratch(_ name: String) throws -> (folder: URL, log: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("serve.log"))
    }

    /// The same port again after a stop (its old socket may take a moment to be free).
    static func restart(port: Int, log: URL, shaping: [String] = []) throws -> Server {
        var server: Server?
        Wait.until(15, every: 0.25) {
            server = try? Server(port: port, log: log, shaping: shaping)
            return server != nil
        }
        return try #require(server, "stories serve could not listen on port \(port) again")
    }

    /// A warm start draws the row its cache kept before the server has answered, and the
    /// server's answer (a 304) then confirms it. A cold start against a server that takes
    /// long says so on the loading line, and the row comes when the answer does.
    @Test func aWarmStartShowsTheCachedRowBeforeTheServerAnswers() throws {
        let (folder, log) = try Self.scratch("serve-warm")
        defer { try? FileManager.default.removeItem(at: folder) }
        var server = try Server(log: log)
        let port = server.port
        let tmux = try Tmux(width: 100, height: 30)
        let command = "XDG_CACHE_HOME=\(folder.path)/cache XDG_STATE_HOME=\(folder.path)/state \(try Binary.requireBuilt()) --server http://127.0.0.1:\(port)"
        func ringRow(_ lines: [String]) -> Bool { lines.first?.contains("Demo stories") == true && lines.prefix(7).contains { $0.contains("╭") || $0.contains("┏") } }
        try tmux.type(command)
        try tmux.waitFor("the ring row, fetched", ringRow)
        try tmux.press("q")
        try tmux.waitForPrompt()
        #expect(server.stop() == 0)

        // Every answer now takes 4 s.
        server = try Self.restart(port: port, log: log, shaping: ["--latency", "4s"])
        let started = Date()
        try tmux.type(command)
        try tmux.waitFor("the cached row", timeout: 3, ringRow)
        let shownAfter = Date().timeIntervalSince(started)
        let answered = try String(contentsOf: log, encoding: .utf8).components(separatedBy: "GET /v1/feed?limit=10 ").count - 1
        #expect(answered == 1, "the row was drawn \(shownAfter) s in, before the server answered the second run")
        try tmux.waitFor("the server's 304 for the first page", timeout: 15) { _ in
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("GET /v1/feed?limit=10 304")
        }
        #expect(ringRow(try tmux.screen()) && !tmux.text.contains("⚠"), "the row stays, with no problem line")
        try tmux.press("q")
        try tmux.waitForPrompt()

        // Cold (an empty cache) against the slow server: the loading line says who is late.
        try tmux.type(command.replacingOccurrences(of: "/cache ", with: "/cold-cache "))
        try tmux.waitFor(text: "no answer from 127.0.0.1:\(port) in 3 s, still waiting", timeout: 8)
        try tmux.waitFor("the row when the answer comes", timeout: 15, ringRow)
        try tmux.press("q")
        #expect(server.stop() == 0)
    }

    /// The start of an nginx configuration that keeps everything in `folder` and runs in the
    /// foreground; the `http` block is left open for the caller's servers.
    static func nginxConf(folder: URL) -> String {
        """
        daemon off;
        worker_processes 1;
        pid \(folder.path)/nginx.pid;
        error_log \(folder.path)/error.log;
        events { worker_connections 256; }
        http {
            access_log off;
            client_body_temp_path \(folder.path)/body;
            proxy_temp_path \(folder.path)/proxy;
            fastcgi_temp_path \(folder.path)/fastcgi;
            uwsgi_temp_path \(folder.path)/uwsgi;
            scgi_temp_path \(folder.path)/scgi;

        """
    }

    /// docs/deploy.md's configuration, on loopback: nginx in front of `stories serve`.
    @Test func aSecondClientIsServedFromNginxsCacheAndRevalidationsAre304() throws {
        let nginx = try #require(["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                 "nginx is not installed (scripts/deps installs it)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("cache"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("serve.log")
        let server = try Server(log: log)
        defer { _ = server.stop() }

        var front: Child?
        var frontPort = 0
        for _ in 0..<10 where front == nil {
            let port = Int.random(in: 20000...60000)
            let conf = Self.nginxConf(folder: folder) + """
                proxy_cache_path \(folder.path)/cache levels=1:2 keys_zone=stories:1m;
                server {
                    listen 127.0.0.1:\(port);
                    location /v1/ {
                        proxy_pass http://127.0.0.1:\(server.port);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_cache stories;
                        proxy_cache_key $scheme$host$request_uri$http_accept_encoding;
                        proxy_ignore_headers Cache-Control;
                        proxy_cache_valid 200 1s;
                        proxy_cache_revalidate on;
                        proxy_cache_lock on;
                        add_header X-Cache-Status $upstream_cache_status always;
                    }
                }
            }
            """
            let confFile = folder.appendingPathComponent("nginx.conf")
            try conf.write(to: confFile, atomically: true, encoding: .utf8)
            let process = try Child([nginx, "-p", folder.path, "-c", confFile.path], environment: ProcessInfo.processInfo.environment)
            // Up when it answers; gone at once when the port was taken.
            let answers = Wait.until(15, every: 0.1) {
                Self.request(port: port, "GET /v1/home HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?.hasPrefix("HTTP/1.1") == true
                    || !process.isRunning
            }
            if answers, process.isRunning {
                front = process
                frontPort = port
            }
            if front == nil { _ = process.stop() }
        }
        let proxy = try #require(front, "nginx did not start: \((try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")")
        defer { _ = proxy.stop() }

        func header(_ answer: String, _ name: String) -> String? {
            answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        func feed(_ extra: String = "") throws -> String {
            try Self.get(port: frontPort, "GET /v1/feed?limit=4 HTTP/1.1\r\nHost: x\r\n\(extra)Connection: close\r\n\r\n")
        }
        let first = try feed()
        #expect(first.hasPrefix("HTTP/1.1 200") && header(first, "X-Cache-Status") == "MISS", "\(first.prefix(400))")
        let second = try feed()
        #expect(second.hasPrefix("HTTP/1.1 200") && header(second, "X-Cache-Status") == "HIT", "the second client: from nginx's cache")
        let tag = try #require(header(first, "ETag"))
        #expect(header(second, "ETag") == tag)
        let conditional = try feed("If-None-Match: \(tag)\r\n")
        #expect(conditional.hasPrefix("HTTP/1.1 304"), "nginx answers the app's own revalidation")
        // Past proxy_cache_valid's second (nginx counts whole seconds) the answer is no
        // longer a HIT (a HIT reaches no one upstream).
        var later = ""
        try Wait.until(10, every: 0.2) {
            later = try feed()
            return header(later, "X-Cache-Status") != "HIT"
        }
        #expect(header(later, "X-Cache-Status") == "REVALIDATED", "\(later.prefix(400))")
        let upstream = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("/v1/feed?limit=4") }
        #expect(upstream.count == 2, "one fetch, one revalidation reached stories serve: \(upstream)")
        #expect(upstream.last?.contains(" 304 ") == true, "and the revalidation was answered 304")
    }

    @Test func aBadFolderOrFlagIsOneClearLine() throws {
        let missing = try Binary.run(["serve", "/nonexistent/feed", "--port", "0"])
        #expect(missing.status == 1)
        #expect(missing.err == "stories: /nonexistent/feed: no such file or folder\n")
        let port = try Binary.run(["serve", "--port", "70000"])
        #expect(port.status != 0 && port.err.contains("--port must be 0 to 65535"))
        let latency = try Binary.run(["serve", "--latency", "soon"])
        #expect(latency.status != 0 && latency.err.contains("--latency: 'soon' is not a time"))
        // Numbers past any sense are refused before they are used, not overflowed.
        for (flag, value) in [("--latency", "1e300s"), ("--bandwidth", "0"), ("--bandwidth", "1e300")] {
            let result = try Binary.run(["serve", flag, value])
            #expect(result.status != 0 && result.err.contains("\(flag): '\(value)' is not a"), "\(flag) \(value): \(result.err)")
        }
        // A server has no timeout; its help does not offer one.
        let help = try Binary.run(["serve", "--help"])
        #expect(help.out.contains("--latency") && !help.out.contains("--timeout"))
        #expect(try Binary.run(["serve", "--timeout", "5s"]).err.contains("Unknown option '--timeout'"))
    }
}
