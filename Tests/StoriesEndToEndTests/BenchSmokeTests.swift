import Foundation
import Testing
import StoriesTestSupport

/// Every `stories bench` command runs to its end, briefly (issue 29, point 11): one that
/// crashed in a release build — `bench viewmodels` trapped once moving the selection along
/// 1012 stories asked for item models to be built again — cannot go unseen. Each line it
/// prints with `--json` is one JSON object. (`bench navigation` and `bench viewmodels` have
/// their own tests that read their figures.)
@Suite(.ownThread) struct BenchSmokeTests {
    @Test(arguments: [
        ["bench", "render", "--runs", "1", "--json"],
        ["bench", "video", "--seconds", "1", "--frames", "10", "--symbols", "half", "--json"],
        ["bench", "memory", "--paces", "20", "--at", "5", "--json"],
        ["bench", "frames", "--runs", "1", "--json"],
    ])
    func eachBenchRunsBriefly(arguments: [String]) throws {
        let result = try Binary.run(arguments)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
        }
    }

    /// `bench hold` on a small crowd against the tests' PostgreSQL: every part reported, every
    /// poll held, every wake-up measured, and the churn's polls all held again.
    @Test func benchHoldRunsBriefly() throws {
        let postgres = try TestPostgres.shared()
        let result = try Binary.run(["bench", "hold", "--database", postgres.url(try postgres.database()), "--viewers", "300", "--senders", "30",
                                     "--rate", "30", "--seconds", "1", "--seconds", "2", "--seconds", "2", "--notifies", "200"])
        #expect(result.status == 0, "\(result.err)")
        let out = result.out
        for part in ["one NOTIFY (one name, no poll waiting for it), 200 sent", "held: 300 long polls across 2 replicas", "at rest (300 polls held)",
                     "30 batches a second from 30 viewers", "10% of the polls closed and opened again each second", "polls held afterwards: 300 of 300"] {
            #expect(out.contains(part), "\(part) in:\n\(out)")
        }
        let wakes = try #require(out.firstMatch(of: /p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms over (\d+) wake-ups/), "\(out)")
        #expect((Int(wakes.1) ?? 0) >= 20, "wake-ups measured: \(out)")
        #expect(try Binary.run(["bench", "hold", "--database", "postgres://x/y", "--viewers", "20000"]).err.contains("--viewers is 2 to 10000"))
        #expect(try Binary.run(["bench", "hold", "--database", "/tmp/x.sqlite"]).err.contains("--database is the postgres://"))
        #expect(try Binary.run(["bench", "hold", "--database", "postgres://x/y", "--viewers", "5", "--senders", "9"]).err.contains("--senders is 0 to --viewers (5); got 9"))
    }

    @Test func benchVideoTakesAtLeastOneFrame() throws {
        let result = try Binary.run(["bench", "video", "--frames", "0"])
        #expect(result.status != 0)
        #expect(result.err.contains("--frames takes 1 or more"), "\(result.err)")
    }

    /// `bench fidelity` beside its peers (`scripts/deps` installs chafa and timg): every set
    /// at every depth, each a JSON line whose scores are sane — a picture drawn back is like
    /// its source, more sub-pixels are never less like it, and truecolor beats 16 colours —
    /// and the peers' lines too, measured by the same method: half blocks, the ceiling of
    /// two pixels a cell, score the same for stories, chafa `vhalf` and timg `-ph`.
    @Test func fidelityMeasuresEverySetAndDepth() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let photo = root.appendingPathComponent("Assets/demo/media/astronaut.jpg").path
        let result = try Binary.run(["bench", "fidelity", "--runs", "1", "--size", "24x12", "--json", photo])
        #expect(result.status == 0, "\(result.err)")
        var ssim: [String: Double] = [:], peers: [String: Double] = [:]
        for line in result.out.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            guard object["renderer"] as? String == "stories" else {
                let score = try #require(object["ssim"] as? Double)
                #expect(score > 0.1 && score <= 1, "\(line)")
                peers["\(object["renderer"] ?? "")-\(object["symbols"] ?? "")-\(object["colors"] ?? "")"] = score
                continue
            }
            let score = try #require(object["ssim"] as? Double), psnr = try #require(object["psnr"] as? Double)
            #expect(object["cells"] as? String == "24x12")
            #expect(score > 0.2 && score <= 1 && psnr > 8, "\(line)")
            ssim["\(object["symbols"] ?? "")-\(object["colors"] ?? "")"] = score
        }
        #expect(ssim.count == 16, "four sets at four depths: \(ssim.keys.sorted())")
        let half = try #require(ssim["half-truecolor"]), octant = try #require(ssim["octant-truecolor"])
        #expect(octant >= half, "octants \(octant) against half blocks \(half)")
        #expect(half > (ssim["half-16"] ?? 1), "truecolor above 16 colours")
        #expect((ssim["quad-8"] ?? 0) > 0.2, "eight colours draw the set asked for")
        // The peers (installed by scripts/deps; a machine without them says so here).
        let chafa = try #require(peers["chafa-vhalf-truecolor"], "chafa's lines (scripts/deps installs chafa): \(result.out.prefix(300))")
        let timg = try #require(peers["timg-half-truecolor"], "timg's lines (scripts/deps installs timg)")
        #expect(abs(chafa - half) < 0.01 && abs(timg - half) < 0.01, "half blocks: stories \(half), chafa \(chafa), timg \(timg)")
        #expect(peers.count == 11, "chafa in three sets and three palettes' two, timg in two: \(peers.keys.sorted())")
    }
}
