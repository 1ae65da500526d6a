import Foundation
import StoriesTestSupport
import Testing

/// Files that cannot be written, things that are not files, signals, suspend, idle, terminals.
extension EndToEndTests {
    /// A seen state that cannot be kept (a file where its folder goes) is said on the home
    /// screen, once, with why; the app goes on, says it again when it ends, and its exit
    /// status says so (issue 27, point 6).
    @Test func aSeenStateThatCannotBeKeptIsSaid() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-seen-blocked-\(UUID().uuidString)")
        try Data("not a folder".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("XDG_STATE_HOME=\(blocker.path) \(try Binary.requireBuilt())")
        try tmux.waitFor(text: "11 stories") // the pages are in: Enter has a story to open
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        try tmux.waitForPlaying(item: 1)
        try tmux.press("Escape")
        try tmux.waitFor(text: "⚠ What you watch is not kept for next time: seen state")
        try tmux.press("q")
        try tmux.expectGivenBack(status: 74)
        try tmux.waitFor(text: "stories: What you watch is not kept for next time: seen state")
    }

    /// Issue 27, point 6: `--record /dev/full` (a full disk) used to exit 0 and say nothing.
    /// Now the notice line says it at once, the app goes on, the line is said again after
    /// the terminal is given back, and the exit status is 74 (EX_IOERR).
    @Test func aRecordingToAFullDiskIsSaidAndTheExitStatusSaysSo() throws {
        let device = FullDevice.make()
        let full = try #require(device.path, Comment(rawValue: device.problem ?? ""))
        let tmux = try Tmux(width: 140, height: 30)
        try tmux.type("\(try Binary.requireBuilt()) --record \(full)")
        try tmux.waitFor(text: "⚠ The recording stops here: --record \(full): the disk is full")
        // The recording's first line fails before the feed is in: wait for the ring row, or
        // Right finds no second story (seen in CI on a loaded machine).
        try tmux.waitForLoadedRingRow()
        try tmux.press("Right")
        try tmux.waitFor("the second story selected") { $0.count > 8 && $0[7].hasPrefix("  Mika") }
        try tmux.press("q")
        try tmux.expectGivenBack(status: 74)
        try tmux.waitFor(text: "stories: The recording stops here: --record \(full): the disk is full")
    }

    /// The same headless: said on stderr at once and at the end, the screen still on stdout,
    /// exit status 74; and --record with --headless, which would record nothing, is refused.
    @Test func aGestureLogToAFullDiskHeadlessIsSaidTwiceAndTheExitStatusSaysSo() throws {
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: recording) }
        try Data("""
            {"stories-recording":1,"width":80,"height":20,"started":1795240800}
            {"t":0.5,"key":"Right"}
            {"t":1.0,"key":"Enter"}

            """.utf8).write(to: recording)
        let device = FullDevice.make()
        let full = try #require(device.path, Comment(rawValue: device.problem ?? ""))
        let run = try Binary.run(["--headless", "--virtual-clock", "--replay", recording.path, "--gesture-log", full])
        #expect(run.status == 74, "\(run.err)")
        #expect(run.err.components(separatedBy: "stories: No more routing decisions are logged: --gesture-log \(full): the disk is full").count == 3,
                "once at once, once at the end: \(run.err)")
        #expect(run.out.contains("1/3"), "the screen is still printed: \(run.out)")
        let refused = try Binary.run(["--headless", "--record", "x.jsonl"])
        #expect(refused.status == 64 && refused.err.contains("--record keeps a session in the terminal"), "\(refused.err)")
        let screenLost = try Binary.run(["--headless", "--virtual-clock", "--replay", recording.path], stdoutPath: full)
        #expect(screenLost.status == 1 && screenLost.err.contains("the screen could not be written to standard output"), "\(screenLost.err)")
    }

    /// Issue 27, point 7: a FIFO, a device or a socket named where a folder or a file goes is
    /// called what it is, by every command (a FIFO used to be "is a file"), and nothing
    /// blocks on a FIFO.
    @Test func aFIFOADeviceOrASocketIsCalledWhatItIs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path, socketPath = folder.appendingPathComponent("sock").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a device"), (socketPath, "a socket")] {
            for command in [[path], ["--feed", path], ["serve", "--port", "0", path], ["init", path]] {
                let run = try Binary.run(command)
                #expect(run.status == 1 && run.err.contains(": is \(kind), not a folder of photos and videos"), "\(command): \(run.err)")
            }
            let blurhash = try Binary.run(["assets", "blurhash", path])
            #expect(blurhash.err.contains("is \(kind), not a folder; --feed takes") && !blurhash.err.contains("stories init"), "\(blurhash.err)")
            for command in [["print", path], ["play", path], ["--replay", path]] {
                let run = try Binary.run(command)
                #expect(run.status == 1 && run.err.contains("is \(kind), not a file"), "\(command): \(run.err)")
            }
        }
    }

    /// Ctrl-\ quits like Ctrl-C (no half-minute backtrace in curses mode), and Ctrl-S does
    /// not freeze the screen (flow control is off while the app runs, back on after).
    @Test func ctrlBackslashQuitsAndCtrlSFreezesNothing() throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        try tmux.press("C-s", "Right")
        try tmux.waitFor(text: "Mika 🌸") // the screen still follows the keys
        try tmux.press("C-\\")
        try tmux.waitForPrompt()
        try tmux.type("echo exit=$?; stty -a | grep -o -- '-\\?ixon\\b' | head -1")
        try tmux.waitFor(text: "exit=131")
        try tmux.waitFor("the shell's flow control back as it was") { $0.contains("ixon") }
        #expect(try tmux.mouseModes() == "0 0", "mouse reporting off again")
    }

    @Test(arguments: [(SIGTERM, 143), (SIGQUIT, 131), (SIGSEGV, 139)])
    func aSignalRestoresTheTerminal(signal: Int32, status: Int) throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        #expect(try tmux.mouseModes() == "1 1", "drag and SGR mouse reporting on while running")
        let pid = try #require(tmux.foregroundPID(named: "stories"))
        kill(pid, signal)  // SIGSEGV goes through the same handler a real crash would
        try tmux.expectGivenBack(status: status)
    }

    /// Every thread — the main one included, while it serves the main queue — blocks the
    /// signals the run loop takes, so each reaches its Dispatch source. (The main thread
    /// parked by `dispatchMain()` unblocked them all, and Ctrl-Z was lost two runs in six
    /// on a loaded machine.)
    @Test func everyThreadBlocksTheSignalsTheAppTakes() throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")  // the viewer open: decode and preload threads running
        let pid = try #require(tmux.foregroundPID(named: "stories"))
        #expect(try threadsNotBlocking([SIGWINCH, SIGTSTP, SIGINT, SIGTERM, SIGHUP, SIGQUIT], in: pid) == [])
        try tmux.press("q", "q")
        try tmux.waitForPrompt()
    }

    /// Ctrl-Z then `fg`: the story plays on as it was (issue 29, point 5); one the person
    /// had paused stays paused, where it was.
    @Test func ctrlZSuspendsAndFgComesBackAsItWas() throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        try tmux.press("C-z")
        try tmux.waitFor(text: "Stopped")
        #expect(!tmux.text.contains("Ayla Demir"), "the shell has the screen back")
        try tmux.type("fg")
        try tmux.waitFor("playing on after fg", timeout: 20) { lines in
            !lines.joined().contains("❚❚") && lines.contains { $0.contains("2/3") || $0.contains("3/3") || $0.contains("Mika") }
        }
        try tmux.press("Space")
        try tmux.waitFor(text: "❚❚ paused")
        try tmux.press("C-z")
        try tmux.waitFor(text: "Stopped")
        try tmux.type("fg")
        // Paused where it was stopped: under a loaded machine the item may have moved on
        // between "1/3" showing and Ctrl-Z arriving, so the position is read, then checked
        // to stay (a playing item would move on or its bar grow).
        _ = try tmux.waitFor("paused after fg") { $0.contains { $0.contains("❚❚ paused") } }
        // The line is read once the screen has settled (a whole second in which nothing was
        // drawn and no CPU was used): read as the redraw after `fg` was still being written,
        // it was once half old, half new, and unlike the same line a moment later (CI).
        let position = try tmux.settledScreen().first { $0.contains("❚❚ paused") }
        #expect(position != nil, "paused after fg")
        #expect(try tmux.settledScreen().first { $0.contains("❚❚ paused") } == position, "still paused at the same place")
        try tmux.press("Escape")
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    /// The terminal's focus reports (what xterm, kitty or tmux send with `CSI ? 1004 h` on):
    /// in the background the story waits, in front it plays on.
    @Test func aStoryWaitsWhileTheWindowIsInTheBackground() throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/3")
        try tmux.sendRaw("\u{1B}[O")
        try tmux.waitFor(text: "❚❚ in the background")
        let still = try tmux.settledScreen().first { $0.contains("in the background") }
        let later = try tmux.settledScreen().first { $0.contains("in the background") }
        #expect(still != nil && later == still, "it waits where it was")
        try tmux.sendRaw("\u{1B}[I")
        try tmux.waitFor("playing on in front") { !$0.joined().contains("❚❚") }
        try tmux.press("Escape")
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func idleUsesNoCPU() throws {
        let tmux = try Tmux.runningStories(width: 80, height: 24)
        let pid = try #require(tmux.foregroundPID(named: "stories"))
        // Start-up work (the feed read, the first stories' photos decoded ahead) ends by
        // itself, but on a loaded machine it can take seconds: wait for a whole second
        // without a tick first (an app that never gets there is polling, and fails here).
        _ = try tmux.settledScreen()
        let start = try #require(cpuTicks(of: pid))
        // Three seconds in which it must not tick: the window is the claim.
        _ = Wait.holds(for: 3, every: 0.25) { (cpuTicks(of: pid) ?? .max) - start <= 1 }
        let end = try #require(cpuTicks(of: pid))
        #expect(end - start <= 1, "an idle home screen used \(end - start) ticks in 3 s: something polls")
        try tmux.press("q")
    }

    /// Issue 45, point 2: a TERM with no entry here, in a terminal that answers (tmux
    /// does), starts drawn as xterm-256color with a line saying so. (One that answers
    /// nothing is refused: `aTermWithNoEntryStartsWhenTheTerminalAnswers`.)
    @Test func anUnknownTermStartsWithALineSayingSo() throws {
        let binary = try Binary.requireBuilt()
        let tmux = try Tmux(width: 160, height: 30)
        try tmux.type("TERM=no-such-term \(binary); echo exit=$?")
        try tmux.waitFor(text: "TERM=no-such-term has no terminfo entry here: drawn as xterm-256color")
        try tmux.waitForLoadedRingRow()
        try tmux.press("q")
        try tmux.waitFor(text: "exit=0")
    }

    /// TERM=dumb (no cursor addressing) is one clear line and status 1, not the whole
    /// screen run together on one line.
    @Test func aTerminalThatCannotMoveItsCursorIsOneClearLine() throws {
        let binary = try Binary.requireBuilt()
        let tmux = try Tmux(width: 200, height: 10)
        try tmux.type("TERM=dumb \(binary)")
        try tmux.waitFor(text: "cannot move its cursor")
        let text = tmux.text
        #expect(text.contains("stories: the terminal type 'dumb' (from TERM) cannot move its cursor"), "\(text)")
        #expect(!text.contains("stories ·") && !text.contains("Enter open"), "no screen drawn: \(text)")
        try tmux.expectGivenBack(status: 1)
    }

    @Test func aBrokenStoryIsSkippedWithANoticeAndTheOthersWork() throws {
        let feed = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: feed.appendingPathComponent("stories"), withIntermediateDirectories: true)
        try #"{"version":1,"title":"Broken \u001b[31mfeed","stories":["ok","bad"]}"#
            .write(to: feed.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        try #"{"id":"ok","author":{"name":"Okay Person"},"items":[{"id":"1","type":"text","text":"fine"},{"id":"2","type":"text","text":"also"}]}"#
            .write(to: feed.appendingPathComponent("stories/ok.json"), atomically: true, encoding: .utf8)
        try #"{"id":"bad","author":{"name":"Bad"},"items":[{"id":"1","type":"text","text":"x","duration":"long"}]}"#
            .write(to: feed.appendingPathComponent("stories/bad.json"), atomically: true, encoding: .utf8)
        let tmux = try Tmux.runningStories(width: 120, height: 24, arguments: "--feed \(feed.path)")
        try tmux.waitFor(text: "1 story")
        let screen = tmux.text
        #expect(screen.contains("Broken feed"), "the title, its colour sequence cut out")
        let words = screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains("⚠ skipped story 'bad': \(feed.path)/stories/bad.json: items[0].duration: expected a number, found a string"))
        try tmux.press("Enter")
        try tmux.waitFor(text: "fine")
        try tmux.press("Escape", "q")
        try tmux.waitForPrompt()
    }
}
