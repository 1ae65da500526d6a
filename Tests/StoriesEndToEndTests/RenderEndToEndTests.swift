import Foundation
import StoriesApp
import StoriesAssets
import StoriesCore
import StoriesFeedIO
import StoriesTestSupport
import Testing

/// `stories render` as a person runs it: an asciicast that asciinema plays to the screen the
/// replay ends on, videos ffprobe reads as what was asked for, and clear lines for what
/// cannot be done.
@Suite(.ownThread) struct RenderEndToEndTests {
    static let flows = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/flows")

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("render-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The last screen of the gesture QA flow, from the engine itself.
    @MainActor
    static func lastScreen() throws -> [String] {
        let text = try String(contentsOf: flows.appendingPathComponent("gesture-qa.jsonl"), encoding: .utf8)
        let flow = try Flow.parse(text, file: "gesture-qa.jsonl")
        let directory = try #require(DemoFeed.directory)
        let client = FeedClient(source: try FeedFolder(directory: directory), profile: flow.setup.network, seed: flow.setup.seed)
        var last: [String] = []
        _ = FlowRun.run(flow, client: client, options: HeadlessRun.Options(width: flow.width, height: flow.height)) { canvas, _, _ in
            last = FlowRun.rows(of: canvas).map { row in
                var line = row.joined()
                while line.last == " " { line.removeLast() }
                return line
            }
        }
        return last
    }

    @Test func asciinemaPlaysTheCastToTheScreenTheReplayEndsOn() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/asciinema") else {
            Issue.record("asciinema is not installed (scripts/deps installs it)")
            return
        }
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cast = dir.appendingPathComponent("qa.cast").path
        let run = try Binary.run(["render", Self.flows.appendingPathComponent("gesture-qa.jsonl").path, "--to", cast])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("→ \(cast): 3.2 s"), "one line on what was made: \(run.err)")
        let expected = try await MainActor.run { try Self.lastScreen() }
        let tmux = try Tmux(width: 100, height: 30)
        // `read` keeps the prompt off the screen once asciinema has played it all.
        try tmux.type("clear; asciinema cat \(cast); read -r")
        let last = expected.last { !$0.isEmpty } ?? ""
        let shown = try tmux.waitFor("the cast's last frame") { $0.contains(last) && $0.first == expected.first }
        // The frame writer sends a picture's half block as a space or a lower half block where
        // that shows the same with fewer colour changes: those three are one shape here
        // (colours aside), every other character must be where the replay has it.
        func shape(_ line: String?) -> String {
            var text = String((line ?? "").map { "▀▄ ".contains($0) ? "·" : $0 })
            while text.last == "·" { text.removeLast() }
            return text
        }
        for (row, line) in expected.enumerated() where shape(shown[safe: row]) != shape(line) {
            Issue.record("row \(row): played \(shown[safe: row] ?? "(none)") | replay \(line)")
        }
        #expect(shown.contains { $0.contains("Continue watching") }, "the home the flow ends on")
    }

    @Test func videosAreWhatWasAskedFor() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, codec, size) in [("qa.mp4", "h264", "600x390"), ("qa.webm", "vp9", "600x390"), ("qa.gif", "gif", "600x390")] {
            let path = dir.appendingPathComponent(name).path
            let run = try Binary.run(["render", Self.flows.appendingPathComponent("gesture-qa.jsonl").path, "--to", path,
                                      "--font-size", "10", "--fps", "15", "--theme", "light"])
            #expect(run.status == 0, "\(name): \(run.err)")
            let probe = try Spawn.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_name,width,height",
                                       "-of", "csv=p=0:s=x", path], captureOutput: true)
            #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(codec)x\(size)", "\(name): \(probe.output)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial-") }
            #expect(left.isEmpty, "nothing half made is left: \(left)")
        }
    }

    @Test func whatCannotBeDoneIsSaidAndNothingIsLeft() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flow = Self.flows.appendingPathComponent("tour.jsonl").path
        let extensionRun = try Binary.run(["render", flow, "--to", dir.appendingPathComponent("x.avi").path])
        #expect(extensionRun.status != 0 && extensionRun.err.contains("--to needs a file ending in .mp4, .webm, .gif or .cast"))
        let fps = try Binary.run(["render", flow, "--to", dir.appendingPathComponent("x.mp4").path, "--fps", "0"])
        #expect(fps.status != 0 && fps.err.contains("--fps must be 1 to 60"))
        let folderTarget = try Binary.run(["render", flow, "--to", dir.appendingPathComponent("missing/x.mp4").path])
        #expect(folderTarget.status == 1 && folderTarget.err.contains("cannot be written (No such file or directory)"))
        let bad = dir.appendingPathComponent("bad.jsonl")
        try "{\"stories-recording\":2,\"width\":100,\"height\":30,\"started\":0}\n{\"t\":1,\"mouse\":\"pinch\",\"x\":1,\"y\":1}\n"
            .write(to: bad, atomically: true, encoding: .utf8)
        let hostile = try Binary.run(["render", bad.path, "--to", dir.appendingPathComponent("x.gif").path])
        #expect(hostile.status == 1)
        #expect(hostile.err.contains("bad.jsonl:2: \"mouse\": unknown kind 'pinch'"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "bad.jsonl" }
        #expect(left.isEmpty, "nothing is left behind: \(left)")
    }

    @Test func aRenderStoppedBySIGTERMLeavesNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("tour.gif").path
        let child = try Child([try Binary.requireBuilt(), "render", Self.flows.appendingPathComponent("tour.jsonl").path, "--to", target],
                              environment: ProcessInfo.processInfo.environment)
        func names() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] }
        // Stopped while the file is being made (a GIF's two passes take seconds in a debug build).
        let started = Wait.until(30, every: 0.01) { names().contains { $0.hasPrefix("tour.gif.partial-") } }
        try #require(started, "the render began its file")
        kill(child.pid, SIGTERM)
        let status = child.wait()
        if names().contains("tour.gif") {
            // It finished first on a fast machine: whole, then, and nothing half made beside it.
            #expect(names() == ["tour.gif"])
        } else {
            #expect(names().isEmpty, "the half-made file went with the signal: \(names())")
            #expect(status == 128 + SIGTERM || status == SIGTERM, "ended by the signal: \(status)")
        }
    }
}
