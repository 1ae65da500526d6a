@testable import StoriesFeedIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StoriesAssets
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesHTTP
@testable import StoriesServer

/// Runs blocking `FeedSource` calls on a serial queue of their own, as `FeedClient` does
/// for a source that waits on the network (never on the global pool, which they would stall).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "test.http").async { continuation.resume(with: Result { try work() }) }
    }
}

/// The client against a real `stories serve` on loopback, and against servers that lie.
@Suite(.serialized, .ownThread) struct HTTPFeedTests {
    let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("http-cache-\(UUID().uuidString)")
    let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("http-log-\(UUID().uuidString)").path

    func server() throws -> FeedServer {
        var options = FeedServer.Options()
        options.port = 0
        return try FeedServer(directory: try #require(DemoFeed.directory), options: options, logFile: logFile)
    }

    @Test func readsTheDemoFeedOverHTTPAndRevalidatesWithItsCache() async throws {
        let demo = try #require(DemoFeed.directory)
        let cache = HTTPCache(directory: cacheFolder)
        try await server().application().test(.live) { client in
            let address = "http://127.0.0.1:\(try #require(client.port))"
            let (page, story, photo) = try await offThePool {
                let feed = try HTTPFeed(server: address, cache: cache)
                #expect(feed.title == address.replacingOccurrences(of: "http://", with: ""),
                        "cold: nothing asked yet, the address stands for the title")
                #expect(feed.cachedFirstPage(limit: 10) == nil)
                return (try feed.page(after: nil, limit: 10), try feed.story(id: "mika"), try feed.media(at: "media/chelsea.jpg", maxBytes: 1 << 20))
            }
            #expect(page.title == "Demo stories", "the first page brings the title")
            let local = try FeedFolder(directory: demo)
            #expect(page.stories == (try local.page(after: nil, limit: 10)).stories, "the same summaries as the folder")
            #expect(page.nextCursor == "10")
            #expect(story.story == (try local.story(id: "mika")).story)
            #expect(photo == (try Data(contentsOf: demo.appendingPathComponent("media/chelsea.jpg"))))

            // A second start with the same cache: the row and its title come from the cache
            // with no request; the page is then revalidated and answered 304.
            let (cached, again, photoAgain) = try await offThePool {
                let feed = try HTTPFeed(server: address, cache: cache)
                #expect(feed.title == address.replacingOccurrences(of: "http://", with: ""), "nothing read at init")
                let cached = feed.cachedFirstPage(limit: 10)
                return (cached, try feed.page(after: nil, limit: 10), try feed.media(at: "media/chelsea.jpg", maxBytes: 1 << 20))
            }
            #expect(cached?.stories == page.stories && cached?.title == "Demo stories" && cached?.nextCursor == "10")
            #expect(again.stories == page.stories)
            #expect(photoAgain == photo)
            let log = try String(contentsOfFile: logFile, encoding: .utf8)
            #expect(log.contains("GET /v1/feed?limit=10 304"), "\(log)")
            // The page travelled gzip: fewer bytes on the wire than the document kept.
            let kept = try #require(cache.entry(for: address + "/v1/feed?limit=10")).body.count
            let line = try #require(log.split(separator: "\n").first { $0.contains("GET /v1/feed?limit=10 200") })
            let sent = try #require(line.split(separator: " ").drop { $0 != "200" }.dropFirst().first.flatMap { Int($0) })
            #expect(sent * 2 < kept, "\(sent) bytes sent for a \(kept)-byte page")
            #expect(log.components(separatedBy: "GET /v1/feed?limit=10 200").count == 2,
                    "a cold start asks for the first page once (the title and the row come from the same answer)")
            #expect(log.components(separatedBy: "/v1/media/media/chelsea.jpg").count == 2,
                    "media fetched within a day is not even asked for again: one request in the log, \(log)")
        }
        // Another address has nothing cached: the page fails with the reason.
        let refused = await #expect(throws: FeedError.self) {
            try await offThePool { try HTTPFeed(server: "http://127.0.0.1:9", cache: cache).page(after: nil, limit: 10) }
        }
        #expect(refused?.reason.hasPrefix("cannot reach the server") == true && refused?.isTransient == true, "\(String(describing: refused))")
    }

    @Test func whenTheServerIsGoneTheCacheAnswersWithOneLine() async throws {
        let cache = HTTPCache(directory: cacheFolder)
        let captured = try await server().application().test(.live) { client in
            let address = "http://127.0.0.1:\(try #require(client.port))"
            _ = try await offThePool { try HTTPFeed(server: address, cache: cache).story(id: "ayla") }
            _ = try await offThePool { try HTTPFeed(server: address, cache: cache).page(after: nil, limit: 10) }
            return address
        }
        let (page, story) = try await offThePool { () -> (FeedPage, StoryLoad) in
            let feed = try HTTPFeed(server: captured, cache: cache)
            return (try feed.page(after: nil, limit: 10), try feed.story(id: "ayla"))
        }
        #expect(page.stories.count == 10)
        #expect(page.warnings.first?.message.hasPrefix("offline (") == true, "\(page.warnings)")
        #expect(story.story.id == "ayla" && story.warnings.isEmpty, "the page says it once")
        await #expect(throws: FeedError.self) {
            try await offThePool { try HTTPFeed(server: captured, cache: cache).story(id: "never-fetched") }
        }
    }

    @Test func aCorruptCacheFileIsSetAsideNotTrusted() throws {
        let cache = HTTPCache(directory: cacheFolder)
        let url = "http://example.invalid/v1/feed?limit=10"
        cache.store(.init(etag: "\"a\"", fetched: Date(), body: Data("{}".utf8)), for: url)
        #expect(cache.entry(for: url)?.etag == "\"a\"")
        let file = cache.file(for: url)
        var bytes = try Data(contentsOf: file)
        bytes.append(0x41) // the body is now longer than its header says
        try bytes.write(to: file)
        #expect(cache.entry(for: url) == nil)
        #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt"))
        try Data("not a cache file at all".utf8).write(to: file)
        #expect(cache.entry(for: url) == nil)
    }

    /// Issue 27, point 4: an entry larger than anything the cache writes (grown, damaged,
    /// planted) is set aside without being read — before, it was read whole up to the
    /// cache's whole budget, twice, before anything was shown. Here a well-formed entry just
    /// over the bound: read, it would decode; it must not.
    @Test func anEntryLargerThanTheCacheEverWritesIsSetAsideUnread() throws {
        let cache = HTTPCache(directory: cacheFolder, budget: 4 << 20) // a body of at most 1 MB
        let url = "http://example.invalid/v1/media/media/big.mp4"
        let body = Data(repeating: 0x42, count: 1 << 20)
        cache.store(.init(etag: "\"a\"", fetched: Date(), body: body), for: url)
        #expect(cache.entry(for: url)?.body.count == 1 << 20, "the largest body it writes reads back")
        let grown = Data(repeating: 0x42, count: (1 << 20) + HTTPCache.maxHeaderBytes)
        var file = Data("\(HTTPCache.magic)\n\(url)\n\"a\"\n\(Date().timeIntervalSince1970)\n\(grown.count)\n".utf8)
        file.append(grown)
        try file.write(to: cache.file(for: url))
        #expect(cache.entry(for: url) == nil, "larger than any entry written: not read")
        #expect(FileManager.default.fileExists(atPath: cache.file(for: url).path + ".corrupt"))
        #expect(!FileManager.default.fileExists(atPath: cache.file(for: url).path), "and not met again")
        cache.store(.init(etag: nil, fetched: Date(), body: Data(count: (1 << 20) + 1)), for: url)
        #expect(!FileManager.default.fileExists(atPath: cache.file(for: url).path), "nor is anything larger written")
    }

    /// Numbers and tags read back from a cache file are bounded: a fetch time in the future
    /// would keep an entry fresh for ever, so it counts as long ago; a tag that could not be
    /// sent back as a header is not used.
    @Test func aCacheEntryFromTheFutureOrWithAnUnsendableTagIsAskedForAgain() throws {
        let cache = HTTPCache(directory: cacheFolder)
        let url = "http://example.invalid/v1/media/media/a.jpg"
        cache.store(.init(etag: "\"ok\"", fetched: Date(timeIntervalSince1970: 1e15), body: Data("x".utf8)), for: url)
        let entry = try #require(cache.entry(for: url))
        #expect(entry.fetched.timeIntervalSince1970 == 0, "not fresh: \(entry.fetched)")
        #expect(entry.etag == "\"ok\"")
        for tag in ["", "\"a b\"", "\"a\u{7F}\"", "\"é\"", String(repeating: "t", count: 257)] {
            #expect(HTTPCache.usableTag(tag) == nil, "\(tag.debugDescription)")
            cache.store(.init(etag: tag, fetched: Date(), body: Data("x".utf8)), for: url)
            #expect(cache.entry(for: url)?.etag == nil)
        }
        #expect(HTTPCache.usableTag("W/\"5f-1a\"") == "W/\"5f-1a\"")
    }

    /// A 304 refreshes an entry without writing its body again: the same file (inode), a
    /// later modification time, which is the entry's fetch time from then on.
    @Test func aRevalidationTouchesTheEntryWithoutRewritingIt() throws {
        let cache = HTTPCache(directory: cacheFolder)
        let url = "http://example.invalid/v1/media/media/big.mp4"
        let written = Date(timeIntervalSince1970: 1_790_000_000)
        cache.store(.init(etag: "\"m\"", fetched: written, body: Data(repeating: 7, count: 100_000)), for: url)
        #expect(try #require(cache.entry(for: url)).fetched == written, "stored: fetched when it says")
        let before = try #require(try FileManager.default.attributesOfItem(atPath: cache.file(for: url).path)[.systemFileNumber] as? Int)
        let later = Date(timeIntervalSince1970: 1_790_050_000.5)
        cache.touch(url, at: later)
        let after = try #require(try FileManager.default.attributesOfItem(atPath: cache.file(for: url).path)[.systemFileNumber] as? Int)
        #expect(before == after, "the same file, not a new one renamed in")
        let entry = try #require(cache.entry(for: url))
        #expect(abs(entry.fetched.timeIntervalSince(later)) < 0.01, "\(entry.fetched)")
        #expect(entry.body.count == 100_000 && entry.etag == "\"m\"")
    }

    /// gzip as RFC 1952 has it: members one after another are one body; bytes after the end
    /// that are not another member, a stream cut short, and a bomb are refused.
    @Test func gzipIsUnpackedWholeAndBounded() throws {
        let a = try #require(Gzip.compress(Data("hello ".utf8))), b = try #require(Gzip.compress(Data("world".utf8)))
        #expect(try Gunzip.unpack(a + b, maxBytes: 100) == Data("hello world".utf8))
        #expect(throws: Gunzip.Failure.damaged) { try Gunzip.unpack(a + Data("trailing".utf8), maxBytes: 100) }
        #expect(throws: Gunzip.Failure.damaged) { try Gunzip.unpack(a.prefix(a.count - 3), maxBytes: 100) }
        #expect(throws: Gunzip.Failure.damaged) { try Gunzip.unpack(Data(), maxBytes: 100) }
        #expect(throws: Gunzip.Failure.tooLarge(1000)) { try Gunzip.unpack(try #require(Gzip.compress(Data(count: 5000))), maxBytes: 1000) }
    }

    /// Past its budget the cache lets the least recently fetched entries go, and keeps the rest.
    @Test func theCacheStaysWithinItsBudgetOldestFirst() throws {
        let cache = HTTPCache(directory: cacheFolder, budget: 20_000)
        let base = Date(timeIntervalSince1970: 1_790_000_000)
        for n in 0..<12 { // fetched a minute apart, in this order
            cache.store(.init(etag: nil, fetched: base.addingTimeInterval(Double(n) * 60), body: Data(repeating: UInt8(n), count: 3_000)),
                        for: "http://example.invalid/v1/media/\(n)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path)
        let total = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: cacheFolder.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
        #expect(total <= 20_000, "\(total) bytes in \(files.count) files")
        #expect(cache.entry(for: "http://example.invalid/v1/media/11") != nil, "the newest stays")
        #expect(cache.entry(for: "http://example.invalid/v1/media/0") == nil, "the oldest went first")
        #expect(files.count >= 4, "only as many go as the budget needs: \(files.count) left")
    }

    @Test func aServerThatLiesGetsAClearErrorNotACrash() async throws {
        let router = Router()
        router.get("/a/v1/feed") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>")))
        }
        router.get("/b/v1/feed") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"version":1,"stories":[{"id":"../x"}],"nextCursor":5}"#)))
        }
        router.get("/c/v1/feed") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: " "), count: 5 << 20)))
        }
        router.get("/d/v1/feed") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"version":1,"title":"T\u001b[2J","stories":[{"id":"ok","author":{"name":"N"},"itemIDs":["i"]},{"id":"bad"}],"nextCursor":null}"#)))
        }
        router.get("/g/v1/feed") { _, _ in
            // No length declared, and more than any document may be.
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                for _ in 0..<80 { try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: 64 << 10)) }
                try await writer.finish(nil)
            })
        }
        router.get("/e/v1/feed") { _, _ in Response(status: .seeOther, headers: [.location: "/e/v1/feed"]) }
        // gzip that unpacks to 50 MB, gzip cut short, and a coding nobody asked for.
        let bomb = try #require(Gzip.compress(Data(count: 50 << 20)))
        let page = try #require(Gzip.compress(FeedWire.page(FeedPage(stories: [], nextCursor: nil), title: "T")))
        for (path, body, coding) in [("/h/v1/feed", bomb, "gzip"), ("/i/v1/feed", page.prefix(page.count - 6), "gzip"), ("/j/v1/feed", page, "br")] {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: coding],
                         body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        router.get("/k/v1/feed") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"], body: .init(byteBuffer: ByteBuffer(bytes: page)))
        }
        router.get("/f/v1/feed") { _, _ in
            Response(status: .internalServerError, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"error":"disk on fire \u001b[31m","status":500}"#)))
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            func failure(_ path: String) async -> String {
                do {
                    _ = try await offThePool { try HTTPFeed(server: base + path, cache: nil).page(after: nil, limit: 10) }
                    return "no error"
                } catch { return "\(error)" }
            }
            #expect(await failure("/a").contains("expected JSON, the server sent text/html"))
            #expect(await failure("/b").contains("nextCursor: expected a string or null"))
            #expect(await failure("/c").contains("more than the 4 MB allowed here"))
            #expect(await failure("/e").contains("the server redirected elsewhere (303)"))
            #expect(await failure("/g").contains("the answer is more than the 4 MB allowed here"))
            #expect(await failure("/h").contains("the answer unpacks to more than the 4 MB allowed here"))
            #expect(await failure("/i").contains("the answer's gzip is damaged or cut short"))
            #expect(await failure("/j").contains("coded as 'br', which was not asked for"))
            #expect(await failure("/k") == "no error", "a good gzip page is read")
            let onFire = await failure("/f")
            #expect(onFire.contains("the server answered 500: disk on fire") && !onFire.contains("\u{1B}"), "\(onFire)")
            let page = try await offThePool { try HTTPFeed(server: base + "/d", cache: nil).page(after: nil, limit: 10) }
            #expect(page.title == "T", "escape sequences never reach the screen")
            #expect(page.stories.map(\.id) == ["ok"])
            #expect(page.warnings.contains { $0.message.contains("skipped a story") })
        }
    }

    @Test func aBodyThatTricklesIsCutOffAtTheDeadline() async throws {
        let router = Router()
        router.get("/v1/feed") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.contentLength] = "100000"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                for _ in 0..<100 {
                    try await writer.write(ByteBuffer(string: " "))
                    try await Fault.late(0.5) // a byte every half second
                }
                try await writer.finish(nil)
            })
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let started = ContinuousClock.now
            let message: String
            do {
                _ = try await offThePool { try HTTPFeed(server: base, cache: nil, deadline: 1).page(after: nil, limit: 10) }
                message = "no error"
            } catch { message = "\(error)" }
            #expect(message.contains("the answer took too long"), "\(message)")
            #expect(ContinuousClock.now - started < .seconds(10), "the deadline holds for the body too")
        }
    }

    @Test func aFailingServerFallsBackToTheCache() async throws {
        let cache = HTTPCache(directory: cacheFolder)
        let router = Router()
        router.get("/v1/feed") { _, _ in Response(status: .badGateway) }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            // What an earlier visit left in the cache.
            let earlier = FeedWire.page(FeedPage(stories: [StorySummary(id: "x", author: Author(name: "X"), itemIDs: ["i"])], nextCursor: nil), title: "Kept")
            cache.store(.init(etag: "\"e\"", fetched: Date(), body: earlier), for: base + "/v1/feed?limit=10")
            let (title, answer) = try await offThePool { () -> (String, FeedPage) in
                let feed = try HTTPFeed(server: base, cache: cache)
                let page = try feed.page(after: nil, limit: 10)
                return (page.title ?? "", page)
            }
            #expect(title == "Kept" && answer.stories.map(\.id) == ["x"])
            #expect(answer.warnings.first?.message.hasPrefix("offline (the server answered 502)") == true, "\(answer.warnings)")
        }
    }

    /// When the preloader drops a request, the request in flight is dropped too: the waiting
    /// thread is free at once and the server sees its connection close, long before the
    /// answer would have ended.
    @Test func aCancelledRequestIsDroppedOnTheWireNotWaitedFor() async throws {
        let writes = WriteLog()
        let router = Router()
        router.get("/v1/media/slow.mp4") { _, _ in
            Response(status: .ok, headers: [.contentType: "video/mp4", .contentLength: "\(100 << 10)"], body: ResponseBody { writer in
                do {
                    for _ in 0..<100 {
                        try await writer.write(ByteBuffer(repeating: 0, count: 1 << 10))
                        writes.wrote()
                        try await Fault.late(0.05) // 5 s for the whole answer
                    }
                    try await writer.finish(nil)
                } catch {
                    writes.failed()
                    throw error
                }
            })
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let feed = try HTTPFeed(server: "http://127.0.0.1:\(try #require(client.port))", cache: nil)
            let request = FeedRequest()
            async let outcome: String = offThePool {
                do {
                    _ = try feed.media(at: "slow.mp4", maxBytes: 1 << 20, request: request)
                    return "answered"
                } catch let error as FeedError { return error.reason } catch { return "\(error)" }
            }
            let held = await AsyncWait.until(5) { writes.count >= 2 }
            #expect(held, "the answer under way")
            let started = ContinuousClock.now
            request.cancel()
            let reason = try await outcome
            #expect(ContinuousClock.now - started < .milliseconds(1500), "the thread is let go at once, not held for the 5 s answer")
            #expect(reason.hasPrefix("cancelled"), "\(reason)")
            await AsyncWait.until(3) { writes.hasFailed }
            #expect(writes.hasFailed, "the server's writes fail: the connection was closed")
            #expect(writes.count < 60, "the server stopped sending after \(writes.count) of 100 chunks")
            // A request cancelled before it starts never reaches the server.
            let early = FeedRequest()
            early.cancel()
            let before = writes.count
            #expect(throws: FeedError.self) { try feed.media(at: "slow.mp4", maxBytes: 1 << 20, request: early) }
            let held2 = await AsyncWait.holds(for: 0.2) { writes.count == before }
            #expect(held2)
        }
    }

    /// The client asks only for paths the server would serve (one rule, `FeedPath`).
    @Test func mediaPathsOutOfTheFeedAreNeverRequested() throws {
        let cache = HTTPCache(directory: cacheFolder)
        let base = "http://127.0.0.1:9"
        let page = FeedWire.page(FeedPage(stories: [], nextCursor: nil), title: "T")
        cache.store(.init(etag: nil, fetched: Date(), body: page), for: base + "/v1/feed?limit=10")
        let feed = try HTTPFeed(server: base, cache: cache) // warm: no request
        for path in ["../etc/passwd", "/etc/passwd", "media/../../x", ".secret", "media//x", "a\\b", "http://evil/x"] {
            do {
                _ = try feed.media(at: path, maxBytes: 1 << 20)
                Issue.record("\(path) was requested")
            } catch {
                // Refused by the path rule, not by the (unreachable) network.
                #expect(error.reason == "media must be a path on the feed's server", "\(path): \(error)")
            }
        }
    }

    @Test func anAddressThatIsNotAServerIsRefusedAtOnce() {
        for address in ["ftp://x", "not a url", "http://", "file:///etc/passwd", String(repeating: "h", count: 5000),
                        "http://127.0.0.1:99999", "http://127.0.0.1:0", "http://x/?a=1", "http://x/#f", "http://u:p@x"] {
            do {
                _ = try HTTPFeed(server: address, cache: nil)
                Issue.record("\(address.prefix(40)) was accepted")
            } catch {
                // Refused by looking at it, before any connection was tried.
                #expect(!error.reason.contains("reach") && !error.isTransient, "\(address.prefix(40)): \(error)")
            }
        }
    }
}
