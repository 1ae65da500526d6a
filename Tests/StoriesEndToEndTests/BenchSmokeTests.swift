import Foundation
import Testing

/// Every `stories bench` command runs to its end, briefly (issue 29, point 11): one that
/// crashed in a release build — `bench viewmodels` trapped once moving the selection along
/// 1012 stories asked for item models to be built again — cannot go unseen. Each line it
/// prints with `--json` is one JSON object. (`bench navigation` and `bench viewmodels` have
/// their own tests that read their figures.)
@Suite struct BenchSmokeTests {
    @Test(arguments: [
        ["bench", "render", "--runs", "1", "--json"],
        ["bench", "video", "--seconds", "1", "--json"],
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
}
