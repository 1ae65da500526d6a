import Foundation
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 51, point 2: a store given a primary and its standby writes to the standby once it
/// is promoted.
@Suite(.ownThread) struct FailoverTests {
    @Test func aStoreFindsThePromotedStandby() async throws {
        let primary = try TestPostgres()
        defer { primary.finish() }
        let standby = try TestPostgres(standbyOf: primary)
        defer { standby.finish() }
        try #require(primary.requireSynchronousStandby())
        let name = try primary.database()
        let address = try PostgresSeenDatabase.Address.parse("postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(name)?sslmode=disable&target_session_attrs=read-write")
        #expect(address.endpoints.count == 2 && address.readWrite)
        let store = try await PostgresSeenDatabase.open(address)
        _ = try await store.record(viewer: "ayla", entries: [SeenEntry(story: "ayla", item: "rocket", at: 1_000_000_000)], tooltips: ["one"])
        primary.stop(kill: true)
        _ = try? await store.record(viewer: "ayla", entries: [], tooltips: ["lost?"])
        #expect(standby.promote().status == 0)
        var recorded = false
        for _ in 0..<100 where !recorded {
            recorded = (try? await store.record(viewer: "ayla", entries: [], tooltips: ["two"])) != nil
            if !recorded { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recorded && store.primary.changes == 1)
        let everything = try await store.everything(viewer: "ayla")
        #expect(everything.tooltips.isSuperset(of: ["one", "two"]))
        await store.close()
    }
}
