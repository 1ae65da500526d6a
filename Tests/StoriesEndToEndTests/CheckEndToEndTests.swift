import Foundation
import StoriesTestSupport
import Testing

/// `stories check` as a tester and a CI system use it: the exit status, one line per
/// expectation, JUnit XML, and hostile flow files refused with the file, line and reason.
@Suite(.ownThread) struct CheckEndToEndTests {
    static let flows = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/flows")

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theProjectsFlowsPassAndWriteJUnit() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("results.xml").path
        let run = try Binary.run(["check", Self.flows.appendingPathComponent("tour.jsonl").path,
                                  Self.flows.appendingPathComponent("gesture-qa.jsonl").path, "--junit", junit, "--seed", "7"])
        #expect(run.status == 0, "\(run.out)\(run.err)")
        let lines = run.out.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("✓ ") }.count >= 20)
        #expect(lines.contains { $0.hasPrefix("passed ") && $0.contains("tour.jsonl: 12 of 12 expectations met") })
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"stories check\""))
        #expect(xml.contains("failures=\"0\" errors=\"0\""))
    }

    @Test func aFailingFlowExitsOneAndSaysWhy() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flow = dir.appendingPathComponent("f.jsonl")
        try """
            {"stories-flow":1,"width":100,"height":30}
            {"key":"Enter"}
            {"expect":"shown","story":"mika"}
            {"expect":"screen","file":"home.txt"}
            """.write(to: flow, atomically: true, encoding: .utf8)
        try "not the screen\n".write(to: dir.appendingPathComponent("home.txt"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["check", "--quiet", flow.path])
        #expect(run.status == 1)
        let lines = run.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "✗ \(flow.path):3 story mika shown (0.27 s)")
        #expect(lines.contains("    found:    story ayla, item 1 of 3 (astronaut)"))
        #expect(lines.contains("    -   0|not the screen"))
        #expect(lines.contains { $0.hasPrefix("FAILED \(flow.path): 0 of 2 expectations met") })
    }

    @Test func hostileFlowsAreRefusedClearlyAndTheOthersStillRun() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        // Escapes written as JSON writes them (a raw control character is not valid JSON).
        let escape = try write("escape.jsonl", #"{"stories-flow":1}"# + "\n" + #"{"expect":"\u001b]52;c;aGk=\u0007"}"# + "\n")
        let outside = try write("outside.jsonl", "{\"stories-flow\":1}\n{\"expect\":\"screen\",\"file\":\"../../etc/passwd\"}\n")
        let linked = try write("linked.jsonl", "{\"stories-flow\":1}\n{\"expect\":\"screen\",\"file\":\"passwd.txt\"}\n")
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("passwd.txt").path, withDestinationPath: "/etc/passwd")
        let server = try write("server.jsonl", "{\"stories-flow\":1,\"setup\":{\"feed\":{\"server\":\"http://example.com\"}}}\n")
        let fifo = dir.appendingPathComponent("fifo.jsonl").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let good = try write("good.jsonl", "{\"stories-flow\":1}\n{\"expect\":\"shown\",\"home\":true}\n")
        let junit = dir.appendingPathComponent("j.xml").path
        let run = try Binary.run(["check", escape, outside, linked, server, fifo, dir.path, good, "--junit", junit])
        #expect(run.status == 2, "a flow that cannot be read: 2")
        #expect(!run.err.contains("\u{1B}") && !run.out.contains("\u{1B}"))
        let said = run.err.split(separator: "\n").map(String.init)
        #expect(said.contains { $0.hasPrefix("stories: \(escape):2: \"expect\": unknown kind") })
        #expect(said.contains { $0.hasPrefix("stories: \(outside):2: \"file\" must be a path inside the flow's folder") })
        #expect(said.contains { $0.hasPrefix("stories: \(linked):2: snapshot passwd.txt:") }, "a link out of the folder is not followed")
        #expect(!run.out.contains("root:"), "nothing of the linked file is shown")
        #expect(said.contains { $0.hasPrefix("stories: \(server): setup.feed names http://example.com") })
        #expect(said.contains { $0.hasPrefix("stories: \(fifo):") })
        #expect(said.contains { $0.hasPrefix("stories: \(dir.path):") })
        #expect(run.out.contains("passed \(good): 1 of 1 expectations met"), "the readable flow still ran")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("errors=\"6\""))
    }

    @Test func aRecordedFlowChecksAsItWasRecorded() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flow = dir.appendingPathComponent("recorded.jsonl").path
        let tmux = try Tmux.runningStories(arguments: "record --flow \(flow)", stateDirectory: dir.appendingPathComponent("state"))
        try tmux.press("Enter")
        try tmux.waitFor(text: "Training day at the space centre.")
        try tmux.press("Right")
        try tmux.waitFor(text: "Zero gravity is mostly paperwork.")
        try tmux.press("Escape")
        try tmux.waitForLoadedRingRow()
        try tmux.press("q")
        try tmux.expectGivenBack(status: 0)
        let text = try String(contentsOfFile: flow, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("{") == true && lines.first?.contains("\"stories-flow\":1") == true)
        #expect(lines.contains { $0.contains("\"expect\":\"gesture\"") && $0.contains("\"gesture\":\"tap right\"") })
        #expect(lines.contains { $0.contains("\"expect\":\"shown\"") && $0.contains("\"story\":\"ayla\"") && $0.contains("\"item\":2") })
        let check = try Binary.run(["check", flow])
        #expect(check.status == 0, "\(check.out)\(check.err)")
        #expect(check.out.contains("passed \(flow):"))
        #expect(!check.out.contains("the app quit"), "a flow that ends with q ends there")
    }

    @Test func snapshotsAreWrittenOnRequestAndDiffedWithTheirSpaces() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flow = dir.appendingPathComponent("s.jsonl").path
        try #"{"stories-flow":1,"width":80,"height":24}"#.appending("\n" + #"{"expect":"screen","file":"home.txt"}"# + "\n")
            .write(toFile: flow, atomically: true, encoding: .utf8)
        let missing = try Binary.run(["check", flow])
        #expect(missing.status == 2 && missing.err.contains("snapshot home.txt: no such file (stories check --update-snapshots writes it"))
        let update = try Binary.run(["check", flow, "--update-snapshots"])
        #expect(update.status == 0 && update.out.contains("screen equals home.txt — snapshot written"), "\(update.out)\(update.err)")
        let written = try String(contentsOfFile: dir.appendingPathComponent("home.txt").path, encoding: .utf8)
        let title = try #require(written.split(separator: "\n").first)
        #expect(title.hasPrefix(" ◉ stories · Demo stories   ") && title.hasSuffix("11 stories"), "the screen's own columns: \(title)")
        #expect(try Binary.run(["check", flow]).status == 0, "met as written")
        // One column moved: the diff shows both lines as they are, spaces and all.
        try written.replacingOccurrences(of: " ◉ stories", with: "◉  stories").write(toFile: dir.appendingPathComponent("home.txt").path,
                                                                                     atomically: true, encoding: .utf8)
        let moved = try Binary.run(["check", flow, "--quiet"])
        #expect(moved.status == 1)
        #expect(moved.out.contains("    -   0|◉  stories · Demo stories   "))
        #expect(moved.out.contains("    +   0| ◉ stories · Demo stories   "))
    }

    @Test func aFlowsFolderFeedIsBesideItUnlessTheRunSaysOtherwise() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outside = dir.appendingPathComponent("outside.jsonl").path
        try #"{"stories-flow":1,"setup":{"feed":{"folder":"/usr/share"}}}"#.appending("\n" + #"{"expect":"shown","home":true}"# + "\n")
            .write(toFile: outside, atomically: true, encoding: .utf8)
        let refused = try Binary.run(["check", outside])
        #expect(refused.status == 2 && refused.err.contains("names the folder /usr/share, which is not inside the flow's folder; pass --feed PATH"))
        let up = dir.appendingPathComponent("up.jsonl").path
        try #"{"stories-flow":1,"setup":{"feed":{"folder":"../.."}}}"#.appending("\n").write(toFile: up, atomically: true, encoding: .utf8)
        #expect(try Binary.run(["check", up]).status == 2)
        // The person's own choice runs it: the demo feed's folder, given on the command line.
        let demo = Self.flows.deletingLastPathComponent().appendingPathComponent("demo").path
        let chosen = try Binary.run(["check", outside, "--feed", demo])
        #expect(chosen.status == 0, "\(chosen.out)\(chosen.err)")
    }
}
