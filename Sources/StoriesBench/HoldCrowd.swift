import CStoriesSupport
import Foundation

/// `stories bench hold`'s viewers: thousands of HTTP/1.1 connections on one thread and one
/// epoll. Each viewer holds one long poll (`GET /v1/seen?since=…&wait=30`) on replica
/// `viewer % 2`, asked again as soon as it is answered; senders (the first `senders`
/// viewers) also send batches, paced, to the other replica on a keep-alive connection of
/// their own, so that every wake-up measured crossed replicas through PostgreSQL's NOTIFY.
/// A wake-up is a poll answered with a `next` past its `since`; its latency is from the
/// sender's acknowledgement to then.
final class HoldCrowd {
    // epoll's event bits (sys/epoll.h, which Swift's Glibc does not bring).
    static let readable: UInt32 = 0x001, writable: UInt32 = 0x004, failedBit: UInt32 = 0x008, hungUp: UInt32 = 0x010, peerClosed: UInt32 = 0x2000

    struct Connection {
        let fd: Int32
        let viewer: Int
        let poll: Bool
        var connected = false
        var out: [UInt8] = []
        var written = 0
        var input: [UInt8] = []
        var waiting = false
        /// A poll's first answer on this connection (a poll opened again reads at once what
        /// came meanwhile: not a wake-up, not measured).
        var fresh = true
    }

    let ports: [UInt16]
    let tokens: [String]
    let senders: Int
    private let epoll: Int32
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 1
    /// Each viewer's poll connection, and each sender's batch connection.
    private var pollOf: [UInt64?]
    private var sendOf: [UInt64?]
    private var since: [Int64]
    private var acknowledged: [Double?]
    /// Woken before the batch's acknowledgement was read (counted as 0 when it is).
    private var wokeEarly: [Bool]
    /// Its batch was read by a poll opened again: its acknowledgement is not measured.
    private var ignoreAck: [Bool]
    private var count: [Int]
    /// Polls to ask again after a failure, at their time.
    private var later: [(at: Double, viewer: Int)] = []
    /// Connections being made now (at most `maxConnecting`).
    private var connecting = 0
    private var toOpen: [Int] = []
    static let maxConnecting = 256
    // Kept from one wait and read to the next (not made for each).
    private var ids = [UInt64](repeating: 0, count: 256)
    private var events = [UInt32](repeating: 0, count: 256)
    private var buffer = [UInt8](repeating: 0, count: 16384)

    // What happened, since `resetCounts`.
    private(set) var latencies: [Double] = []
    private(set) var batches = 0
    private(set) var answers = 0
    private(set) var failures: [String: Int] = [:]
    /// Wake-ups that came before their batch's acknowledgement reached the sender.
    private(set) var early = 0
    private var nextSender = 0

    init(ports: [UInt16], tokens: [String], senders: Int) throws {
        self.ports = ports
        self.tokens = tokens
        self.senders = min(senders, tokens.count)
        epoll = stories_epoll_create()
        guard epoll >= 0 else { throw HoldBench.Failure("epoll: \(String(cString: strerror(errno)))") }
        pollOf = Array(repeating: nil, count: tokens.count)
        sendOf = Array(repeating: nil, count: tokens.count)
        since = Array(repeating: 0, count: tokens.count)
        acknowledged = Array(repeating: nil, count: tokens.count)
        wokeEarly = Array(repeating: false, count: tokens.count)
        ignoreAck = Array(repeating: false, count: tokens.count)
        count = Array(repeating: 0, count: tokens.count)
    }

    deinit {
        for connection in connections.values { close(connection.fd) }
        close(epoll)
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Polls held now (connected, asked, not yet answered).
    var held: Int { connections.values.reduce(0) { $0 + ($1.poll && $1.waiting && $1.written == $1.out.count ? 1 : 0) } }
    var open: Int { connections.count }

    func resetCounts() {
        latencies = []
        batches = 0
        answers = 0
        failures = [:]
        early = 0
    }

    /// Every viewer's poll to be opened (`connecting` at a time).
    func openPolls() { toOpen = Array(tokens.indices.reversed()) }

    /// `share` of the polls closed and opened again at once, chosen at random.
    func churn(_ share: Double) {
        let viewers = tokens.indices.filter { pollOf[$0] != nil }.shuffled().prefix(Int(Double(tokens.count) * share))
        for viewer in viewers {
            if let id = pollOf[viewer] { drop(id) }
            toOpen.append(viewer)
        }
    }

    /// Runs the loop until `until` (uptime seconds), sending `rate` batches a second.
    func run(until: Double, rate: Double) {
        var paced = Self.now()
        while true {
            let now = Self.now()
            if now >= until { return }
            while connecting < Self.maxConnecting, let viewer = toOpen.popLast() { openPoll(viewer) }
            if rate > 0 {
                let due = Int((now - paced) * rate)
                if due > 0 {
                    paced += Double(due) / rate
                    for _ in 0..<min(due, senders) { sendBatch() }
                }
            } else {
                paced = now
            }
            while let first = later.first, first.at <= now {
                later.removeFirst()
                if pollOf[first.viewer] == nil { openPoll(first.viewer) }
            }
            let n = stories_epoll_wait(epoll, &ids, &events, 256, 5)
            for index in 0..<max(0, Int(n)) { handle(ids[index], events[index]) }
        }
    }

    // MARK: - Connections

    private func connect(viewer: Int, replica: Int, poll: Bool) -> UInt64? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { failures["socket: \(String(cString: strerror(errno)))", default: 0] += 1; return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // From one of 32 loopback addresses: 10 000 connections and their churn would use
        // up one address's ephemeral ports.
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        source.sin_addr.s_addr = UInt32(0x7F00_0002 + Int(nextID % 32)).bigEndian
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = ports[replica].bigEndian
        target.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &source) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let started = withUnsafePointer(to: &target) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, started == 0 || errno == EINPROGRESS else {
            failures["connect: \(String(cString: strerror(errno)))", default: 0] += 1
            close(fd)
            return nil
        }
        let id = nextID
        nextID += 1
        connections[id] = Connection(fd: fd, viewer: viewer, poll: poll)
        connecting += 1
        _ = stories_epoll_watch(epoll, fd, Self.readable | Self.writable | Self.peerClosed, id, 0)
        return id
    }

    private func drop(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        if !connection.connected { connecting -= 1 }
        close(connection.fd)
        if connection.poll, pollOf[connection.viewer] == id { pollOf[connection.viewer] = nil }
        if !connection.poll, sendOf[connection.viewer] == id { sendOf[connection.viewer] = nil }
    }

    private func openPoll(_ viewer: Int) {
        guard pollOf[viewer] == nil else { return } // one poll a viewer
        guard let id = connect(viewer: viewer, replica: viewer % ports.count, poll: true) else {
            later.append((Self.now() + 1, viewer))
            return
        }
        pollOf[viewer] = id
        ask(id)
    }

    private func ask(_ id: UInt64) {
        guard var connection = connections[id] else { return }
        let viewer = connection.viewer
        let request = "GET /v1/seen?since=\(since[viewer])&wait=30 HTTP/1.1\r\nHost: stories\r\nAuthorization: Bearer \(tokens[viewer])\r\n\r\n"
        connection.out = Array(request.utf8)
        connection.written = 0
        connection.waiting = true
        connections[id] = connection
        flush(id)
    }

    private func sendBatch() {
        // The next sender whose last batch is answered.
        for _ in 0..<senders {
            let viewer = nextSender
            nextSender = (nextSender + 1) % max(1, senders)
            if let id = sendOf[viewer], connections[id]?.waiting == true { continue }
            let id: UInt64
            if let open = sendOf[viewer] { id = open } else {
                guard let made = connect(viewer: viewer, replica: (viewer + 1) % ports.count, poll: false) else { return }
                sendOf[viewer] = made
                id = made
            }
            count[viewer] += 1
            let body = #"{"version":1,"seen":[{"story":"ayla","item":"rocket"}],"tooltips":["hold-\#(viewer)-\#(count[viewer])"]}"#
            let request = "PUT /v1/seen HTTP/1.1\r\nHost: stories\r\nAuthorization: Bearer \(tokens[viewer])\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            connections[id]?.out = Array(request.utf8)
            connections[id]?.written = 0
            connections[id]?.waiting = true
            acknowledged[viewer] = nil
            wokeEarly[viewer] = false
            ignoreAck[viewer] = false
            flush(id)
            return
        }
        failures["no sender free (every batch connection still waits)", default: 0] += 1
    }

    private func flush(_ id: UInt64) {
        guard var connection = connections[id], connection.connected, connection.written < connection.out.count else { return }
        let n = connection.out[connection.written...].withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n > 0 { connection.written += n }
        connections[id] = connection
        if n < 0, errno != EAGAIN { failed(id, "write: \(String(cString: strerror(errno)))"); return }
        // What is left goes when the socket takes more (watched for writability only then).
        let more = connection.written < connection.out.count
        _ = stories_epoll_watch(epoll, connection.fd, Self.readable | Self.peerClosed | (more ? Self.writable : 0), id, 1)
    }

    private func failed(_ id: UInt64, _ why: String) {
        guard let connection = connections[id] else { return }
        failures[why, default: 0] += 1
        drop(id)
        if connection.poll { later.append((Self.now() + 1, connection.viewer)) }
    }

    // MARK: - Events

    private func handle(_ id: UInt64, _ events: UInt32) {
        guard var connection = connections[id] else { return }
        if !connection.connected, events & Self.writable != 0 {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(connection.fd, SOL_SOCKET, SO_ERROR, &error, &length)
            connecting -= 1
            guard error == 0 else {
                connection.connected = true // counted
                connections[id] = connection
                failed(id, "connect: \(String(cString: strerror(error)))")
                return
            }
            connection.connected = true
            connections[id] = connection
            _ = stories_epoll_watch(epoll, connection.fd, Self.readable | Self.peerClosed, id, 1)
            flush(id)
        } else if connection.connected, events & Self.writable != 0 {
            flush(id)
        }
        if events & Self.readable != 0 { read(id) }
        if connections[id] != nil, events & (Self.peerClosed | Self.hungUp | Self.failedBit) != 0 {
            failed(id, "the server closed the connection")
        }
    }

    private func read(_ id: UInt64) {
        guard var connection = connections[id] else { return }
        var ended = false
        while true {
            let n = Glibc.read(connection.fd, &buffer, buffer.count)
            if n > 0 { connection.input.append(contentsOf: buffer[0..<n]); continue }
            ended = n == 0
            break
        }
        connections[id] = connection
        // Answers first, even one that came with the end of the connection.
        while var input = connections[id]?.input, let answer = Self.answer(in: &input) {
            connections[id]?.input = input
            connections[id]?.waiting = false
            guard let status = answer.status else { failed(id, "an answer that is not HTTP/1.1"); return }
            answered(id, status: status, body: answer.body)
            guard connections[id] != nil else { return }
        }
        if ended { failed(id, "the server closed the connection") }
    }

    /// A whole answer at the start of `input` (taken out of it): its status (nil: not one
    /// this client reads — a length that is not 0 to 16 MB) and body.
    static func answer(in input: inout [UInt8]) -> (status: Int?, body: [UInt8])? {
        guard let end = input.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: input[..<end.lowerBound], as: UTF8.self)
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            guard let value = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)), (0...(16 << 20)).contains(value) else {
                input.removeAll()
                return (nil, [])
            }
            length = value
        }
        guard input.count - end.upperBound >= length else { return nil }
        let body = Array(input[end.upperBound..<end.upperBound + length])
        input.removeFirst(end.upperBound + length)
        return (head.hasPrefix("HTTP/1.1 ") ? Int(head.dropFirst(9).prefix(3)) : nil, body)
    }

    private func answered(_ id: UInt64, status: Int, body: [UInt8]) {
        guard let connection = connections[id] else { return }
        let viewer = connection.viewer
        let now = Self.now()
        if !connection.poll {
            guard status == 200 else { failures["PUT \(status)", default: 0] += 1; return }
            batches += 1
            if ignoreAck[viewer] {
                ignoreAck[viewer] = false
            } else if wokeEarly[viewer] {
                // The wake-up was read first (both in one turn of the loop): as good as at once.
                wokeEarly[viewer] = false
                latencies.append(0)
            } else {
                acknowledged[viewer] = now
            }
            return
        }
        answers += 1
        guard status == 200, let next = Self.next(in: body) else {
            failures["GET \(status)", default: 0] += 1
            drop(id)
            later.append((now + 1, viewer))
            return
        }
        let fresh = connection.fresh
        connections[id]?.fresh = false
        if next != since[viewer], viewer < senders, fresh {
            // Not measured: its batch's acknowledgement, read before or after, is let go.
            acknowledged[viewer] = nil
            if connections[sendOf[viewer] ?? 0]?.waiting == true { ignoreAck[viewer] = true }
        } else if next != since[viewer], viewer < senders {
            if let acked = acknowledged[viewer] {
                latencies.append(now - acked)
                acknowledged[viewer] = nil
            } else if connections[sendOf[viewer] ?? 0]?.waiting == true {
                early += 1
                wokeEarly[viewer] = true
            }
        }
        since[viewer] = next
        ask(id)
    }

    /// `"next":N` in an answer's body.
    static func next(in body: [UInt8]) -> Int64? {
        guard let key = body.firstRange(of: Array(#""next":"#.utf8)) else { return nil }
        let digits = body[key.upperBound...].prefix { (0x30...0x39).contains($0) }
        return Int64(String(decoding: digits, as: UTF8.self))
    }
}
