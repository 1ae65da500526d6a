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

    @Test func servesTheDemoFeedAndStopsCleanlyOnSIGTERM() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.requireBuilt())
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-e2e-\(UUID().uuidString).log")
        process.arguments = ["serve", "--port", "0", "--log", log.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // "stories serve: Demo stories on http://127.0.0.1:PORT (…)"
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix("stories serve: Demo stories on http://127.0.0.1:"), "\(text)")
        let address = try #require(text.range(of: "127.0.0.1:"))
        let port = try #require(Int(text[address.upperBound...].prefix { $0.isNumber }))

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
