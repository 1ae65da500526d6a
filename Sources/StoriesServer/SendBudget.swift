import StoriesFeedIO
import Dispatch
import Foundation
import Hummingbird
import NIOCore
import StoriesCore

/// What the server holds for answers on their way out, bounded: a file too large to keep
/// in memory is sent in chunks read from the open file as the client takes them (one chunk
/// in hand, and NIO's outbound buffer up to its high-water mark, per connection), and at
/// most `maxStreams` such files are being sent at once; one more is answered 503 with
/// `Retry-After` at once (never queued in memory). A client that stops reading holds its
/// place only until `SendTimeoutHandler` closes its connection.
public final class SendBudget: @unchecked Sendable {
    // `active` and `peak` are touched only under `lock`.
    public let maxStreams: Int
    private let lock = NSLock()
    private var active = 0
    private var peak = 0

    /// The bytes read from a file in one go, and written to the connection in one write.
    public static let chunkBytes = 64 << 10
    public static let standardMaxStreams = 64

    public init(maxStreams: Int = SendBudget.standardMaxStreams) {
        self.maxStreams = max(1, maxStreams)
    }

    /// A place to send one file, given back when the lease goes (the answer was sent, failed
    /// or was dropped); nil when every place is taken.
    public func lease() -> Lease? {
        let taken = lock.withLock { () -> Bool in
            guard active < maxStreams else { return false }
            active += 1
            peak = max(peak, active)
            return true
        }
        return taken ? Lease(budget: self) : nil
    }

    /// Files being sent now, and the most there have been at once.
    public var streams: (active: Int, peak: Int) { lock.withLock { (active, peak) } }

    fileprivate func release() { lock.withLock { active -= 1 } }

    public final class Lease: Sendable {
        let budget: SendBudget
        fileprivate init(budget: SendBudget) { self.budget = budget }
        deinit { budget.release() }
    }

    /// A body that sends `slice` in chunks, each read from the open file (off the threads that
    /// run requests) only once the connection can take more. The writer's own backpressure is
    /// not enough: a write returns once the chunk is queued for the connection's event loop,
    /// and a task on another thread ran ahead of a busy loop by megabytes a connection. So
    /// after each write the body waits for the loop to have taken it (`settle`: a task
    /// queued behind it), then for the connection to be writable (`gate`, as its loop sees
    /// it): a connection holds at most its high-water mark and a chunk.
    static func body(_ slice: FileSlice, lease: Lease, connection: (gate: WritableGate, loop: any EventLoop)?) -> ResponseBody {
        ResponseBody(contentLength: slice.range.count) { writer in
            var offset = slice.range.lowerBound
            while offset < slice.range.upperBound {
                try await connection?.gate.waitUntilWritable()
                let count = min(chunkBytes, slice.range.upperBound - offset)
                let buffer = try await read(slice.file, at: offset, count: count)
                try await writer.write(buffer)
                if let loop = connection?.loop { try await loop.submit {}.get() }
                offset += count
            }
            try await writer.finish(nil)
            // The lease lives as long as this body: its place is given back when the body is done with.
            withExtendedLifetime(lease) {}
        }
    }

    /// Reads happen here: a slow disk holds up a queue's thread, never the ones that run requests.
    static let readQueue = DispatchQueue(label: "stories.serve.read", qos: .userInitiated, attributes: .concurrent)

    struct ReadFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ file: SafeFile.Opened, at offset: Int, count: Int) async throws -> ByteBuffer {
        try await withCheckedThrowingContinuation { continuation in
            readQueue.async {
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                var result = 0
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
                    result = file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<count]))
                    return max(0, result)
                }
                // Fewer bytes than the answer promised: the connection ends (its length was said).
                if result == count {
                    continuation.resume(returning: buffer)
                } else if result < 0 {
                    continuation.resume(throwing: ReadFailure(description: "cannot read: \(String(cString: strerror(Int32(-result))))"))
                } else {
                    continuation.resume(throwing: ReadFailure(description: "the file changed while it was sent"))
                }
            }
        }
    }
}

/// Whether a connection can take more, as its event loop sees it, for a body being written
/// from another thread to wait on, and whether its client has gone (a held poll's answer
/// need not wait). `@unchecked Sendable`: `writable`, `closed`, `waiters`, `gone`,
/// `goneHandlers` and `nextHandler` are touched only under `lock`.
public final class WritableGate: @unchecked Sendable {
    private let lock = NSLock()
    private var writable = true
    private var closed = false
    private var waiters: [CheckedContinuation<Void, any Error>] = []

    struct Closed: Error {}

    /// Returns at once while the connection is writable; otherwise when it is again. Throws
    /// when the connection is gone.
    func waitUntilWritable() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.lock()
            if closed {
                lock.unlock()
                continuation.resume(throwing: Closed())
            } else if writable {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    func set(writable now: Bool) {
        let ready: [CheckedContinuation<Void, any Error>] = lock.withLock {
            writable = now
            guard now else { return [] }
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in ready { waiter.resume() }
    }

    func close() {
        let waiting: [CheckedContinuation<Void, any Error>] = lock.withLock {
            closed = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.resume(throwing: Closed()) }
        clientGone()
    }

    // MARK: - The client gone

    private var gone = false
    private var goneHandlers: [UInt64: @Sendable () -> Void] = [:]
    private var nextHandler: UInt64 = 0

    /// Calls `handler` once when the client has gone (closed its side, or the connection
    /// closed) — at once if it already has. Its number, for `forget` when the answer it was
    /// for is done (a keep-alive connection's handlers do not pile up).
    func whenClientGone(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        let id: UInt64? = lock.withLock {
            guard !gone else { return nil }
            nextHandler &+= 1
            goneHandlers[nextHandler] = handler
            return nextHandler
        }
        guard let id else { handler(); return 0 }
        return id
    }

    func forget(_ id: UInt64) { _ = lock.withLock { goneHandlers.removeValue(forKey: id) } }

    /// The client closed its side (or the connection closed).
    func clientGone() {
        let handlers: [@Sendable () -> Void] = lock.withLock {
            gone = true
            defer { goneHandlers.removeAll() }
            return Array(goneHandlers.values)
        }
        for handler in handlers { handler() }
    }
}

/// Closes a connection whose client has taken nothing for `timeout` while an answer waits to
/// go out: a client that stops reading cannot keep a place to send a file, or the bytes in
/// flight, for ever (nginx's `send_timeout`). "Nothing": the bytes the connection holds did
/// not go down since the last look — a slow reader of a large kept file (sent as one
/// buffer, so the channel stays unwritable until it is nearly all taken) is not cut off.
/// Also keeps the connection's `gate` (its writability) for a streamed body to wait on.
final class SendTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    let timeout: TimeAmount
    let gate = WritableGate()
    /// Since when the client has taken nothing (nil: the channel is writable).
    private var stalledSince: NIODeadline?
    /// The bytes the connection held at the last look.
    private var held = 0
    /// One check at a time: writability flips with every answer larger than the socket's
    /// buffer, so the check is not scheduled and cancelled each time, only when none is due.
    private var check: Scheduled<Void>?

    let sendBuffer: Int?

    init(timeout: TimeAmount, sendBuffer: Int? = nil) {
        self.timeout = timeout
        self.sendBuffer = sendBuffer
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        gate.set(writable: context.channel.isWritable)
        if context.channel.isWritable {
            stalledSince = nil
        } else if stalledSince == nil {
            stalledSince = .now()
            held = Self.bytesHeld(context)
            if check == nil { schedule(context, in: timeout) }
        }
        context.fireChannelWritabilityChanged()
    }

    /// What the connection holds, not yet taken by the client.
    static func bytesHeld(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
    }

    private func schedule(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        check = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [weak self] in
            guard let self else { return }
            check = nil
            guard let since = stalledSince else { return } // writable again meanwhile
            let now = Self.bytesHeld(context)
            if now < held {
                // The client took something: it is slow, not gone. Look again a timeout later.
                held = now
                stalledSince = .now()
                schedule(context, in: timeout)
                return
            }
            let waited = NIODeadline.now() - since
            if waited >= timeout {
                context.close(promise: nil)
            } else {
                schedule(context, in: timeout - waited)
            }
        }
    }

    /// The most a connection queues before NIO calls it unwritable (and a streamed body waits
    /// for the client): enough that a kept file of up to this size goes out in one go, with
    /// no wait for writability between its body and its end (a kept file's bytes are shared,
    /// so this costs no copy); a streamed file holds at most this and one chunk.
    static let highWaterMark = 256 << 10

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark,
                                                    value: .init(low: Self.highWaterMark / 2, high: Self.highWaterMark))
        if let sendBuffer {
            try? context.channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        gate.close()
        context.fireChannelInactive()
    }

    /// The client closed its side (Hummingbird allows half-closed connections): an answer
    /// waiting for news (a held poll) need not wait any longer.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { gate.clientGone() }
        context.fireUserInboundEventTriggered(event)
    }

    /// The gate of the connection `channel` belongs to (nil when it has no such handler).
    static func gate(of channel: any Channel) async -> WritableGate? {
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: SendTimeoutHandler.self).gate
        }.get()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        gate.close()
    }
}
