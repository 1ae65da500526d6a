import StoriesFeedIO
import AsyncHTTPClient
import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
import StoriesCore

/// A feed served over HTTP by `stories serve` (docs/feed-format.md, "Over HTTP"), read
/// through AsyncHTTPClient: one shared client (keep-alive, connect and read timeouts, no
/// redirects: a feed server answers where it is asked), bodies collected up to a bound, and an `HTTPCache` on
/// disk that revalidates with `If-None-Match` and keeps the app working when the server
/// cannot be reached.
///
/// `FeedSource` calls are synchronous: `FeedClient` makes them on its Dispatch queue, and
/// each waits for its request here (never on an event loop or the cooperative pool).
public final class HTTPFeed: FeedSource, @unchecked Sendable {
    // Immutable after `init`; `HTTPCache` and `HTTPClient` are thread-safe.
    public let server: URL
    public let title: String
    let cache: HTTPCache?
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(
            // A feed server answers where it was asked; a redirect could point anywhere
            // (another host, an impossible port), so it is an error, not a hop.
            redirectConfiguration: .disallow,
            // AsyncHTTPClient retries a refused connection until the connect timeout
            // (swift-server/async-http-client#743), so a server that is down costs this long.
            timeout: .init(connect: .seconds(2), read: .seconds(15))
            // Decompression stays off: documents are asked for packed and unpacked by
            // `Gunzip` (see there for why).
        )
    )
    /// The longest any one request may take, body included (AsyncHTTPClient's own deadline
    /// ends with the headers, so `fetch` races the whole request against this).
    let deadline: Double

    /// Checks the address; nothing is asked of the network or read from the cache here, so
    /// the screen comes up at once even when the server is slow.
    /// The viewer's `Authorization` (`Bearer TOKEN`), sent with every request when given.
    public let authorization: String?

    /// `token`: the viewer's, for a server with viewers (issue 34).
    public init(server text: String, cache: HTTPCache?, deadline: Double = 30, token: String? = nil) throws(FeedError) {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
              url.query == nil, url.fragment == nil, url.user == nil else {
            throw FeedError(file: SafeText.line(text), reason: "not a server address like http://127.0.0.1:8080")
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw FeedError(file: SafeText.line(text), reason: "port \(port) is not one from 1 to 65535")
        }
        server = url
        authorization = token.map { "Bearer " + $0 }
        self.cache = cache
        self.deadline = max(0.1, min(deadline, 600))
        // Until a page brings the feed's own title (the cached one a moment later on a warm
        // start), the address stands for it: nothing is read here, on the way to the screen.
        title = SafeText.line(host) + (url.port.map { ":\($0)" } ?? "")
    }

    /// After a failed connection, requests that the cache can answer skip the network for
    /// a few seconds (this feed's own memory of it).
    let unreachable = Unreachable()

    public var waitsOnNetwork: Bool { true }

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        try Self.page(server: server, cache: cache, cursor: cursor, limit: limit, deadline: deadline, unreachable: unreachable,
                      authorization: authorization)
    }

    /// The first page as the cache has it, decoded; its problems are left for the page the
    /// network sends (they would be said twice).
    public func cachedFirstPage(limit: Int) -> FeedPage? {
        let url = Self.url(server, Self.pagePath(cursor: nil, limit: limit))
        guard let entry = cache?.entry(for: url), let (title, decoded) = try? FeedDecoder.page(from: entry.body, file: url) else { return nil }
        var page = decoded
        page.warnings = []
        page.title = title
        return page
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        try story(id: id, request: FeedRequest())
    }

    public func story(id: StoryID, request: FeedRequest) throws(FeedError) -> StoryLoad {
        guard StoryIDRule.isValid(id) else { throw FeedError(file: id, reason: "not a valid story id") }
        let url = Self.url(server, "/v1/stories/\(id)")
        let answer = try Self.fetch(url, cache: cache, maxBytes: FeedDecoder.maxDocumentBytes, json: true, deadline: deadline,
                                    unreachable: unreachable, request: request, authorization: authorization)
        // Offline, a cached story says nothing more: the page already said so once.
        let (story, warnings) = try FeedDecoder.story(from: answer.body, file: url, expectedID: id)
        return StoryLoad(story: story, warnings: warnings, bytes: answer.body.count)
    }

    /// `GET /v1/home`, through the cache like a page: revalidated every time, the cached
    /// sections when the server cannot be reached (a warning already says so for the page).
    public func home() throws(FeedError) -> HomeLoad {
        let url = Self.url(server, "/v1/home")
        let answer = try Self.fetch(url, cache: cache, maxBytes: FeedDecoder.maxDocumentBytes, json: true, deadline: deadline,
                                    unreachable: unreachable, authorization: authorization)
        return try HomeDecoder.decode(answer.body, file: url)
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        try media(at: location, maxBytes: maxBytes, request: FeedRequest())
    }

    public func media(at location: String, maxBytes: Int, request: FeedRequest) throws(FeedError) -> Data? {
        guard !location.contains("://"), FeedPath.problem(with: location) == nil else {
            throw FeedError(file: SafeText.line(location), reason: "media must be a path on the feed's server")
        }
        let encoded = location.split(separator: "/").map { segment in
            segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? ""
        }.joined(separator: "/")
        return try Self.fetch(Self.url(server, "/v1/media/" + encoded), cache: cache, maxBytes: maxBytes, json: false,
                              deadline: deadline, unreachable: unreachable, freshFor: Self.mediaFreshness, request: request,
                              authorization: authorization).body
    }

    // MARK: - Requests

    static func page(server: URL, cache: HTTPCache?, cursor: FeedCursor?, limit: Int, deadline: Double,
                     unreachable: Unreachable, authorization: String? = nil) throws(FeedError) -> FeedPage {
        let url = Self.url(server, pagePath(cursor: cursor, limit: limit))
        let answer = try fetch(url, cache: cache, maxBytes: FeedDecoder.maxDocumentBytes, json: true, deadline: deadline,
                               unreachable: unreachable, authorization: authorization)
        var (title, page) = try FeedDecoder.page(from: answer.body, file: url)
        if let note = answer.offlineNote { page.warnings.insert(FeedWarning(note), at: 0) }
        page.title = title
        return page
    }

    static func pagePath(cursor: FeedCursor?, limit: Int) -> String {
        var query = "limit=\(max(1, min(limit, 100)))"
        if let cursor {
            query += "&cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        return "/v1/feed?" + query
    }

    static func url(_ server: URL, _ path: String) -> String {
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    struct Answer {
        var body: Data
        /// Set when the server could not be reached and the cache answered instead.
        var offlineNote: String?
    }

    /// Media is used from the cache without asking for a day, then revalidated (the server
    /// says `max-age=86400`: a photo replaced under the same name reaches everyone in a day).
    static let mediaFreshness: TimeInterval = 86_400

    /// GET with the cache: revalidated with `If-None-Match` (an entry younger than
    /// `freshFor` is used as it is), the cached body on 304, and when the server cannot be
    /// reached or fails (5xx) the cached body with a note.
    static func fetch(_ url: String, cache: HTTPCache?, maxBytes: Int, json: Bool, deadline: Double,
                      unreachable: Unreachable, freshFor: TimeInterval = 0, request cancellation: FeedRequest? = nil,
                      authorization: String? = nil) throws(FeedError) -> Answer {
        let cached = cache?.entry(for: url)
        if let cached, freshFor > 0, Date().timeIntervalSince(cached.fetched) < freshFor { return Answer(body: cached.body) }
        // Just found unreachable: what the cache has is used without waiting for another
        // failed connection; the network is tried again once the pause is over.
        if let cached, let reason = unreachable.reason() {
            return Answer(body: cached.body, offlineNote: note(reason, cached))
        }
        let result = wait(timeout: deadline, cancellation: cancellation) { () async throws -> Response in
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: json ? "application/json" : "*/*")
            // Documents travel packed (a page is a tenth of its size); media is packed already.
            request.headers.add(name: "Accept-Encoding", value: json ? "gzip" : "identity")
            if let etag = cached?.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let authorization { request.headers.add(name: "Authorization", value: authorization) }
            let response = try await client.execute(request, deadline: .now() + .milliseconds(Int64(deadline * 1000)))
            let declared = response.headers.first(name: "Content-Length").flatMap { Int($0) }
            if let declared, declared > maxBytes, response.status == .ok { throw Refusal.tooLarge(declared, maxBytes) }
            let body = try await response.body.collect(upTo: maxBytes)
            return Response(status: Int(response.status.code), etag: response.headers.first(name: "ETag").flatMap(HTTPCache.usableTag),
                            contentType: response.headers.first(name: "Content-Type"),
                            encoding: response.headers.first(name: "Content-Encoding"), body: Data(body.readableBytesView))
        }
        switch result {
        case .success(let response):
            unreachable.clear()
            switch response.status {
            case 200:
                if json, let type = response.contentType, !type.lowercased().contains("json") {
                    throw FeedError(file: url, reason: "expected JSON, the server sent \(SafeText.line(type))")
                }
                let body = try unpacked(response, url: url, maxBytes: maxBytes, asked: json)
                if let cache { cache.store(.init(etag: response.etag, fetched: Date(), body: body), for: url) }
                return Answer(body: body)
            case 304:
                guard let cached else { throw FeedError(file: url, reason: "the server said 304 for something never fetched") }
                cache?.touch(url, at: Date())
                return Answer(body: cached.body)
            case 300..<400:
                throw FeedError(file: url, reason: "the server redirected elsewhere (\(response.status)); a feed server answers where it is asked")
            case 500..<600 where cached != nil:
                if let cached { return Answer(body: cached.body, offlineNote: note("the server answered \(response.status)", cached)) }
                fallthrough
            default:
                throw FeedError(file: url, reason: "the server answered \(response.status)\(serverMessage(response.body).map { ": \($0)" } ?? "")",
                                isTransient: response.status >= 500 || response.status == 429 || response.status == 408)
            }
        case .failure(let error) where cancellation?.isCancelled == true:
            // Nobody wants the answer: no note, no fallback, nothing marked unreachable.
            throw FeedError(file: url, reason: "cancelled (\(describe(error, maxBytes: maxBytes)))")
        case .failure(let error):
            let reason = describe(error, maxBytes: maxBytes)
            let refused = error is Refusal || error is NIOTooManyBytesError
            if !refused { unreachable.mark(reason) }
            if let cached, !refused { return Answer(body: cached.body, offlineNote: note(reason, cached)) }
            throw FeedError(file: url, reason: refused ? reason : "cannot reach the server: \(reason)", isTransient: !refused)
        }
    }

    /// The body as the document it is: unpacked when it came gzip (and gzip was asked for);
    /// any other coding is refused with its name.
    static func unpacked(_ response: Response, url: String, maxBytes: Int, asked: Bool) throws(FeedError) -> Data {
        let coding = response.encoding.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "identity"
        switch coding {
        case "identity", "":
            return response.body
        case "gzip" where asked, "x-gzip" where asked:
            do {
                return try Gunzip.unpack(response.body, maxBytes: maxBytes)
            } catch .tooLarge(let limit) {
                throw FeedError(file: url, reason: "the answer unpacks to more than the \(limit >> 20) MB allowed here")
            } catch {
                throw FeedError(file: url, reason: "the answer's gzip is damaged or cut short")
            }
        default:
            throw FeedError(file: url, reason: "the server sent it coded as '\(String(SafeText.line(coding).prefix(40)))', which was not asked for")
        }
    }

    static func note(_ reason: String, _ cached: HTTPCache.Entry) -> String {
        "offline (\(reason)): showing what was fetched \(cached.fetched.formatted(date: .abbreviated, time: .shortened))"
    }


    final class Unreachable: @unchecked Sendable {
        // `since` and `why` are guarded by `lock`.
        private let lock = NSLock()
        private var since: Date?
        private var why = ""
        let pause: TimeInterval = 10

        func mark(_ reason: String) { lock.withLock { since = Date(); why = reason } }
        func clear() { lock.withLock { since = nil } }
        func reason() -> String? {
            lock.withLock {
                guard let since, Date().timeIntervalSince(since) < pause else { return nil }
                return why
            }
        }
    }

    struct Response: Sendable {
        var status: Int
        var etag: String?
        var contentType: String?
        var encoding: String?
        var body: Data
    }

    enum Refusal: Error {
        case tooLarge(Int, Int)
    }

    /// The `error` field of a JSON error body, made printable.
    static func serverMessage(_ body: Data) -> String? {
        guard let message = FeedDecoder.errorMessage(in: body) else { return nil }
        let line = SafeText.line(message, maxColumns: 200)
        return line.isEmpty ? nil : line
    }

    static func describe(_ error: any Error, maxBytes: Int) -> String {
        switch error {
        case Refusal.tooLarge(let declared, let limit): return "\(declared) bytes is more than the \(limit >> 20) MB allowed here"
        case is Deadline: return "the answer took too long"
        case is NIOTooManyBytesError: return "the answer is more than the \(maxBytes >> 20) MB allowed here"
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return "no connection (refused or timed out)"
            case .readTimeout, .deadlineExceeded: return "the server stopped answering"
            case .redirectLimitReached, .redirectCycleDetected: return "redirected elsewhere"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return String(SafeText.line(String(describing: error)).prefix(200))
            }
        default:
            let text = SafeText.line(String(describing: error))
            if text.lowercased().contains("connection refused") { return "connection refused" }
            return String(text.prefix(200))
        }
    }

    /// Runs async work from a Dispatch thread, for at most `timeout` seconds, or until
    /// `cancellation` is cancelled: then the task is cancelled (AsyncHTTPClient drops the
    /// request and closes its connection) and this returns at once.
    static func wait<T: Sendable>(timeout: Double, cancellation: FeedRequest? = nil,
                                  _ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        // Cancelled already: nothing is started, so nothing reaches the server.
        if cancellation?.isCancelled == true { return .failure(CancellationError()) }
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        // On an executor of its own: the deadline measures the server, never a cooperative
        // pool kept busy by other work.
        let task = Task(executorPreference: executor) {
            do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        cancellation?.onCancel {
            task.cancel()
            done.signal() // the waiting thread goes at once, whatever the task still does
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            task.cancel()
            return .failure(Deadline())
        }
        if cancellation?.isCancelled == true { return .failure(CancellationError()) }
        return box.get() ?? .failure(CancellationError())
    }

    struct Deadline: Error {}

    /// Where every request's task runs (its jobs are short: the network is NIO's).
    static let executor = QueueExecutor(label: "stories.http")
}

/// A result handed from a task to the thread waiting for it.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }
    func get() -> Result<T, any Error>? { lock.withLock { value } }
}
