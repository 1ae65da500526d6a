import Foundation
import StoriesTestSupport
import Testing

/// Issue 34, "done when": one viewer in two terminals against `stories serve --viewers`;
/// what is watched in one turns its ring grey in the other.
@Suite(.ownThread) struct SeenSyncEndToEndTests {
    /// The ring row's top line: `┓`/`╮` ends a seen bubble, `●` one with something new
    /// (Ayla's first, selected: `┏`; Mika's second).
    static func ringTop(_ lines: [String]) -> String? {
        lines.prefix(6).first { $0.contains("┏") || $0.contains("╭") }
    }

    @Test(.timed) func watchingInOneTerminalTurnsTheRingGreyInTheOther() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("seen-sync")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewers = folder.appendingPathComponent("viewers.txt").path
        let added = try Binary.run(["serve", "add-viewer", "ayla", "--viewers", viewers])
        #expect(added.status == 0, "\(added.err)")
        let token = added.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("st_") && added.err.contains("shown only now"), "\(added)")
        // Stopped below (or, if the test ends before, when its process is let go).
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers])
        #expect(server.firstLine.contains("seen state in ") && server.firstLine.contains(", 1 viewer\n"), "\(server.firstLine)")
        let binary = try Binary.requireBuilt()
        let command = "STORIES_TOKEN=\(token) \(binary) --server http://127.0.0.1:\(server.port)"
        // Two terminals, each with its own state and cache folders: two machines as far as
        // the app can tell. Tall enough for the home's Continue watching cards.
        let one = try Tmux(width: 100, height: 40)
        let other = try Tmux(width: 100, height: 40)
        try one.type(command)
        try other.type(command)
        try one.waitForLoadedRingRow()
        try other.waitForLoadedRingRow()
        let before = try #require(Self.ringTop(try other.screen()))
        #expect(before.hasPrefix("   ┏━━━━━━●  ╭──────●"), "Mika's ring is new: \(before)")
        func mikasCard(_ lines: [String]) -> String? {
            guard let title = lines.firstIndex(where: { $0.contains("│ Coffee and a cat") }), title + 1 < lines.count else { return nil }
            return lines[title + 1]
        }
        #expect(try other.waitFor("Mika's card at 0%") { mikasCard($0)?.contains("── 0% │") == true }.isEmpty == false)

        // Mika's first item watched in one: her Continue watching card moves on both.
        try one.press("Right")
        try one.press("Enter")
        try one.waitForPlaying(item: 1)
        let moved = try other.waitFor("Mika's card at 33% in the other terminal", timeout: 10) { mikasCard($0)?.contains("33% │") == true }
        #expect(mikasCard(moved)?.contains("━━━━━━") == true, "\(moved)")
        try one.press("Escape")
        _ = try one.waitFor("Mika's card at 33% in this terminal", timeout: 10) { mikasCard($0)?.contains("33% │") == true }

        // The rest of her story, a second and a half apart: her ring grey in the other, and
        // her card gone from both (the home hides a story once it is seen).
        try one.press("Enter")
        try one.waitForPlaying(item: 2)
        Pace.pause(1.5)
        try one.press("Right")
        let lastShown = Date()
        let after = try other.waitFor("Mika's ring grey in the other terminal", timeout: 10) { lines in
            Self.ringTop(lines)?.hasPrefix("   ┏━━━━━━●  ╭──────╮") == true
        }
        let took = Date().timeIntervalSince(lastShown)
        print("seen sync: the ring turned grey in the other terminal \(Int(took * 1000)) ms after the last item was shown")
        // A batch goes out at most once a second, and the other terminal's wait at the
        // server is answered at once; the rest is tmux and the screen (polled every 50 ms).
        #expect(took < 2, "\(Int(took * 1000)) ms: \(after.prefix(6))")
        _ = try other.waitFor("Mika's card gone in the other terminal", timeout: 10) { $0.contains { $0.contains("Grass, up close") } && mikasCard($0) == nil }
        try one.press("Escape")
        _ = try one.waitFor("Mika's card gone in this terminal", timeout: 10) { $0.contains { $0.contains("Grass, up close") } && mikasCard($0) == nil }

        // And it outlives both: the other terminal started again sees it grey at once.
        try other.press("q")
        try other.waitForPrompt()
        try other.type(command)
        try other.waitForLoadedRingRow()
        let again = try other.waitFor("the ring grey after a restart", timeout: 10) { Self.ringTop($0)?.hasPrefix("   ┏━━━━━━●  ╭──────╮") == true }
        #expect(Self.ringTop(again) != nil)
        // Stopped while both terminals wait at it for news: the waits end at once, and the
        // server with them.
        let stopping = Date()
        #expect(server.stop() == 0)
        #expect(Date().timeIntervalSince(stopping) < 5, "SIGTERM to exit: \(Date().timeIntervalSince(stopping)) s")
        try one.press("q")
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains("PUT /v1/seen 200") && !logged.contains(token.dropFirst(3).prefix(12)), "the token is never logged")
    }

    /// `--screen-reader` syncs as the full screen does: an item heard there moves the same
    /// viewer's Continue watching card in a full-screen terminal, and what the other
    /// terminal saw arrives in the reader's run.
    @Test func whatIsHeardInScreenReaderModeIsSeenInTheFullScreen() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("seen-linear")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewers = folder.appendingPathComponent("viewers.txt").path
        let token = try Binary.run(["serve", "add-viewer", "ayla", "--viewers", viewers]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers])
        defer { _ = server.stop() }
        let binary = try Binary.requireBuilt()
        let full = try Tmux(width: 100, height: 40)
        try full.type("STORIES_TOKEN=\(token) \(binary) --server http://127.0.0.1:\(server.port)")
        try full.waitForLoadedRingRow()
        func mikasCard(_ lines: [String]) -> String? {
            guard let title = lines.firstIndex(where: { $0.contains("│ Coffee and a cat") }), title + 1 < lines.count else { return nil }
            return lines[title + 1]
        }
        _ = try full.waitFor("Mika's card at 0%") { mikasCard($0)?.contains("── 0% │") == true }

        // Mika's story opened and its first item heard, piped as a synthesiser reads it.
        let reader = try Tmux(width: 100, height: 30)
        let said = reader.stateDirectory.appendingPathComponent("said.txt").path
        try FileManager.default.createDirectory(at: reader.stateDirectory, withIntermediateDirectories: true)
        try reader.type("printf 'wait 1\\nnext\\nopen\\nwait 2\\n' | STORIES_TOKEN=\(token) \(binary) --server http://127.0.0.1:\(server.port) --screen-reader --mute | cat > \(said); echo done=$?")
        try reader.waitFor(text: "done=0", timeout: 30)
        let heard = try String(contentsOfFile: said, encoding: .utf8)
        #expect(heard.contains("Mika") && heard.contains("Item 1 of 3"), "\(heard)")
        _ = try full.waitFor("Mika's card at 33% in the full screen", timeout: 10) { mikasCard($0)?.contains("33% │") == true }
        try full.press("q")
        try full.waitForPrompt()
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains("PUT /v1/seen 200"), "\(logged.suffix(2000))")
    }

    /// SIGHUP reads the viewers file again, without a restart: a token taken out of it is
    /// refused from the next request on and one added is taken; a file broken meanwhile
    /// leaves the viewers as they were, and says why on standard error.
    @Test func sighupReadsTheViewersFileAgain() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("seen-hup")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewers = folder.appendingPathComponent("viewers.txt").path
        func add(_ name: String) throws -> String {
            try Binary.run(["serve", "add-viewer", name, "--viewers", viewers]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let ayla = try add("ayla"), bo = try add("bo")
        let output = folder.appendingPathComponent("serve.out")
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers], output: output)
        defer { _ = server.stop() }
        func status(_ token: String) throws -> String {
            let answer = try ServeEndToEndTests.get(port: server.port, "GET /v1/feed?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            return String(answer.prefix(12))
        }
        func waitUntil(_ file: String, says text: String) throws {
            if Wait.until(10, every: 0.05, { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains(text) }) { return }
            Issue.record("\(file) never said '\(text)': '\((try? String(contentsOfFile: file, encoding: .utf8)) ?? "")'")
        }
        #expect(try status(ayla) == "HTTP/1.1 200" && status(bo) == "HTTP/1.1 200")
        // SIGHUP reaches the Dispatch source: no thread can take it first (and a SIGHUP sent
        // before the source existed waited for it).
        #expect(try threadsNotBlocking([SIGHUP], in: server.process.pid) == [])

        // Ayla's line taken out, Cy added; then SIGHUP.
        let lines = try String(contentsOfFile: viewers, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("ayla ") }
        try (lines.joined(separator: "\n") + "\n").write(toFile: viewers, atomically: true, encoding: .utf8)
        let cy = try add("cy")
        kill(server.process.pid, SIGHUP)
        try waitUntil(output.path, says: "viewers file \(viewers) read again: 2 viewers")
        #expect(try status(ayla) == "HTTP/1.1 401", "a token taken back is refused")
        #expect(try status(bo) == "HTTP/1.1 200" && status(cy) == "HTTP/1.1 200")

        // A broken file: the viewers before stay.
        try "ay/la 00\n".write(toFile: viewers, atomically: true, encoding: .utf8)
        kill(server.process.pid, SIGHUP)
        try waitUntil(output.path + ".err", says: "viewers file not read again, the 2 viewers before stay: viewers file \(viewers) line 1")
        #expect(try status(bo) == "HTTP/1.1 200" && status(cy) == "HTTP/1.1 200" && status(ayla) == "HTTP/1.1 401")
        #expect(server.stop() == 0, "SIGTERM after the SIGHUPs: finish, then exit 0")
    }

    @Test func aWrongTokenIsOneClearLineAndTheAppStillRuns() throws {
        let (folder, log) = try ServeEndToEndTests.scratch("seen-wrong")
        defer { try? FileManager.default.removeItem(at: folder) }
        let viewers = folder.appendingPathComponent("viewers.txt").path
        _ = try Binary.run(["serve", "add-viewer", "ayla", "--viewers", viewers])
        let server = try ServeEndToEndTests.Server(log: log, shaping: ["--viewers", viewers])
        defer { _ = server.stop() }
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("STORIES_TOKEN=st_wrong \(try Binary.requireBuilt()) --server http://127.0.0.1:\(server.port)")
        // The feed's page and the home are both refused: whichever comes first, the reason
        // is on screen in full.
        let screen = try tmux.waitFor("the refusal said") { $0.joined().contains("a viewer's token is needed") }
        #expect(screen.joined().contains("401"), "\(screen)")
        try tmux.press("q")
        try tmux.waitForPrompt()
        // A token that is not one (spaces, control characters): refused before any request.
        let bad = try Binary.run(["--server", "http://127.0.0.1:\(server.port)", "--headless"], environment: ["STORIES_TOKEN": "two words"])
        #expect(bad.status == 1 && bad.err.contains("STORIES_TOKEN: a token is 1 to 256 printable characters"), "\(bad.err)")
    }
}
