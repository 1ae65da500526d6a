import Foundation
import Testing

/// `stories serve` as a person starts it: it says where it listens, answers HTTP over a
/// real socket, and a SIGTERM lets it finish and exit 0.
@Suite(.serialized) struct ServeEndToEndTests {
    /// One HTTP/1.1 request over a plain socket; the whole answer as text.
    static func get(port: Int, _ request: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0, "connect to 127.0.0.1:\(port)")
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
        let process = Process()
        let port: Int
        let firstLine: String

        init(port wanted: Int = 0, log: URL) throws {
            process.executableURL = URL(fileURLWithPath: try Binary.requireBuilt())
            process.arguments = ["serve", "--port", String(wanted), "--log", log.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "stories serve: Demo stories on http://127.0.0.1:PORT (…)"
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            firstLine = String(decoding: line, as: UTF8.self)
            let address = try #require(firstLine.range(of: "127.0.0.1:"), "\(firstLine)")
            port = try #require(Int(firstLine[address.upperBound...].prefix { $0.isNumber }))
        }

        func stop() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationReason == .exit ? process.terminationStatus : -1
        }

        deinit { if process.isRunning { process.terminate() } }
    }

    @Test func servesTheDemoFeedAndStopsCleanlyOnSIGTERM() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-e2e-\(UUID().uuidString).log")
        let server = try Server(log: log)
        let process = server.process
        let text = server.firstLine
        #expect(text.hasPrefix("stories serve: Demo stories on http://127.0.0.1:"), "\(text)")
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

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "SIGTERM: finish, then exit 0")
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains("GET /v1/feed?limit=2 200"), "the access log: \(logged)")
        #expect(logged.contains("GET /v1/media/../../../../etc/passwd 404"))
        try? FileManager.default.removeItem(at: log)
    }

    /// The viewer over real HTTP: the ring row and a story come from the server; with the
    /// server killed the app goes on from its cache and says so; with it back, it recovers.
    @Test func theAppBrowsesOverHTTPSurvivesTheServerAndRecovers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-app-\(UUID().uuidString)")
        let log = folder.appendingPathComponent("serve.log")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var server = try Server(log: log)
        let port = server.port
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("XDG_CACHE_HOME=\(folder.path)/cache \(try Binary.requireBuilt()) --server http://127.0.0.1:\(port)")
        try tmux.waitFor("the ring row from the server") { $0.first?.contains("Demo stories") == true && $0.contains { $0.contains("╭") } }
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        #expect(try String(contentsOf: log, encoding: .utf8).contains("GET /v1/stories/ayla 200"))
        try tmux.press("Escape")
        try tmux.waitFor("back on the row") { $0.contains { $0.contains("╭") } }

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

        server = try Server(port: port, log: log)
        try tmux.waitFor("the next page once the server is back", timeout: 60) { $0.first?.hasSuffix(" 11 stories") == true }
        try tmux.press("q")
        #expect(server.stop() == 0)
    }

    @Test func aBadFolderOrFlagIsOneClearLine() throws {
        let missing = try Binary.run(["serve", "/nonexistent/feed", "--port", "0"])
        #expect(missing.status == 1)
        #expect(missing.err == "stories: /nonexistent/feed: no such file or folder\n")
        let port = try Binary.run(["serve", "--port", "70000"])
        #expect(port.status != 0 && port.err.contains("--port must be 0 to 65535"))
        let latency = try Binary.run(["serve", "--latency", "soon"])
        #expect(latency.status != 0 && latency.err.contains("--latency: 'soon' is not a time"))
    }
}
