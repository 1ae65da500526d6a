import Foundation
import StoriesTestSupport
import Testing

/// Gestures in a real terminal: SGR mouse reports injected into tmux (`\e[<b;x;yM` press,
/// `…m` release, b = 32 for a drag; 1-based cells), read back from the screen, recorded,
/// and replayed headless.
@Suite(.serialized, .ownThread) struct GestureEndToEndTests {
    /// An SGR mouse report for a 0-based cell.
    static func sgr(_ button: Int, _ column: Int, _ row: Int, release: Bool = false) -> String {
        "\u{1B}[<\(button);\(column + 1);\(row + 1)\(release ? "m" : "M")"
    }

    static func click(_ tmux: Tmux, _ column: Int, _ row: Int) throws {
        try tmux.sendRaw(sgr(0, column, row) + sgr(0, column, row, release: true))
    }

    static func drag(_ tmux: Tmux, from: (Int, Int), through: [(Int, Int)]) throws {
        try tmux.sendRaw(sgr(0, from.0, from.1))
        for point in through {
            Pace.pause(0.03) // a hand's pace: each motion its own report
            try tmux.sendRaw(sgr(32, point.0, point.1))
        }
        Pace.pause(0.03)
        let end = through.last ?? from
        try tmux.sendRaw(sgr(0, end.0, end.1, release: true))
    }

    func header(_ lines: [String]) -> String { lines.count > 1 ? lines[1] : "" }

    @Test func everyMouseGestureDoesWhatTheDocsSayAndTheLogExplainsIt() throws {
        let tmux = try Tmux(width: 100, height: 30)
        let recording = tmux.stateDirectory.appendingPathComponent("session.jsonl").path
        try FileManager.default.createDirectory(at: tmux.stateDirectory, withIntermediateDirectories: true)
        try tmux.type("\(try Binary.requireBuilt()) --record \(recording)")
        try tmux.waitFor(text: "11 stories")

        // Open: a click on the second bubble (columns 12–19 of rows 2–5).
        try Self.click(tmux, 15, 3)
        try tmux.waitFor("Mika's story") { header($0).contains("Mika 🌸") && header($0).hasSuffix("1/3") }

        // Tap zones at 100 columns: 0–32 back, 33–99 on; column 33 is the first of the right.
        try Self.click(tmux, 80, 15)
        try tmux.waitFor("tap right") { header($0).hasSuffix("2/3") }
        try Self.click(tmux, 10, 15)
        try tmux.waitFor("tap left") { header($0).hasSuffix("1/3") }
        try Self.click(tmux, 33, 15)
        try tmux.waitFor("a tap on the zone edge goes on") { header($0).hasSuffix("2/3") }
        try Self.click(tmux, 32, 15)
        try tmux.waitFor("the column before it goes back") { header($0).hasSuffix("1/3") }

        // Hold: pressed still for more than 250 ms pauses; the release plays, and does not tap.
        try tmux.sendRaw(Self.sgr(0, 80, 15))
        try tmux.waitFor("held") { header($0).contains("❚❚ held") && header($0).hasSuffix("1/3") }
        try tmux.sendRaw(Self.sgr(0, 80, 15, release: true))
        try tmux.waitFor("released") { !header($0).contains("held") }
        #expect(header(try tmux.screen()).hasSuffix("1/3"), "the release after a hold did not tap")

        // A drag to the left, 30 of 100 columns, turns the cube to the next story.
        try Self.drag(tmux, from: (80, 15), through: [(70, 15), (60, 15), (50, 16)])
        try tmux.waitFor("the next story") { header($0).contains("山田 花子") && header($0).hasSuffix("1/2") }

        // A short drag (10 columns) snaps back.
        try Self.drag(tmux, from: (80, 15), through: [(75, 15), (70, 15)])
        try tmux.press("g")
        try tmux.waitFor(text: "swipe cancelled (snaps back)")
        #expect(header(try tmux.screen()).contains("山田 花子"))
        try tmux.waitFor(text: "declined: tap (the pointer moved)")

        // Pull down 7 rows (a fifth of 30 is 6): back to the row, on this story's bubble.
        try Self.drag(tmux, from: (50, 5), through: [(50, 8), (51, 12)])
        try tmux.waitFor(text: "pull down (dismiss) → viewer.pullDown → end drag: complete")
        try tmux.waitFor(text: "山田 花子  @hanako")
        try tmux.press("g", "q")
        try tmux.waitForPrompt()

        // The recording replays headless, on the virtual clock, to the same screen twice.
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(text.hasPrefix("{\"height\":30,"))
        #expect(text.split(separator: "\n").last?.hasPrefix("{\"end\":true,") == true, "q wrote the end line")
        let first = try Binary.run(["--headless", "--virtual-clock", "--replay", recording])
        let second = try Binary.run(["--headless", "--virtual-clock", "--replay", recording])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.err.isEmpty)
        #expect(first.out == second.out)
        let lines = first.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 30, "the screen's 30 lines and nothing else")
        #expect(first.out.contains("山田 花子  @hanako"), "the replay ends where the session did: \(first.out)")
    }

    /// A session on a made-up feed over a pretend 3G network replays, with no flags, on the
    /// same feed and network (the recording keeps its setup and seed) to the screen it showed.
    @Test func aSynthetic3GSessionReplaysToTheScreenItShowed() throws {
        let tmux = try Tmux(width: 100, height: 30)
        let recording = tmux.stateDirectory.appendingPathComponent("3g.jsonl").path
        try FileManager.default.createDirectory(at: tmux.stateDirectory, withIntermediateDirectories: true)
        try tmux.type("\(try Binary.requireBuilt()) --synthetic 50 --network 3g --seed 24301 --record \(recording)")
        try tmux.waitFor(text: "of 50 stories")
        try tmux.press("l", "l", "l", "Enter")
        try tmux.waitFor("Teo Kaur's story") { header($0).contains("@user3") }
        try tmux.press("l", "Space")
        try tmux.waitFor("paused on the second item") { header($0).contains("paused") && header($0).contains(" 2/") }
        // The photo arrives over 3G and is drawn (the loading sign moves until then).
        let shown = try tmux.settledScreen()
        try tmux.press("q", "q")
        try tmux.waitForPrompt()

        let text = try String(contentsOfFile: recording, encoding: .utf8)
        let firstLine = try #require(text.split(separator: "\n").first)
        #expect(firstLine.contains(#""feed":{"seed":24301,"synthetic":50}"#) && firstLine.contains(#""name":"3g""#), "\(firstLine)")
        #expect(firstLine.contains(#""seed":24301,"sound":true}"#), "the network's seed is kept (and the sound, on)")
        // Up to just before the first q: the moment the screen above was read.
        let quit = try #require(text.split(separator: "\n").last { $0.contains(#""key":"q""#) && !$0.contains("Space") })
        let t = try #require(Double(String(quit.split(separator: ":").last?.dropLast() ?? "")))
        let replay = try Binary.run(["--headless", "--virtual-clock", "--replay", recording, "--until", "\(t - 0.3)s"])
        #expect(replay.status == 0 && replay.err.isEmpty, "\(replay.err)")
        let replayed = replay.out.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        // The bar is paused where it was; live, the photo took real time to decode, so its
        // start (and so the bar) may differ by a cell.
        let trim = { (line: String) in line.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression) }
        #expect(Array(replayed.dropFirst().prefix(28)).map(trim) == Array(shown.dropFirst().prefix(28)).map(trim))
        let bar = { (line: String) in line.filter { $0 == "━" }.count }
        #expect(abs(bar(replayed.first ?? "") - bar(shown.first ?? "")) <= 1)

        // Given a flag, the flag wins, and the run says what differs.
        let wifi = try Binary.run(["--headless", "--virtual-clock", "--replay", recording, "--network", "wifi"])
        #expect(wifi.err.contains("stories: replaying 3g.jsonl: the network is wifi"), "\(wifi.err)")
        #expect(wifi.err.contains("the recording used 3g"))
        // One value changed keeps the rest of the recorded network.
        let noFailures = try Binary.run(["--headless", "--virtual-clock", "--replay", recording, "--fail", "0"])
        #expect(noFailures.err.contains("the network is 3g: 300 ms ±100 ms, 400 KB/s; the recording used 3g: 300 ms ±100 ms, 400 KB/s, 2% fail"), "\(noFailures.err)")
        // A gesture log that cannot be written ends, the app does not; it is said, and the
        // exit status says so.
        let device = FullDevice.make()
        let fullDevice = try #require(device.path, Comment(rawValue: device.problem ?? ""))
        let full = try Binary.run(["--headless", "--virtual-clock", "--replay", recording, "--gesture-log", fullDevice])
        #expect(full.status == 74 && full.err.contains("No more routing decisions are logged"), "\(full.err)")
        #expect(full.out.contains("stories"), "the screen is still printed")
    }

    /// A replay in the terminal says so on the hint line, with its time, and --until stops it.
    @Test func aLiveReplaySaysItIsOne() throws {
        let tmux = try Tmux(width: 100, height: 30)
        let recording = tmux.stateDirectory.appendingPathComponent("r.jsonl").path
        try FileManager.default.createDirectory(at: tmux.stateDirectory, withIntermediateDirectories: true)
        try Data(#"{"stories-recording":1,"width":100,"height":30,"started":1795240800}"#.utf8 + Data("\n{\"t\":0.5,\"key\":\"Right\"}\n{\"t\":3,\"key\":\"Right\"}\n".utf8))
            .write(to: URL(fileURLWithPath: recording))
        try tmux.type("\(try Binary.requireBuilt()) --replay \(recording) --until 1.5s")
        try tmux.waitFor(text: "▶ replaying r.jsonl")
        try tmux.waitFor(text: "Replaying: the recording is version 1")
        try tmux.waitFor(text: "■ replay r.jsonl stopped at 1.5 s", timeout: 5)
        // The Right at 3 s, due 1.5 s after the stop, never comes (the window is the claim)…
        let held = try Wait.holds(for: 2, every: 0.1) { try !tmux.screen().contains { $0.hasSuffix("@hanako") } }
        #expect(held)
        // The Right at 3 s never came: still on the second story — or on the first, when the
        // feed came after 0.5 s on a loaded machine and that Right found no story to move to.
        // Never on the third.
        let screen = try tmux.screen()
        #expect(screen.contains { $0.hasSuffix("@mika.blooms") || $0.hasSuffix("@ayla") }, "\(screen)")
        #expect(!screen.contains { $0.hasSuffix("@hanako") }, "the Right at 3 s came after the replay stopped: \(screen)")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    /// `--step`: a recording in the terminal, one input per key on a virtual clock, with
    /// the next input said; q ends it.
    @Test func aReplayCanBeSteppedThroughInput() throws {
        let tmux = try Tmux(width: 100, height: 30)
        let recording = tmux.stateDirectory.appendingPathComponent("step.jsonl").path
        try FileManager.default.createDirectory(at: tmux.stateDirectory, withIntermediateDirectories: true)
        try Data(("{\"stories-recording\":1,\"width\":100,\"height\":30,\"started\":1795240800}\n"
            + "{\"t\":0.5,\"key\":\"Right\"}\n{\"t\":1.0,\"key\":\"Enter\"}\n{\"t\":3.0,\"key\":\"Right\"}\n").utf8)
            .write(to: URL(fileURLWithPath: recording))
        try tmux.type("\(try Binary.requireBuilt()) --replay \(recording) --step")
        try tmux.waitFor(text: "next: key → at 0.5 s (3 left)")
        #expect(!(try tmux.settledScreen()).joined(separator: "\n").contains("Mika 🌸  @mika.blooms"), "nothing moves until a key")
        try tmux.press("Right")
        try tmux.waitFor(text: "Mika 🌸  @mika.blooms")
        try tmux.press("Right", "Right")
        try tmux.waitFor("Mika's second item") { $0.count > 1 && $0[1].hasSuffix("2/3") }
        try tmux.waitFor(text: "no input left (0 left)")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func aDragDownFromTheFirstItemInTheSmallestTerminalStillDismisses() throws {
        let tmux = try Tmux.runningStories(width: 40, height: 12)
        try tmux.press("Enter")
        try tmux.waitFor("the viewer") { $0.count > 1 && $0[1].hasSuffix("1/3") && $0[1].contains("Ayla") }
        try Self.drag(tmux, from: (20, 3), through: [(20, 4), (20, 5)])   // 2 rows: at least 2
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func headlessPrintsOnlyTheScreenAndChecksItsFlags() throws {
        let plain = try Binary.run(["--headless", "--size", "60x14"])
        #expect(plain.status == 0, "\(plain.err)")
        let lines = plain.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 14)
        #expect(lines.first?.hasPrefix(" ◉ stories · Demo stories") == true)

        let gestures = try Binary.run(["--headless", "--virtual-clock", "--reduce-motion", "--replay", try recordingFile(["{\"t\":0.2,\"key\":\"g\"}"])])
        #expect(gestures.out.contains("Gestures · now: home · motion off"), "\(gestures.out)")

        let bad: [([String], String)] = [
            (["--virtual-clock"], "--virtual-clock works with --headless (add --headless)"),
            (["--size", "80x24"], "--size works with --headless; the terminal sets the size otherwise"),
            (["--headless", "--size", "80by24"], "--size takes WxH in cells, each 1 to 1000, like 80x40; got '80by24'"),
            (["--headless", "--replay", "/nonexistent/r.jsonl"], "--replay /nonexistent/r.jsonl: no such file"),
            (["--headless", "--replay", "/dev/zero"], "--replay /dev/zero: is a device, not a file"),
            (["--headless", "--replay", "/tmp"], "--replay /tmp: is a folder, not a file"),
        ]
        for (arguments, message) in bad {
            let result = try Binary.run(arguments)
            #expect(result.status != 0)
            #expect(result.err.contains(message), "\(arguments): \(result.err)")
            #expect(result.out.isEmpty)
        }
        let broken = try recordingFile(["{\"t\":1,\"mouse\":\"pinch\",\"x\":1,\"y\":1}"])
        let result = try Binary.run(["--headless", "--replay", broken])
        #expect(result.status == 1)
        #expect(result.err == "stories: \(broken):2: \"mouse\": unknown kind 'pinch' (press, release, drag, move, wheel)\n")
    }

    @Test func aBadSettingsFileIsOneClearLine() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("stories-conf-\(getpid())")
        defer { try? FileManager.default.removeItem(at: config) }
        try FileManager.default.createDirectory(at: config.appendingPathComponent("stories"), withIntermediateDirectories: true)
        let file = config.appendingPathComponent("stories/stories.conf")
        try "reduce-motion = sometimes\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try Binary.run(["--headless"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(result.status == 1)
        #expect(result.err == "stories: \(file.path):1: reduce-motion takes on or off; got 'sometimes'\n")

        try "reduce-motion = on\n".write(to: file, atomically: true, encoding: .utf8)
        let on = try Binary.run(["--headless", "--virtual-clock", "--replay", try recordingFile(["{\"t\":0.1,\"key\":\"g\"}"])],
                                environment: ["XDG_CONFIG_HOME": config.path])
        #expect(on.out.contains("motion off"), "the settings file turned motion off: \(on.out)")
    }

    /// A recording file with a standard header and these lines.
    func recordingFile(_ lines: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "stories-e2e-\(getpid())-\(UUID().uuidString.prefix(6)).jsonl"
        let header = "{\"stories-recording\":1,\"width\":100,\"height\":30,\"started\":1795240800}"
        try ([header] + lines).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
