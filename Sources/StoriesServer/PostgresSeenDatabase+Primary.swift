import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// The host the store writes to, among those its address names, and the pool of
/// connections to it.
extension PostgresSeenDatabase {
    /// The pool's connections to the host written to (plus one that listens, and one for a
    /// moment while a host to write to is looked for): what PostgreSQL's `max_connections`
    /// must leave room for, a replica at a time (docs/deploy.md, "Sizing").
    public static let poolConnections = 16

    /// Which host the store writes to now. With an address of one host this never changes
    /// (the pool reconnects to it by itself). With several, a failure of the work sets off a
    /// look along the hosts, in the address's order, for the first that answers — and, with
    /// `target_session_attrs=read-write`, is not in recovery (a standby) — one look at a
    /// time, at most one a second when it keeps the same host; until one is found the look
    /// is made again on the one reconnection policy (`Backoff.reconnect`). The pool of the
    /// host left is closed; work meanwhile answers 503 and clients send it again.
    ///
    /// `@unchecked Sendable`: `current`, `looking`, `lastLook`, `lookTask`, `closed`, `moves`
    /// and `onMove` are touched only under `lock`.
    final class Primary: @unchecked Sendable {
        struct Current {
            let index: Int
            let client: PostgresClient
            let running: Task<Void, Never>
        }
        let address: Address
        /// One connection's configuration for each host (made once: a TLS context reads the
        /// system's certificates from disk, which the store's loop must not do again).
        let connections: [PostgresConnection.Configuration]
        private let lock = NSLock()
        private var current: Current
        private var looking = false
        /// When the last look ended (nil: none yet; a DispatchTime of 0 would be read as "now").
        private var lastLook: DispatchTime?
        private var closed = false
        /// How many times the host written to changed (tests, and the log).
        private var moves = 0
        /// Said when the host written to changes (stories serve prints it).
        let said: @Sendable (String) -> Void
        /// The look under way, cancelled by `close`.
        private var lookTask: Task<Void, Never>?
        /// Told when the host written to changes (the listening connection moves with it).
        private var onMove: (@Sendable () -> Void)?

        func whenMoved(_ handler: @escaping @Sendable () -> Void) { lock.withLock { onMove = handler } }

        deinit {
            // A store dropped without `close()`: its pool and its look end with it.
            current.running.cancel()
            lookTask?.cancel()
        }

        init(address: Address, index: Int, connections: [PostgresConnection.Configuration], said: @escaping @Sendable (String) -> Void) {
            self.address = address
            self.connections = connections
            self.said = said
            current = Self.pool(address, index)
        }

        private static func pool(_ address: Address, _ index: Int) -> Current {
            let client = PostgresClient(configuration: address.at(index).configuration, eventLoopGroup: PostgresStoreLoop.group)
            // The pool's background work runs on the stores' own event loop (PostgresStoreLoop).
            let running = Task(executorPreference: PostgresStoreLoop.executor) { await client.run() }
            return Current(index: index, client: client, running: running)
        }

        var client: PostgresClient { lock.withLock { current.client } }
        /// The address, at the host written to now (what failures name).
        var here: Address { address.at(lock.withLock { current.index }) }
        /// The listening connection's configuration, for the host written to now.
        var listener: PostgresConnection.Configuration { connections[lock.withLock { current.index }] }
        var changes: Int { lock.withLock { moves } }

        /// Work failed: with other hosts to go to, look for the one to write to.
        func failed() {
            guard address.endpoints.count > 1 else { return }
            let start: Bool = lock.withLock {
                guard !looking, !closed, lastLook.map({ DispatchTime.now() >= $0 + .seconds(1) }) ?? true else { return false }
                looking = true
                return true
            }
            guard start else { return }
            let task = Task(executorPreference: PostgresStoreLoop.executor) { [weak self] () async -> Void in await self?.look() }
            lock.withLock { lookTask = task }
        }

        /// The host written to is asked first, and kept while it answers (and takes writes,
        /// when asked): a statement that failed for a reason of its own does not send the
        /// writes elsewhere. Only when it does not are the others asked, in order.
        private func look() async {
            var attempt = 0
            while !lock.withLock({ closed }), !Task.isCancelled {
                let here = lock.withLock { current.index }
                let kept = await Self.suitable(address, connections, only: here)
                let found = kept.index != nil ? kept : await Self.suitable(address, connections)
                if let index = found.index {
                    let (left, moved): (Current?, (@Sendable () -> Void)?) = lock.withLock {
                        defer { looking = false; lastLook = .now() }
                        guard !closed, index != current.index else { return (nil, nil) }
                        let left = current
                        current = Self.pool(address, index)
                        moves += 1
                        return (left, onMove)
                    }
                    if let left {
                        left.running.cancel()
                        moved?()
                        said("seen store: writing to \(address.endpoints[index].shown) now (before, \(address.endpoints[left.index].shown): \(kept.why[left.index] ?? "it did not answer"))")
                    }
                    return
                }
                attempt += 1
                try? await Task.sleep(for: .seconds(Backoff.reconnect.delay(afterAttempt: attempt)))
            }
            lock.withLock { looking = false }
        }

        /// The first host (in the address's order) that answers and, when asked, takes
        /// writes; and why each one before it was passed over.
        /// `only`: that host alone.
        static func suitable(_ address: Address, _ connections: [PostgresConnection.Configuration], only: Int? = nil) async -> (index: Int?, why: [Int: String]) {
            var why: [Int: String] = [:]
            for (index, configuration) in connections.enumerated() where only == nil || only == index {
                do {
                    let connection = try await PostgresConnection.connect(on: PostgresStoreLoop.group.next(), configuration: configuration, id: 0, logger: quiet)
                    var standby = false
                    if address.readWrite {
                        do {
                            standby = try await connection.query("SELECT pg_is_in_recovery()", logger: quiet).collect().first.map { try $0.decode(Bool.self) } ?? true
                        } catch {
                            try? await connection.close()
                            throw error
                        }
                    }
                    try? await connection.close()
                    if standby {
                        why[index] = "is a standby (in recovery: it takes no writes)"
                        continue
                    }
                    return (index, why)
                } catch {
                    why[index] = reason(error, address.at(index))
                }
            }
            return (nil, why)
        }

        func close() async {
            let (running, look) = lock.withLock { () -> (Task<Void, Never>, Task<Void, Never>?) in
                closed = true
                return (current.running, lookTask)
            }
            look?.cancel()
            running.cancel()
            await running.value
        }
    }
}
