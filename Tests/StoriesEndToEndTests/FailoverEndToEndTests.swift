import Foundation
import StoriesTestSupport
import Testing

/// Issue 51, points 2 and 4. PostgreSQL fails over: a primary and a streaming standby made
/// with `pg_basebackup`, commits synchronous to the standby; two replicas behind
/// docs/deploy.md's nginx, given both hosts (`target_session_attrs=read-write`); viewers
/// sending batches. The primary is killed with SIGKILL and the standby promoted: the
/// replicas find it and carry on, every batch acknowledged is in the promoted database, the
/// gap without writes is measured, and what clients met meanwhile was 503 with Retry-After
/// (never nginx's 502).
@Suite(.serialized, .ownThread) struct FailoverEndToEndTests {
    @Test func aPrimaryKilledAndItsStandbyPromotedLosesNoAcknowledgedBatch() throws {
        let nginx = try #require(["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                 "nginx is not installed (scripts/deps installs it)")
        let primary = try TestPostgres()
        defer { primary.finish() }
        let standby = try TestPostgres(standbyOf: primary)
        defer { standby.finish() }
        try #require(primary.requireSynchronousStandby(), "the standby streams synchronously")
        let name = try primary.database()
        let url = "postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(name)?sslmode=disable&target_session_attrs=read-write"

        let (folder, _) = try ServeEndToEndTests.scratch("failover")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewersFile = folder.appendingPathComponent("viewers.txt").path
        var tokens: [String] = []
        for viewer in ["ayla", "bo", "chen", "dara"] {
            tokens.append(try Binary.run(["serve", "add-viewer", viewer, "--viewers", viewersFile]).out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let ports = [freeLoopbackPort(), freeLoopbackPort()]
        let replicas = try ports.map { try ReplicasEndToEndTests.replica(port: $0, database: url, viewers: viewersFile, folder: folder) }
        defer { for replica in replicas { replica.stop() } }
        let (proxy, front) = try ReplicasEndToEndTests.nginx(nginx, ports: ports, folder: folder, token: tokens[0])
        defer { proxy.stop() }

        let load = ReplicasEndToEndTests.Load(port: front, tokens: tokens)
        let beforeKill = load.acknowledged(after: 1.5, moreThan: 20)
        let killed = ReplicasEndToEndTests.Load.uptime()
        primary.stop(kill: true)
        // The service is without PostgreSQL until the standby is promoted: long enough for
        // every replica's requests to meet it (each waits at most 3 s for the store).
        Pace.pause(4) // the outage's length is the input
        let outage = load.failures()
        let healthDuring = ReplicasEndToEndTests.send(port: ports[0], "GET", "/v1/health", token: "")
        let promoted = standby.promote()
        try #require(promoted.status == 0, "pg_ctl promote: \(promoted.output)")
        let afterPromotion = load.acknowledged(after: 1, moreThan: beforeKill + 40)
        let (sent, failed) = load.finish()
        let healthAfter = ReplicasEndToEndTests.send(port: ports[0], "GET", "/v1/health", token: "")
        #expect(healthDuring.status == 503 && healthDuring.body.contains(#""database":"unavailable""#) && healthAfter.status == 200,
                "/v1/health without PostgreSQL and after: \(healthDuring), \(healthAfter)")
        let gap = load.longestGap(after: killed - 1)

        let said = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".err") }
            .map { ((try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) ?? "").suffix(600) }.joined(separator: "\n")
        #expect(afterPromotion > beforeKill + 40, "batches went on after the promotion: \(beforeKill) before the kill, \(afterPromotion) in all; replicas said: \(said)")
        // Without PostgreSQL, clients heard 503 with when to try again, through nginx.
        #expect(!outage.isEmpty, "requests met the outage")
        let other = failed.filter { !$0.hasPrefix("503 [Retry-After]") }
        #expect(other.count <= tokens.count, "during the outage every failure was 503 with Retry-After (at most the requests in flight at the kill otherwise): \(other.prefix(8))")
        #expect(!failed.contains { $0.hasPrefix("502") }, "nginx never answered 502: \(failed.filter { $0.hasPrefix("502") }.prefix(3))")
        // Both replicas write to the promoted standby now; every acknowledged batch is there.
        for port in ports { try ReplicasEndToEndTests.expectKept(sent, port: port, tokens: tokens) }
        let rows = standby.psql(name, "SELECT count(*) FROM tooltips").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(rows) ?? 0 >= sent.values.map(\.count).reduce(0, +), "the promoted database holds every acknowledged batch: \(rows) rows")
        // The time without writes: from the kill to the first batch after the promotion.
        let measured = String(format: "%.2f", gap.seconds)
        print("failover: \(beforeKill) batches before the kill, \(afterPromotion - beforeKill) after; no write for \(measured) s (outage held 4 s by the test); \(failed.count) requests answered 503")
        #expect(gap.seconds >= 3.5 && gap.seconds < 30, "the gap without writes spans the outage and ends after the promotion: \(measured) s")
    }
}
