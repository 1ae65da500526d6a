import Foundation
import StoriesTestSupport
import Testing

/// The real binary in a real terminal (tmux), read as a person would read the screen.
@Suite(.serialized, .ownThread) struct EndToEndTests {
    @Test func browseOpenWatchDismissAndQuitBackToTheShell() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30)
        let home = tmux.text
        // Layla's Arabic name as a terminal that shows cells left to right needs it: in
        // visual order, its letters joined (issue 33: "ليلى حسن" reordered and shaped).
        let layla = "\u{FEE6}\u{FEB4}\u{FEA3} \u{FEF0}\u{FEE0}\u{FEF4}\u{FEDF}"
        for name in ["Ayla Dem", "Mika 🌸", "山田 花子", layla, "Maximili…"] {
            #expect(home.contains(name), "\(name) in the ring row")
        }
        #expect(home.contains("Enter open"))
        #expect(home.contains("11 stories"), "the row in view and a screen beyond it: both pages, the whole demo")

        try tmux.press("Right")
        try tmux.waitFor(text: "Mika 🌸  @mika.blooms")
        try tmux.press("Enter")
        // The viewer grows out of the bubble (~250 ms), then reads whole.
        try tmux.waitFor("the viewer") { $0.count > 1 && $0[1].hasSuffix("1/3") && $0[1].contains("Mika 🌸") }
        try tmux.waitFor("the photo, full width") { $0.count > 5 && $0[5].filter { $0 == "▀" }.count == 100 }
        #expect(tmux.text.contains("Chelsea supervising the morning."))

        // The progress bar advances with time.
        func filled(_ lines: [String]) -> Int { lines[0].filter { $0 == "━" || $0 == "╸" }.count }
        let before = filled(try tmux.screen())
        try tmux.waitFor("the progress bar to advance", timeout: 5) { filled($0) >= before + 3 }

        try tmux.press("Space")
        try tmux.waitFor(text: "❚❚ paused")
        try tmux.press("Space", "l")
        try tmux.waitFor("the next item") { $0.count > 1 && $0[1].hasSuffix("2/3") }

        try tmux.press("Escape")
        // Back into the bubble; the selection is on the story last shown.
        try tmux.waitFor(text: "Mika 🌸  @mika.blooms")
        try tmux.waitFor(text: "Enter open")

        #expect(try tmux.mouseModes() == "1 1")
        try tmux.press("q")
        try tmux.waitForPrompt()
        try tmux.type("echo exit=$?")
        try tmux.waitFor(text: "exit=0")
        #expect(try tmux.mouseModes() == "0 0", "mouse reporting off after q")
    }

    @Test func whatWasWatchedIsStillSeenAfterARestart() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("seen-e2e-\(UUID())")
        do {
            let tmux = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
            try tmux.press("Enter")
            try tmux.waitFor(text: "1/3")
            try tmux.waitForPlaying(item: 1) // seen once its photo is on screen
            try tmux.press("l")
            try tmux.waitFor(text: "2/3")
            try tmux.waitForPlaying(item: 2)
            try tmux.press("l")
            try tmux.waitFor(text: "3/3")
            try tmux.waitForPlaying(item: 3)
            try tmux.press("Escape")
            try tmux.waitFor(text: "3 items, all seen")
            try tmux.press("q")
            try tmux.waitForPrompt()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("stories").path)
        #expect(files.count == 1 && files[0].hasPrefix("seen-") && files[0].hasSuffix(".json"), "\(files)")

        let again = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
        try again.waitFor(text: "3 items, all seen")
        try again.press("Right")
        try again.waitFor(text: "3 items, new")
        try again.press("q")
        try again.waitForPrompt()
    }

    /// SIGKILL between writing the new seen file and renaming it over the old one: the old
    /// file is untouched, the next start reads it, and the leftover is cleared away.
    @Test func killedDuringASeenWriteTheOldFileIsIntact() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("seen-kill-\(UUID())")
        let folder = state.appendingPathComponent("stories")
        do {
            let tmux = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
            try tmux.press("Enter")
            try tmux.waitFor(text: "1/3")
            try tmux.waitForPlaying(item: 1)
            try tmux.press("Escape")
            try tmux.waitFor(text: "3 items, 2 new")
            try tmux.press("q")
            try tmux.waitForPrompt()
        }
        let seenFile = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let good = try Data(contentsOf: folder.appendingPathComponent(seenFile))

        do {
            let tmux = try Tmux(width: 100, height: 30, stateDirectory: state)
            try tmux.type("STORIES_TEST_PAUSE_BEFORE_RENAME=30 \(try Binary.requireBuilt())")
            try tmux.waitFor(text: "11 stories")
            try tmux.press("Right", "Enter")
            try tmux.waitFor("Mika's story") { $0.count > 1 && $0[1].contains("Mika") && $0[1].hasSuffix("1/3") }
            // The batched write starts half a second later and stops before its rename.
            var leftovers: [String] = []
            try Wait.until(10, every: 0.05) {
                leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
                return !leftovers.isEmpty
            }
            #expect(leftovers.count == 1, "the new file was written beside the old one")
            let pid = try #require(tmux.foregroundPID(named: "stories"))
            kill(pid, SIGKILL)
            try tmux.waitFor(text: "Killed")
        }
        #expect(try Data(contentsOf: folder.appendingPathComponent(seenFile)) == good, "the old file is untouched")

        let again = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
        try again.waitFor(text: "3 items, 2 new")
        #expect(!again.text.contains("could not be read"))
        try again.press("Right")
        try again.waitFor(text: "3 items, new")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files == [seenFile], "the abandoned temporary file was removed: \(files)")
        try again.press("q")
        try again.waitForPrompt()
    }

    @Test func aCorruptSeenFileIsMovedAsideWithANotice() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("seen-corrupt-\(UUID())")
        let folder = state.appendingPathComponent("stories")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Learn the file name from a first run, then break the file.
        do {
            let tmux = try Tmux.runningStories(width: 100, height: 30, stateDirectory: state)
            try tmux.press("Enter")
            try tmux.waitFor(text: "1/3")
            try tmux.waitForPlaying(item: 1)
            try tmux.press("Escape", "q")
            try tmux.waitForPrompt()
        }
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        try Data("{ this is not json".utf8).write(to: folder.appendingPathComponent(name))
        let tmux = try Tmux.runningStories(width: 140, height: 30, stateDirectory: state)
        try tmux.waitFor(text: "could not be read; starting clean")
        #expect(tmux.text.contains("3 items, new"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.contains { $0.contains(".corrupt-") }, "\(files)")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    /// The LinkedIn flow over a slow network: the ring row pages in as the selection
    /// moves right, the viewer waits past the last loaded story and runs on into the page
    /// when it arrives, and Enter on a story waits for its items with a marked bubble.
    @Test func overASlowNetworkTheRowPagesInAndTheViewerRunsOnIntoNewPages() throws {
        // 60 columns: five bubbles in view and five beyond fill the first page; a wider
        // screen asks for the second at once.
        let tmux = try Tmux(width: 60, height: 30)
        try tmux.type("\(try Binary.requireBuilt()) --synthetic 40 --latency 700ms")
        try tmux.waitFor(text: "Loading stories…")
        try tmux.waitFor(text: "⇅ custom · 10 of 40 stories")
        // Enter: the bubble is marked while the items load; the viewer opens when they come.
        try tmux.press("Enter")
        try tmux.waitFor(text: "Loading the story… (Esc: stop)")
        #expect(tmux.text.contains("┄┄┄"), "the opened bubble is drawn as a loading ring")
        try tmux.waitFor("the viewer") { $0.count > 1 && $0[1].contains("@user0 ·") }
        // Ten quick swipes outrun the network: each story waits for its items, and past
        // the tenth the viewer waits for page 2 (asked for at story 6), then runs on into it.
        for _ in 0..<10 { try tmux.press("]") }
        try tmux.waitFor(text: "Loading more stories…")
        try tmux.waitFor("the viewer running on into page 2") { $0.count > 1 && $0[1].contains("@user10 ·") }
        try tmux.press("Escape")
        try tmux.waitFor("the row, following the viewer") { $0.count > 8 && $0[7].contains("@user10") }
        #expect(tmux.text.contains("⇅ custom · 20 of 40 stories"))
        // The row pages in as the selection moves right: page 3 within three of the end.
        for _ in 0..<6 { try tmux.press("Right") }
        try tmux.waitFor(text: "⇅ custom · 30 of 40 stories")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func offlineTheFirstPageFailsWithANoticeAndTheAppKeepsRunning() throws {
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("\(try Binary.requireBuilt()) --network offline")
        try tmux.waitFor(text: "⚠ Stories did not load: offline (--network offline). Trying again…")
        try tmux.waitFor(text: "(attempt 3)…", timeout: 10)
        try tmux.press("?")
        try tmux.waitFor(text: "Keys · stories")
        try tmux.press("q", "q")
        try tmux.waitForPrompt()
    }

    /// No stale cell survives a transition in a real terminal: after each kind, what tmux
    /// shows is cell for cell what a full redraw (Ctrl-L) shows.
    @Test func afterEveryTransitionTheTerminalShowsAFreshDrawing() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30)
        func expectFresh(_ what: String, playing: Bool = true) throws {
            // The animation is over when the item's progress has begun (it waits for the end):
            // a segment of the bar part filled.
            if playing { try tmux.waitForTheItemPlaying(what) }
            try tmux.press("Space") // paused: nothing moves between the two captures
            _ = try tmux.settledScreen()
            let shown = try tmux.cells()
            try tmux.press("C-l")
            _ = try tmux.settledScreen()
            let fresh = try tmux.cells()
            let rows = shown.indices.filter { $0 >= fresh.count || shown[$0] != fresh[$0] }
            #expect(rows.isEmpty, "\(what): rows \(rows) differ from a full redraw")
            try tmux.press("Space")
        }
        try tmux.press("l", "l", "Enter") // the zoom onto 山田 花子's text card
        try tmux.waitFor(text: "おはようございます")
        try expectFresh("present onto a text card")
        try tmux.press("]")
        try expectFresh("cube to the next story")
        try tmux.press("[")
        try expectFresh("cube back")
        try tmux.sendRaw("\u{1B}[<0;70;15M\u{1B}[<32;50;15M\u{1B}[<32;20;15M\u{1B}[<0;20;15m")
        try expectFresh("a swipe by mouse")
        try tmux.press("?")
        try expectFresh("the help", playing: false)
        try tmux.press("Escape", "Escape")
        try tmux.waitFor(text: "Enter open")
        _ = try tmux.settledScreen()
        let shown = try tmux.cells()
        try tmux.press("C-l")
        _ = try tmux.settledScreen()
        #expect(try tmux.cells() == shown, "dismissed into the bubble: the row as a full redraw draws it")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    /// The problems list, and a link's address and copy, as a person presses them.
    @Test func problemsListAndALinksAddressAndCopy() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30)
        try tmux.press("p")
        try tmux.waitFor(text: "Feed problems · 0 problems")
        try tmux.waitFor(text: "No problems found in this feed so far.")
        try tmux.press("p")
        try tmux.waitFor("the list closed") { !$0.joined().contains("Feed problems") }
        try tmux.press("/")
        try tmux.sendRaw("jonas")
        try tmux.press("Enter", "Enter")
        try tmux.waitFor(text: "↗ About the Hubble Deep Field")
        try tmux.press("Space", "u")
        try tmux.waitFor(text: "  https://hubblesite.org/")
        try tmux.press("y")
        try tmux.waitFor(text: "⧉ Copied https://hubblesite.org/")
        try tmux.press("Escape", "q")
        try tmux.waitForPrompt()
    }

    /// Another program writes over the screen; Ctrl-L draws every cell again.
    @Test func ctrlLRedrawsWhatAnotherProgramWroteOver() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30)
        let tty = try tmux.tmux(["display-message", "-p", "-t", tmux.session, "#{pane_tty}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try tmux.settledScreen()
        let handle = try #require(FileHandle(forWritingAtPath: tty))
        handle.write(Data("\u{1B}[5;10HSCRIBBLED-OVER-BY-ANOTHER-PROGRAM".utf8))
        try handle.close()
        try tmux.waitFor(text: "SCRIBBLED-OVER")
        try tmux.press("C-l")
        try tmux.waitFor("the screen as it was before, every cell", timeout: 5) { $0 == before }
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func aSyntheticFeedOfAThousandStories() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30, arguments: "--synthetic 1012")
        try tmux.waitFor(text: "of 1012 stories")
        // End goes to the true last story, paging on to it with the row following.
        try tmux.press("End")
        try tmux.waitFor(text: "1012 stories", timeout: 60)
        try tmux.waitFor(text: "@user1011")
        // `/` finds a person by handle among all of them: the first match from the start.
        try tmux.press("/")
        try tmux.sendRaw("user39")
        try tmux.waitFor(text: "11 matches")
        try tmux.press("Enter")
        try tmux.waitFor("user39 selected") { $0.contains { $0.hasSuffix("@user39") } }
        // n goes to the next story with unseen items: the next one, as nothing is seen yet.
        try tmux.press("n")
        try tmux.waitFor("user40 selected") { $0.contains { $0.hasSuffix("@user40") } }
        try tmux.press("PgUp")
        try tmux.waitFor("a screenful back") { $0.contains { $0.hasSuffix("@user31") } }
        try tmux.press("/")
        try tmux.sendRaw("user39")
        try tmux.press("Enter")
        try tmux.waitFor("user39 selected") { $0.contains { $0.hasSuffix("@user39") } }
        try tmux.press("Enter")
        try tmux.waitFor("the BlurHash-only photo") { $0.count > 5 && $0[5].filter { $0 == "▀" }.count == 100 }
        try tmux.press("Escape", "q")
        try tmux.waitForPrompt()
    }

    /// stories.conf keeps the settings people want every run: colours, fit, preloading, a
    /// pretend network and its seed; a recording made then carries them.
    @Test func storiesConfSettingsApplyAndAreRecorded() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("conf-e2e-\(UUID())")
        let config = state.appendingPathComponent("config/stories")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "colors = 8\nfit = fit\nnetwork = wifi\nseed = 42\npreload = off\n"
            .write(to: config.appendingPathComponent("stories.conf"), atomically: true, encoding: .utf8)
        let recording = state.appendingPathComponent("r.jsonl").path
        let tmux = try Tmux.runningStories(width: 100, height: 30, arguments: "--record \(recording)", stateDirectory: state)
        try tmux.waitFor(text: "⇅ wifi")
        try tmux.press("Enter")
        // In eight colours a photo is drawn in the symbols of its set, among the eight (issue
        // 45: no more shading), on black beside it (fit).
        try tmux.waitFor("a photo in blocks") { $0.count > 5 && $0[5].contains { "▀▄█▌▐▖▗▘▝▙▛▜▟▚▞".contains($0) } && !$0[5].contains { "░▒▓".contains($0) } }
        let colours = try tmux.tmux(["capture-pane", "-e", "-p", "-t", tmux.session])
        #expect(!colours.contains("38;5;") && !colours.contains("38;2;"), "eight colours only")
        try tmux.press("Escape", "q")
        try tmux.waitForPrompt()
        let header = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        for part in [#""colors":"8""#, #""fit":true"#, #""name":"wifi""#, #""seed":42"#, #""preload":"off""#] {
            #expect(header.contains(part), "\(part) in \(header)")
        }
        try? FileManager.default.removeItem(at: state)
    }

    static let readme: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()
}
