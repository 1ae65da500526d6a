import StoriesFeedIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOFoundationCompat
import NIOSSL
import StoriesCore

/// `stories serve`: the feed API (`FeedAPI`) on Hummingbird 2, HTTP/1.1 with keep-alive.
/// Every request is answered by `FeedAPI` from the folder; the server adds the network
/// network shaping for demos (the same `NetworkProfile` the app's pretend network uses:
/// latency with its jitter, bandwidth, failures) and an access log line per request.
/// SIGTERM and SIGINT let requests in flight finish, then `run` returns.
public struct FeedServer: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// How answers are shaped: latency (± jitter) waited before each, the body held as
        /// long as it would take at `bandwidth`, a share `failureRate` answered 503.
        /// (`timeout` is the client's and not used here.)
        public var network = NetworkProfile.local
        /// Files too large to keep in memory sent at once; one more is answered 503.
        public var maxStreams = SendBudget.standardMaxStreams
        /// A connection whose client takes nothing for this long while an answer waits is closed.
        public var sendTimeout: Duration = .seconds(60)
        /// How long a file or page may be served from memory before the disk is looked at again.
        public var recheckAfter: Double = 1
        /// False: paths inside the folder are walked one part at a time even where the kernel
        /// has openat2 (the tests run both ways).
        public var openat2 = true
        /// A fixed socket send buffer in bytes (nil: the kernel's, which grows to megabytes on
        /// loopback): the tests pin it small to see a slow client as a server far away would.
        public var socketSendBuffer: Int?
        /// Who may watch at start: with a viewers file every request needs a token of
        /// theirs, and every answer is private to the viewer (`Vary: Authorization`). The
        /// server's `viewers` is who may watch now (the file read again on SIGHUP).
        public var viewers = Viewers.open
        /// PEM files of the server's certificate (and chain) and its key: HTTPS (both, or neither).
        public var tlsCertificate: String?
        public var tlsKey: String?

        public init() {}
    }

    public let api: FeedAPI
    public let options: Options
    /// Who may watch now: `options.viewers` until the file is read again (SIGHUP).
    private let viewerList: ViewerList
    public var viewers: Viewers { viewerList.current }
    public let budget: SendBudget
    /// Viewers' seen state (`/v1/seen`), when the server keeps it.
    public let seen: SeenAPI?
    let log: Logger
    let logSink: LineLogHandler.Sink
    /// The seen store's health, asked at most once a second (`GET /v1/health`).
    let healthMemo = HealthMemo()
    /// HTTP/1.1 as the server speaks it: in TLS with a certificate (`--tls-cert`).
    let server: HTTPServerBuilder

    /// `logFile` nil: the access log goes to standard error. `folderCache`: for a folder
    /// without feed.json, where what its files say is kept.
    /// `seenDatabase`: where viewers' seen state is kept (nil: `/v1/seen` is not served).
    public init(directory: URL, options: Options, logFile: String? = nil, folderCache: PhotoFolderCache? = nil,
                seenDatabase: (any SeenDatabase)? = nil) throws(FeedError) {
        let api = try FeedAPI(directory: directory, recheckAfter: options.recheckAfter, folderCache: folderCache, openat2: options.openat2)
        self.api = api
        seen = seenDatabase.map { database in
            SeenAPI(database: database, catalog: { ids in
                if let kept = api.keptItemIDs(ofStories: ids) { return kept }
                // Reading stories is blocking work: on the folder queues, as folder answers are.
                return await withCheckedContinuation { continuation in
                    FeedServer.folderQueues[Int(FeedServer.nextQueue.add(1) % UInt64(FeedServer.folderQueues.count))].async {
                        continuation.resume(returning: api.itemIDs(ofStories: ids))
                    }
                }
            })
        }
        self.options = options
        viewerList = ViewerList(options.viewers)
        budget = SendBudget(maxStreams: options.maxStreams)
        logSink = try LineLogHandler.sink(path: logFile)
        log = LineLogHandler.logger(sink: logSink)
        var tls: TLSConfiguration?
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            tls = try Self.tlsConfiguration(certificate: certificate, key: key)
        }
        let (seconds, attoseconds) = options.sendTimeout.components
        let sendBuffer = options.socketSendBuffer
        let timeout = TimeAmount.nanoseconds(max(1, min(3600, max(0, seconds)) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000))
        // A connection silent for 30 s is closed, so idle sockets cannot pile up.
        server = try Self.serverBuilder(.http1(configuration: .init(additionalChannelHandlers: [SendTimeoutHandler(timeout: timeout, sendBuffer: sendBuffer)],
                                                                    idleTimeout: .seconds(30))), tls: tls)
    }

    /// Serves until SIGTERM or SIGINT. `onListening` gets the port bound (useful with 0).
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        defer { logSink.flush() }
        try await application(onListening: onListening).runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Takes the viewers file `path` again (`stories serve` on SIGHUP): a token taken out of
    /// it is refused from the next request on. A server that needs no token stays open, and
    /// a file that cannot be read leaves the viewers as they were. The line to say.
    public func readViewersAgain(_ path: String) -> (line: String, ok: Bool) {
        guard viewerList.current.required else { return ("no --viewers file was given: nothing to read again", false) }
        do {
            let fresh = try Viewers.load(path)
            viewerList.replace(fresh)
            return ("viewers file \(SafeText.line(path)) read again: \(fresh.count) viewer\(fresh.count == 1 ? "" : "s")", true)
        } catch {
            return ("viewers file not read again, the \(viewerList.current.count) viewers before stay: \(error)", false)
        }
    }

    /// The viewers in force, replaced whole. `@unchecked Sendable`: `viewers` is touched only
    /// under `lock` (a request takes one copy for its whole answer).
    final class ViewerList: @unchecked Sendable {
        private let lock = NSLock()
        private var viewers: Viewers
        init(_ viewers: Viewers) { self.viewers = viewers }
        var current: Viewers { lock.withLock { viewers } }
        func replace(_ fresh: Viewers) { lock.withLock { viewers = fresh } }
    }

    /// Why the access log could not be written, if it could not (said at once on standard
    /// error, and by `stories serve` again when it stops).
    public var logFailure: String? { logSink.writeFailure }

    /// The Hummingbird application (tests run it on loopback with HummingbirdTesting).
    public func application(onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            responder: CallbackResponder<ServeContext> { request, context in await self.respond(to: request, channel: context.channel) },
            server: server,
            // Connections the kernel completes before the server takes them: 256 (the default)
            // filled when viewers came and went by the thousand a second (`stories bench
            // hold`'s churn), and the rest waited a second for a SYN sent again. The kernel
            // caps it at net.core.somaxconn (4 096 on Debian 12).
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "stories", backlog: 4096),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: log
        )
    }

    /// `channel`: the connection, whose writability a streamed file waits on.
    func respond(to request: Request, channel: (any Channel)? = nil) async -> Response {
        let started = ContinuousClock.now
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query.count < 32 {
            query[String(key)] = String(value)
        }
        let apiRequest = APIRequest(method: request.method.rawValue, path: request.uri.path, query: query,
                                    ifNoneMatch: request.headers[.ifNoneMatch], range: request.headers[.range],
                                    ifRange: request.headers[.ifRange],
                                    acceptsGzip: APIRequest.acceptsGzip(request.headers[.acceptEncoding]))
        var answer: APIResponse
        let viewers = viewerList.current
        let viewer = viewers.viewer(authorization: request.headers[.authorization])
        if request.uri.path == "/v1/health", request.method == .get || request.method == .head {
            answer = await health(request, query: query)
        } else if viewer == nil {
            // The same answer for a missing token and a wrong one: nothing says who exists.
            let body = FeedWire.error("a viewer's token is needed: Authorization: Bearer TOKEN (stories serve add-viewer NAME makes one)", status: 401)
            answer = APIResponse(status: 401, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"),
                                                        ("WWW-Authenticate", #"Bearer realm="stories""#), ("Content-Length", String(body.count))],
                                 body: request.method == .head ? Data() : body)
        } else if let viewer, request.uri.path == "/v1/seen" {
            answer = await seenAnswer(request, viewer: viewer, channel: channel)
        } else if let viewer, let seen, request.uri.path == "/v1/home", request.method == .get || request.method == .head,
                  let personal = await seen.home(api, viewer: viewer, request: apiRequest) {
            answer = personal
        } else if case .folder = api.source {
            // A folder's answers list folders and read file headers: blocking work, kept off
            // the few threads that run every request, on a fixed set of serial queues (each
            // its own thread at most): a slow disk holds up only the answers on its queue,
            // and a thousand requests at once cannot start a thousand threads.
            let api = self.api
            let queue = Self.folderQueues[Int(Self.nextQueue.add(1) % UInt64(Self.folderQueues.count))]
            answer = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: api.respond(apiRequest)) }
            }
        } else {
            answer = api.respond(apiRequest)
        }
        if viewers.required { answer.headers = Self.privately(answer.headers) }
        let network = options.network
        if network.isOffline || (network.failureRate > 0 && Double.random(in: 0..<1) < network.failureRate) {
            let body = FeedWire.error("failed on purpose (network profile \(SafeText.line(network.name)))", status: 503)
            answer = APIResponse(status: 503, headers: [("Content-Type", "application/json; charset=utf-8"),
                                                        ("Content-Length", String(body.count))], body: body)
        }
        var wait = max(0, network.latency + network.jitter * Double.random(in: -1...1))
        wait += network.transferSeconds(bytes: answer.length)
        if wait > 0 { try? await Task.sleep(for: .seconds(min(wait, 600))) }
        // A file sent from disk takes a place for as long as it is sent; with none left, the
        // client hears so at once and when to try again.
        var lease: SendBudget.Lease?
        if answer.file != nil {
            lease = budget.lease()
            if lease == nil {
                let body = FeedWire.error("busy: \(budget.maxStreams) large files are being sent; try again in a second", status: 503)
                answer = APIResponse(status: 503, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"),
                                                            ("Retry-After", "1"), ("Content-Length", String(body.count))], body: body)
            }
        }
        var fields = HTTPFields()
        fields.reserveCapacity(answer.headers.count)
        for (name, value) in answer.headers {
            if let field = Self.fieldName(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        let elapsed = ContinuousClock.now - started
        let note = answer.note.map { " (\(SafeText.line(String($0.prefix(300)))))" } ?? ""
        log.info("\(request.method.rawValue) \(Self.loggedTarget(request.uri.description)) \(answer.status) \(answer.length) \(Self.milliseconds(elapsed))ms\(note)")
        let body: ResponseBody
        if let file = answer.file, let lease {
            var connection: (WritableGate, any EventLoop)?
            if let channel, let gate = await SendTimeoutHandler.gate(of: channel) { connection = (gate, channel.eventLoop) }
            body = SendBudget.body(file, lease: lease, connection: connection)
        } else if let buffer = answer.buffer {
            body = ResponseBody(byteBuffer: buffer) // the kept bytes themselves, not a copy
        } else {
            // An empty body is no body at all (head and end go out in one write).
            body = answer.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }

    /// `/v1/seen`: the body read (bounded) for a PUT, then `SeenAPI`.
    private func seenAnswer(_ request: Request, viewer: Viewers.Viewer, channel: (any Channel)?) async -> APIResponse {
        guard let seen else {
            return SeenAPI.answer(404, FeedWire.error("this server keeps no seen state", status: 404))
        }
        var body = Data()
        if request.method == .put || request.method == .post {
            do {
                let bytes = try await request.body.collect(upTo: SeenWire.maxBatchBytes)
                body = Data(buffer: bytes)
            } catch {
                return SeenAPI.answer(413, FeedWire.error("a batch may be at most \(SeenWire.maxBatchBytes >> 10) KB", status: 413))
            }
        }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query.count < 32 { query[String(key)] = String(value) }
        let method = request.method.rawValue
        guard let channel, request.method == .get || request.method == .head else {
            return await seen.respond(method: method, query: query, body: body, viewer: viewer)
        }
        // A poll waits in a task of its own, cancelled when its connection closes: a client
        // that went away gives its place back at once (not at its wait's end).
        let poll = Task { await seen.respond(method: method, query: query, body: body, viewer: viewer) }
        guard let gate = await SendTimeoutHandler.gate(of: channel) else {
            // No handler to ask: the connection is already gone (or a test's has none).
            if !channel.isActive { poll.cancel() }
            return await poll.value
        }
        let watch = gate.whenClientGone { poll.cancel() }
        defer { gate.forget(watch) }
        return await withTaskCancellationHandler { await poll.value } onCancel: { poll.cancel() }
    }

    /// A viewer's answers are theirs: caches between keep them apart (`Vary: Authorization`)
    /// and shared caches keep none (`private`).
    static func privately(_ headers: [(String, String)]) -> [(String, String)] {
        var out = headers
        var varied = false
        for index in out.indices {
            switch out[index].0 {
            case "Cache-Control":
                let value = out[index].1
                if !value.contains("private") && !value.contains("no-store") {
                    out[index].1 = "private, " + value.replacingOccurrences(of: "public, ", with: "")
                }
            case "Vary":
                out[index].1 += ", Authorization"
                varied = true
            default: break
            }
        }
        if !varied { out.append(("Vary", "Authorization")) }
        return out
    }

    /// The header names the API uses, as HTTP's own (parsed once, not once an answer).
    static func fieldName(_ name: String) -> HTTPField.Name? {
        switch name {
        case "Content-Type": .contentType
        case "Content-Length": .contentLength
        case "ETag": .eTag
        case "Cache-Control": .cacheControl
        case "Accept-Ranges": .acceptRanges
        case "Content-Range": .contentRange
        case "Content-Encoding": .contentEncoding
        case "Vary": .vary
        case "Retry-After": .retryAfter
        case "Allow": .allow
        case "WWW-Authenticate": .wwwAuthenticate
        default: HTTPField.Name(name)
        }
    }

    static let folderQueues = (0..<8).map { DispatchQueue(label: "stories.serve.folder.\($0)", qos: .userInitiated) }
    static let nextQueue = Counter()

    /// "12.3": tenths of a millisecond, without String(format:) (a few percent of a request).
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = max(0, seconds) * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// The request context `stories serve` runs with: Hummingbird's own, and the connection (a
/// streamed file waits on its writability).
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// A number handed out in turn. `@unchecked Sendable`: `value` is touched only under `lock`.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0

    /// The value before adding `n`.
    func add(_ n: UInt64) -> UInt64 { lock.withLock { defer { value &+= n }; return value } }
}
