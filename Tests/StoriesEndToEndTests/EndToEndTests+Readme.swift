import Foundation
import StoriesTestSupport
import Testing

/// README and keys.conf, as a newcomer meets them, in a real terminal.
extension EndToEndTests {
    /// README is true about flags: every `--flag` it names is one the app's help lists
    /// (link anchors aside, and `.ci/run --deps`, a script's).
    @Test func everyFlagREADMENamesExists() throws {
        var help = try Binary.run(["--help"]).out
        for command in [["view"], ["serve"], ["init"], ["print"], ["play"], ["bench", "render"], ["bench", "viewmodels"],
                        ["bench", "navigation"], ["bench", "video"], ["bench", "memory"], ["bench", "frames"], ["bench", "fidelity"],
                        ["assets", "blurhash"], ["check"], ["render"], ["record"], ["bench", "film"], ["bench", "hold"]] {
            help += try Binary.run(["help"] + command).out
        }
        let text = Self.readme.replacingOccurrences(of: #"#[^)\s]*"#, with: "", options: .regularExpression)
        let flags = Set(text.matches(of: /--[a-z][a-z0-9-]*/).map { String($0.output) })
        #expect(flags.count > 30, "README was read")
        for flag in flags.sorted() where !["--deps", "--generate-completion-script", "--gif"].contains(flag) {
            #expect(help.contains(flag + " ") || help.contains(flag + "\n") || help.contains(flag + ","), "README names \(flag), which no help lists")
        }
        #expect(try Binary.run(["--generate-completion-script", "bash"]).status == 0)
    }

    /// README's GIF is the tour flow as `stories render` makes it now (`scripts/readme-captures
    /// --gif` made it): rendered again here, byte for byte (the replay, the font and the
    /// palette are the same every time on this system).
    @Test func theREADMEGIFIsTheTourRendered() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #expect(Self.readme.contains("](docs/images/tour.gif)"), "README shows the GIF")
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("tour-\(UUID().uuidString).gif")
        defer { try? FileManager.default.removeItem(at: fresh) }
        let run = try Binary.run(["render", root.appendingPathComponent("Assets/flows/tour.jsonl").path, "--to", fresh.path,
                                  "--font-size", "10", "--fps", "10"])
        #expect(run.status == 0, "\(run.err)")
        let committed = try Data(contentsOf: root.appendingPathComponent("docs/images/tour.gif"))
        #expect(try Data(contentsOf: fresh) == committed,
                "docs/images/tour.gif is not what stories render makes now: run scripts/readme-captures .build/debug/stories --gif")
        #expect(committed.count < 1_000_000, "small enough for a README: \(committed.count) bytes")
    }

    /// README's captures are what the app draws: `scripts/readme-captures` makes each from the
    /// app (headless, on the virtual clock), and each must be in README as it is.
    /// Every capture README marks (`<!-- capture: NAME -->` before its block) is what
    /// `scripts/readme-captures` makes now, and the script makes no capture README lacks
    /// (issue 46: the home's Arabic bubble was drawn unshaped in README, made with a setting
    /// a person does not have).
    @Test func theREADMECapturesAreWhatTheAppDraws() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let (status, output) = try Spawn.run([root.appendingPathComponent("scripts/readme-captures").path, try Binary.requireBuilt()],
                                            captureOutput: true)
        #expect(status == 0)
        var made: [String: String] = [:]
        for capture in output.components(separatedBy: "## ").dropFirst() {
            let lines = capture.split(separator: "\n", omittingEmptySubsequences: false)
            var body = lines.dropFirst().map(String.init)
            while body.last == "" { body.removeLast() }
            made[lines.first.map(String.init) ?? ""] = body.joined(separator: "\n")
        }
        #expect(made.count == 7)
        // README's marked blocks, by name.
        var marked: [String: String] = [:]
        let parts = Self.readme.components(separatedBy: "<!-- capture: ").dropFirst()
        for part in parts {
            guard let close = part.range(of: " -->\n```text\n"), let end = part.range(of: "\n```", range: close.upperBound..<part.endIndex) else {
                Issue.record("a capture marker not followed by a text block: \(part.prefix(60))")
                continue
            }
            marked[String(part[..<close.lowerBound])] = String(part[close.upperBound..<end.lowerBound])
        }
        #expect(Set(marked.keys) == Set(made.keys), "README marks \(marked.keys.sorted()), the script makes \(made.keys.sorted())")
        for (name, body) in made {
            #expect(marked[name] == body, "README's \(name) capture is not what the app draws now (run scripts/readme-captures):\n\(body)")
        }
    }

    @Test func keysCanBeRebound() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("keys-e2e-\(UUID())")
        let config = state.appendingPathComponent("config/stories")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "# next item on n as well as →\nviewer nextItem n Right\n".write(to: config.appendingPathComponent("keys.conf"), atomically: true, encoding: .utf8)
        let tmux = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        try tmux.press("n")
        try tmux.waitFor(text: "2/3")
        try tmux.press("l") // no longer bound
        try tmux.press("?")
        try tmux.waitFor(text: "n →")
        #expect(tmux.text.contains("2/3"))
        try tmux.press("Escape", "Escape", "q")
        try tmux.waitForPrompt()
    }

    @Test func aBadKeysFileIsOneClearLine() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("keys-bad-\(UUID())")
        let config = state.appendingPathComponent("config/stories")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "viewer nextItem n\nviewer jump x\n".write(to: config.appendingPathComponent("keys.conf"), atomically: true, encoding: .utf8)
        let tmux = try Tmux(width: 200, height: 10, stateDirectory: state)
        try tmux.type("\(try Binary.requireBuilt()); echo exit=$?")
        try tmux.waitFor(text: "exit=1")
        #expect(tmux.text.contains("stories: \(config.path)/keys.conf:2: unknown action 'jump'"))
    }

    @Test func eachTestsTmuxServerGoesAwayAfterwards() throws {
        var tmux: Tmux? = try Tmux(width: 40, height: 10)
        let pid = try #require(try tmux?.serverPID())
        #expect(kill(pid, 0) == 0)
        tmux = nil
        // Gone means no process, or a zombie: the daemonised server is reparented to
        // PID 1, and in a container PID 1 may never reap it.
        func isGone() -> Bool {
            if kill(pid, 0) != 0 { return true }
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }
        let held = Wait.until(5, every: 0.02, isGone)
        #expect(held, "tmux server \(pid) still running: test servers would pile up")
    }
}
