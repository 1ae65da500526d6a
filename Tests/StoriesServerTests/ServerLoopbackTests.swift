import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoriesAssets
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// The real server on a loopback socket (HummingbirdTesting's live mode: a free port, a
/// real HTTP/1.1 client): what goes over the wire, headers and all.
@Suite(.ownThread) struct ServerLoopbackTests {
    func server(_ configure: (inout FeedServer.Options) -> Void = { _ in }) throws -> FeedServer {
        var options = FeedServer.Options()
        options.port = 0
        configure(&options)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-log-\(UUID().uuidString)").path
        return try FeedServer(directory: try #require(DemoFeed.directory), options: options, logFile: log)
    }

    @Test func aPageThenItsRevalidationOverTheWire() async throws {
        try await server().application().test(.live) { client in
            let first = try await client.execute(uri: "/v1/feed?limit=3", method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "application/json; charset=utf-8")
            #expect(first.headers[.cacheControl] == "no-cache")
            let tag = try #require(first.headers[.eTag])
            let page = try #require(try JSONSerialization.jsonObject(with: Data(buffer: first.body)) as? [String: Any])
            #expect((page["stories"] as? [Any])?.count == 3 && page["nextCursor"] as? String == "3")

            let again = try await client.execute(uri: "/v1/feed?limit=3", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0, "a 304 costs no body")
            #expect(again.headers[.eTag] == tag)

            let next = try await client.execute(uri: "/v1/feed?limit=3&cursor=3", method: .get)
            let nextPage = try #require(try JSONSerialization.jsonObject(with: Data(buffer: next.body)) as? [String: Any])
            #expect((nextPage["stories"] as? [[String: Any]])?.first?["id"] as? String == "layla")
        }
    }

    @Test func headRangeAndErrorsOverTheWire() async throws {
        try await server().application().test(.live) { client in
            let head = try await client.execute(uri: "/v1/media/media/chelsea.jpg", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == "14343")

            let part = try await client.execute(uri: "/v1/media/media/deep-field.mp4", method: .get, headers: [.range: "bytes=4-11"])
            #expect(part.status == .partialContent)
            #expect(String(buffer: part.body) == "ftypisom")
            #expect(part.headers[.contentRange]?.hasPrefix("bytes 4-11/") == true)

            let missing = try await client.execute(uri: "/v1/stories/nobody", method: .get)
            #expect(missing.status == .notFound)
            #expect(String(buffer: missing.body).contains(#""error":"no story 'nobody'""#))

            let escape = try await client.execute(uri: "/v1/media/../feed.json", method: .get)
            #expect(escape.status == .notFound)
            let escape2 = try await client.execute(uri: "/v1/media/%2e%2e/%2e%2e/%2e%2e/etc/passwd", method: .get)
            #expect(escape2.status == .notFound && !String(buffer: escape2.body).contains("root:"))
        }
    }

    @Test func failureSharingAndLatencyShapeTheAnswers() async throws {
        try await server { $0.network.failureRate = 1 }.application().test(.live) { client in
            let response = try await client.execute(uri: "/v1/feed", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(String(buffer: response.body).contains("failed on purpose (network profile"))
        }
        try await server { $0.network.latency = 0.2 }.application().test(.live) { client in
            let start = ContinuousClock.now
            _ = try await client.execute(uri: "/v1/home", method: .get)
            #expect(ContinuousClock.now - start >= .milliseconds(200), "the answer waited for --latency")
        }
    }
}
