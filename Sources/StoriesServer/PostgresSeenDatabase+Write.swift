import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// Batches written: many viewers' batches in one statement and one commit.
extension PostgresSeenDatabase {
    /// Writes the batches of a group (one a viewer) in one statement, one transaction: each
    /// viewer's counter moves by one, and their items and tooltips are kept at it.
    static func write(_ batches: [Gatherer.Batch], client: PostgresClient) async throws -> [String: Int64] {
        let statement = RecordGroup(batches)
        // Two groups lock their viewers in the same order (by name), so they cannot
        // deadlock; should PostgreSQL still say so, the group is written again once.
        for attempt in 0..<2 {
            do {
                var counters: [String: Int64] = [:]
                for try await (name, seq) in try await client.execute(statement, logger: Self.quiet) { counters[name] = seq }
                return counters
            } catch let error as PSQLError where attempt == 0 && error.serverInfo?[.sqlState] == "40P01" {
                continue
            }
        }
        throw SeenStoreFailure("the batch was not recorded (PostgreSQL found a deadlock twice)")
    }

    /// The batches of a group as one statement. Prepared once on each connection:
    /// PostgreSQL parses and plans it once rather than for every group (a third of its work
    /// for a batch: `pgbench`, 1 700 against 2 500 a second). No NOTIFY in it: see
    /// `Announcer`.
    struct RecordGroup: PostgresPreparedStatement {
        static let name = "stories_record_group_1"
        static let sql = """
            WITH counters AS (
                INSERT INTO viewers AS v (name, seq)
                SELECT name, 1 FROM unnest($1::text[]) AS u(name) ORDER BY name
                ON CONFLICT (name) DO UPDATE SET seq = v.seq + 1 RETURNING name, seq
            ), items AS (
                INSERT INTO seen (viewer, story, item, seq, seen_at)
                SELECT u.viewer, u.story, u.item, c.seq, u.at
                FROM unnest($2::text[], $3::text[], $4::text[], $5::int8[]) AS u(viewer, story, item, at) JOIN counters c ON c.name = u.viewer
                ON CONFLICT DO NOTHING
            ), shown AS (
                INSERT INTO tooltips (viewer, tooltip, seq)
                SELECT u.viewer, u.tooltip, c.seq FROM unnest($6::text[], $7::text[]) AS u(viewer, tooltip) JOIN counters c ON c.name = u.viewer
                ON CONFLICT DO NOTHING
            )
            SELECT name, seq FROM counters
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .textArray, .textArray, .int8Array, .textArray, .textArray]
        typealias Row = (String, Int64)

        var viewers: [String] = []
        var itemViewers: [String] = [], stories: [String] = [], items: [String] = [], times: [Int64] = []
        var tooltipViewers: [String] = [], tooltips: [String] = []

        init(_ batches: [Gatherer.Batch]) {
            for batch in batches {
                viewers.append(batch.viewer)
                for entry in batch.entries {
                    itemViewers.append(batch.viewer)
                    stories.append(entry.story)
                    items.append(entry.item)
                    times.append(entry.at)
                }
                for tooltip in batch.tooltips {
                    tooltipViewers.append(batch.viewer)
                    tooltips.append(tooltip)
                }
            }
        }

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(viewers)
            bindings.append(itemViewers)
            bindings.append(stories)
            bindings.append(items)
            bindings.append(times)
            bindings.append(tooltipViewers)
            bindings.append(tooltips)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (String, Int64) {
            try row.decode((String, Int64).self)
        }
    }

    /// Batches that arrive while others are being written wait and go together, in one
    /// statement and one commit (one a viewer in each group; a viewer's next batch waits for
    /// the next group). Nothing waits on a clock: a batch that finds the store idle is
    /// written at once, and groups grow only while PostgreSQL is busy. Each commit costs
    /// PostgreSQL about the same however many batches it carries (a flush of the log, a
    /// wake-up of a backend), so under load most of that is shared.
    ///
    /// `@unchecked Sendable`: `pending` and `writing` are touched only under `lock`.
    final class Gatherer: @unchecked Sendable {
        struct Batch: Sendable {
            let viewer: String
            let entries: [SeenEntry]
            let tooltips: [String]
        }
        typealias Outcome = Result<Int64, SeenStoreFailure>
        private struct Waiting {
            let batch: Batch
            /// Taken by whichever answers first: the group's write, or the batch's own
            /// deadline (`patience` from its arrival, however long it waited for a writer).
            let answer: TakenOnce<CheckedContinuation<Outcome, Never>>
            let deadline: DispatchTime
        }
        /// Groups written at once (each on a connection of its own). One or two wrote the
        /// held minute alike (p99 6–9 ms); four made groups smaller and commits more. Two,
        /// so that one slow group does not hold every batch behind it.
        static let writers = 2
        /// The most items (and tooltips) in one group; a batch bigger alone goes alone.
        static let groupItems = 5000
        private let lock = NSLock()
        private var pending: [Waiting] = []
        private var writing = 0
        private var written = (groups: 0, batches: 0)
        /// Groups and batches written so far (tests).
        var counts: (groups: Int, batches: Int) { lock.withLock { written } }
        private let write: @Sendable ([Batch]) async throws -> [String: Int64]
        private let patience: DispatchTimeInterval
        private let timeout: @Sendable () -> SeenStoreFailure
        private let describe: @Sendable (any Error) -> String

        init(patience: DispatchTimeInterval, timeout: @escaping @Sendable () -> SeenStoreFailure, describe: @escaping @Sendable (any Error) -> String,
             write: @escaping @Sendable ([Batch]) async throws -> [String: Int64]) {
            self.patience = patience
            self.timeout = timeout
            self.describe = describe
            self.write = write
        }

        /// Records a batch, answered within `patience` of its arrival whatever is ahead of it:
        /// past its deadline it is answered `timeout` and, when no writer has taken it yet,
        /// never written.
        func record(_ batch: Batch) async -> Outcome {
            await withCheckedContinuation { continuation in
                let answer = TakenOnce(continuation), deadline = DispatchTime.now() + patience
                let group: [Waiting]? = lock.withLock {
                    pending.append(Waiting(batch: batch, answer: answer, deadline: deadline))
                    return nextGroup()
                }
                SeenSignals.timers.asyncAfter(deadline: deadline) { [self] in
                    guard let late = answer.take() else { return }
                    lock.withLock { pending.removeAll { $0.answer === answer } }
                    late.resume(returning: .failure(timeout()))
                }
                if let group { start(group) }
            }
        }


        /// The next group, when a writer is free (under `lock`): the earliest batches, one a
        /// viewer, up to `groupItems`.
        private func nextGroup() -> [Waiting]? {
            // Answered by their own deadlines: none is taken with less than a quarter second
            // left, so that a batch answered 503 is not committed a moment later.
            let soon = DispatchTime.now() + .milliseconds(250)
            pending.removeAll { $0.deadline <= soon }
            guard writing < Self.writers, !pending.isEmpty else { return nil }
            var group: [Waiting] = [], left: [Waiting] = [], viewers = Set<String>(), items = 0
            for waiting in pending {
                let size = waiting.batch.entries.count + waiting.batch.tooltips.count
                if viewers.contains(waiting.batch.viewer) || (!group.isEmpty && items + size > Self.groupItems) {
                    left.append(waiting)
                } else {
                    viewers.insert(waiting.batch.viewer)
                    items += size
                    group.append(waiting)
                }
            }
            pending = left
            writing += 1
            written.groups += 1
            written.batches += group.count
            return group
        }

        /// Writes a group in a task of its own, within `patience`: past it, its batches are
        /// answered with `timeout`, its writer is free for the next group, and the task is
        /// cancelled and left to end when it will (a pool waiting for a server that is gone
        /// does not end at once). A group cut short was committed whole or not at all.
        private func start(_ group: [Waiting]) {
            let settled = TakenOnce(group)
            let task = Task(executorPreference: PostgresStoreLoop.executor) { [self] in
                let result: Result<[String: Int64], SeenStoreFailure>
                do { result = .success(try await write(group.map(\.batch))) } catch let failure as SeenStoreFailure {
                    result = .failure(failure)
                } catch {
                    result = .failure(SeenStoreFailure(describe(error)))
                }
                if let group = settled.take() {
                    Self.answer(group, result)
                    finished()
                }
            }
            SeenSignals.timers.asyncAfter(deadline: .now() + patience) { [self] in
                if let group = settled.take() {
                    Self.answer(group, .failure(timeout()))
                    task.cancel()
                    finished()
                }
            }
        }

        /// A writer is free: the next groups start.
        private func finished() {
            var next: [[Waiting]] = []
            lock.withLock {
                writing -= 1
                while let group = nextGroup() { next.append(group) }
            }
            for group in next { start(group) }
        }

        /// Answers each batch of a group with its viewer's counter (or the failure).
        private static func answer(_ group: [Waiting], _ result: Result<[String: Int64], SeenStoreFailure>) {
            for each in group {
                each.answer.take()?.resume(returning: result.flatMap { counters in
                    counters[each.batch.viewer].map { .success($0) }
                        ?? .failure(SeenStoreFailure("the batch was not recorded (no counter came back)"))
                })
            }
        }
    }
}
