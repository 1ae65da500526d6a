import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// The listening connection: batches recorded by any replica, heard through NOTIFY.
extension PostgresSeenDatabase {
    // MARK: - Batches recorded by any replica

    /// Listens on `stories_seen` on a connection of its own for as long as the store is
    /// open, and tells the observers whose batch it was. While the connection is away every
    /// waiting answer is woken once it is back (what came meanwhile was not heard).
    /// `configuration`: for the host written to now (it may change between tries).
    static func listen(_ configuration: @Sendable () -> PostgresConnection.Configuration, _ observers: Observers) async {
        var failures = 0 // tries in a row that did not listen; waits by the one rule (`Backoff.reconnect`)
        var id = 1
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(on: PostgresStoreLoop.group.next(), configuration: configuration(), id: id, logger: quiet)
                id &+= 1
                do {
                    try await connection.listen(on: channel) { notifications in
                        observers.tell(nil)
                        failures = 0
                        for try await notification in notifications {
                            for viewer in notification.payload.split(separator: ",", omittingEmptySubsequences: false) {
                                observers.tell(String(viewer))
                            }
                        }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            guard !Task.isCancelled else { return }
            failures += 1
            try? await Task.sleep(for: .seconds(Backoff.reconnect.delay(afterAttempt: failures)))
            observers.tell(nil)
        }
    }

    /// Tells the other replicas whose batches were recorded here, gathered for 25 ms into
    /// one NOTIFY. A NOTIFY inside each batch's statement made every batch
    /// commit one after another (PostgreSQL holds one lock for all of a database's
    /// notifying transactions until each has committed, so their commits cannot share a
    /// flush of the log): `pgbench` on the batch, 1 400 a second with it against 5 000
    /// without, at 32 connections. A batch is acknowledged once committed; the wake-up of
    /// waits on other replicas follows within `gather`. Armed only while there is something
    /// to tell: no timer runs when nothing is recorded.
    ///
    /// `@unchecked Sendable`: `pending` and `armed` are touched only under `lock`.
    final class Announcer: @unchecked Sendable {
        /// Every NOTIFY wakes the listening connection of every replica and the waits it
        /// names: gathered for 5 ms, the held minute's p99 was 14–31 ms; for 25 ms, 5–9 ms
        /// (both with the work on an event loop of NIO's shared group; PostgreSQL's CPU for a
        /// batch 0.48 → 0.35 ms). A wait on another replica hears of
        /// a batch up to 25 ms later, well inside the second the terminals promise.
        static let gather = DispatchTimeInterval.milliseconds(25)
        /// The most bytes of names in one NOTIFY (PostgreSQL takes up to 8 000).
        static let payloadBytes = 7000
        private let lock = NSLock()
        private var pending: Set<String> = []
        private var armed = false
        private let send: @Sendable ([String]) async -> Void

        init(send: @escaping @Sendable ([String]) async -> Void) { self.send = send }

        func add(_ viewer: String) {
            let arm: Bool = lock.withLock {
                pending.insert(viewer)
                defer { armed = true }
                return !armed
            }
            guard arm else { return }
            SeenSignals.timers.asyncAfter(deadline: .now() + Self.gather) { [self] in
                let viewers: [String] = lock.withLock {
                    defer { pending = []; armed = false }
                    return Array(pending)
                }
                let payloads = Self.payloads(viewers)
                let send = send
                Task(executorPreference: PostgresStoreLoop.executor) { await send(payloads) }
            }
        }

        /// Names joined by commas, no payload past `payloadBytes` (a name has no comma; the
        /// anonymous viewer of a server without viewers is the empty name).
        static func payloads(_ viewers: [String]) -> [String] {
            var out: [String] = [], chunk: [String] = [], bytes = 0
            for viewer in viewers {
                if !chunk.isEmpty, bytes + 1 + viewer.utf8.count > payloadBytes {
                    out.append(chunk.joined(separator: ","))
                    chunk = []
                    bytes = 0
                }
                bytes += viewer.utf8.count + (chunk.isEmpty ? 0 : 1)
                chunk.append(viewer)
            }
            if !chunk.isEmpty { out.append(chunk.joined(separator: ",")) }
            return out
        }
    }

    /// `@unchecked Sendable`: `handlers` is touched only under `lock`.
    final class Observers: @unchecked Sendable {
        private let lock = NSLock()
        private var handlers: [@Sendable (String?) -> Void] = []
        func add(_ handler: @escaping @Sendable (String?) -> Void) { lock.withLock { handlers.append(handler) } }
        func tell(_ viewer: String?) {
            for handler in lock.withLock({ handlers }) { handler(viewer) }
        }
    }
}
