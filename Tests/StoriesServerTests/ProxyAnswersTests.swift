import Foundation
import StoriesCore
import StoriesHTTP
import StoriesTestSupport
import Testing

/// Issue 51, point 4: what a proxy says when no replica can answer — 502, 503 or 504 — the
/// terminal's sync takes alike: it keeps its batch, waits on the one backoff, and sends the
/// same batch again until it is taken. The server here is a script on a raw socket.
@Suite(.ownThread) struct ProxyAnswersTests {
    /// Answers the PUTs with `statuses` in turn, then 200; every GET with nothing new.
    /// `@unchecked Sendable`: `bodies` and `times` only under `lock`.
    final class Scripted: @unchecked Sendable {
        let port: Int
        private let listener: Int32
        private let lock = NSLock()
        private var bodies: [String] = []
        private var times: [Double] = []
        private var statuses: [Int]

        struct NoSocket: Error {}

        init(_ statuses: [Int]) throws {
            self.statuses = statuses
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { close(fd); throw NoSocket() }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread { [self] in accepting() }.start()
        }

        var puts: [(body: String, at: Double)] { lock.withLock { Array(zip(bodies, times)) } }

        func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

        private func accepting() {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                Thread { [self] in serve(fd) }.start()
            }
        }

        private func serve(_ fd: Int32) {
            defer { close(fd) }
            var input = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                while let end = input.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: input[..<end.lowerBound], as: UTF8.self)
                    let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                    guard input.count >= end.upperBound + length else { break }
                    let body = String(decoding: input[end.upperBound..<end.upperBound + length], as: UTF8.self)
                    input.removeFirst(end.upperBound + length)
                    let status: Int, answer: Data
                    if head.hasPrefix("PUT") {
                        status = lock.withLock {
                            bodies.append(body)
                            times.append(Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
                            return statuses.isEmpty ? 200 : statuses.removeFirst()
                        }
                        answer = status == 200 ? SeenWire.receipt(SeenWire.Receipt(next: 1, recorded: 1, ignored: []))
                            : Data(#"{"error":"no replica answered","status":\#(status)}"#.utf8)
                    } else {
                        status = 200
                        answer = SeenWire.changes(SeenWire.Changes(entries: [], tooltips: [], next: 0, more: false))
                    }
                    let out = Array("HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(answer.count)\r\n\r\n".utf8) + Array(answer)
                    _ = out.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return }
                input.append(contentsOf: buffer[0..<n])
            }
        }
    }

    @Test func aBatchMet502And503And504IsKeptAndSentAgainAfterTheBackoff() async throws {
        let server = try Scripted([502, 503, 504])
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let sync = SeenSync(server: url, authorization: nil, wait: 1)
        let heard = SeenSyncTests.Heard()
        sync.start(local: SeenSyncTests.seen([]), arrived: heard.arrived, problem: heard.said)
        sync.push(SeenSyncTests.seen([("ayla", "astronaut")], tooltips: ["tip"]))
        try await SeenSyncTests.wait("the batch taken on its fourth try", timeout: 30) { server.puts.count >= 4 && heard.problems.last == .some(nil) }
        let puts = server.puts
        #expect(Set(puts.map(\.body)).count == 1 && puts[0].body.contains("astronaut") && puts[0].body.contains("tip"), "the same batch each time: \(puts.map(\.body))")
        // The one backoff: 1 s, then 2 s, then 4 s (a little early or late for the timers).
        let gaps = zip(puts, puts.dropFirst()).map { $1.at - $0.at }
        #expect(gaps.count == 3 && gaps[0] >= 0.9 && gaps[1] >= 1.9 && gaps[2] >= 3.9, "waits between tries: \(gaps)")
        #expect(heard.problems.contains { $0?.contains("the server answered 502") == true }
                && heard.problems.contains { $0?.contains("the server answered 504") == true }, "\(heard.problems)")
        sync.finish(timeout: 1)
    }
}
