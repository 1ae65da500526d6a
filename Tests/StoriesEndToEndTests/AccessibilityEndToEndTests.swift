import Foundation
import StoriesTestSupport
import Testing

/// Issue 33: the terminal's cursor on what has focus, read from the terminal (tmux) as a
/// screen reader or a braille display reads it.
@Suite(.serialized, .ownThread) struct AccessibilityEndToEndTests {
    /// Waits until the cursor shows and the text from it on begins with `prefix`.
    /// Returns that sample: a later one may catch the cursor on its way through a frame
    /// being drawn (the progress bar), which no reader sees as the focus.
    @discardableResult
    private func expectCursor(_ tmux: Tmux, on prefix: String, _ what: String) throws -> (x: Int, y: Int, visible: Bool, text: String) {
        var last = (x: 0, y: 0, visible: false, text: "")
        if try Wait.until(15, every: 0.05, { last = try tmux.cursor(); return last.visible && last.text.hasPrefix(prefix) }) { return last }
        Issue.record("the cursor was not on \(what) ('\(prefix)…'): it was at \(last.x),\(last.y) (\(last.visible ? "shown" : "hidden")) before '\(last.text)'; the screen:\n\(tmux.text)")
        throw CancellationError()
    }

    @Test func theCursorFollowsTheFocusOnEveryScreen() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30, arguments: "--cursor focus")
        // The selected bubble's name, in the ring row.
        try expectCursor(tmux, on: "Ayla Dem", "the selected bubble's name")
        try tmux.press("Right")
        try expectCursor(tmux, on: "Mika 🌸", "the next bubble's name")
        // The search field: where the next letter goes, after what was typed.
        try tmux.press("/")
        try tmux.sendRaw("pri")
        try tmux.waitFor(text: "/ pri")
        let search = try tmux.cursor()
        #expect(search.visible && search.y == 29, "on the search field, the last line")
        #expect(try tmux.screen()[29].prefix(search.x).hasSuffix("/ pri"), "just after what was typed")
        try tmux.press("Escape")
        // The viewer: the author's name on its second line.
        try tmux.press("Enter")
        try tmux.waitFor("the viewer") { $0.count > 1 && $0[1].hasSuffix("1/3") }
        let author = try expectCursor(tmux, on: "Mika 🌸  @mika.blooms", "the viewer's author line")
        #expect(author.y == 1, "the author line is the viewer's second")
        // The box over the screen: its first line.
        try tmux.press("?")
        try tmux.waitFor(text: "Keys · viewer")
        // The cursor moves with the frame that draws the box, or the next one (a loaded
        // machine reads the screen in between): waited for, then checked.
        _ = try? tmux.waitFor("the cursor inside the box") { _ in ((try? tmux.cursor().text.contains("│")) ?? false) }
        let box = try tmux.cursor()
        #expect(box.visible && !box.text.trimmingCharacters(in: .whitespaces).isEmpty && box.text.contains("│"),
                "on the box's first line, inside it: '\(box.text)'")
        try tmux.press("?")
        try tmux.press("Escape")
        try expectCursor(tmux, on: "Mika 🌸", "the bubble again, after the viewer")
        // A section cell below the row: ↓ gives the sections the keyboard.
        try tmux.press("Down")
        let cell = try tmux.waitFor("a section cell with the focus") { _ in ((try? tmux.cursor().y) ?? 0) > 8 }
        let focus = try tmux.cursor()
        #expect(focus.visible && !focus.text.trimmingCharacters(in: .whitespaces).isEmpty,
                "on the cell's title: \(focus), \(cell.joined(separator: "\n"))")
        try tmux.press("q")
        try tmux.waitForPrompt()
        #expect(try tmux.cursor().visible, "the shell's cursor shows after the app")
    }

    @Test func theCursorIsHiddenUnlessAScreenReaderIsLikelyOrItIsAskedFor() throws {
        let plain = try Tmux.runningStories(width: 100, height: 30)
        _ = try plain.settledScreen()
        #expect(try plain.cursor().visible == false, "hidden by default")
        let reader = try Tmux(width: 100, height: 30)
        try reader.type("ACCESSIBILITY_ENABLED=1 " + Binary.requireBuilt())
        try reader.waitForLoadedRingRow()
        try expectCursor(reader, on: "Ayla Dem", "the focus, where a screen reader is likely")
        let hidden = try Tmux(width: 100, height: 30)
        try hidden.type("ACCESSIBILITY_ENABLED=1 " + Binary.requireBuilt() + " --cursor hidden")
        try hidden.waitForLoadedRingRow()
        _ = try hidden.settledScreen()
        #expect(try hidden.cursor().visible == false, "--cursor hidden wins over the hint")
    }

    /// `--screen-reader` in a terminal: no full screen, numbered lines, commands typed as
    /// words; what was watched is kept, and Ctrl-C ends it as quit does.
    @Test func theScreenReaderModeReadsAsLinesAndTakesWords() throws {
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type(try Binary.requireBuilt() + " --screen-reader --mute")
        // The row's second page may come before the first line is said (a loaded machine).
        try tmux.waitFor("the first story said") { lines in
            lines.contains { $0.range(of: #"^4\. Story 1 of (10 so far|11), Ayla Demir, 3 items, all new\.$"#, options: .regularExpression) != nil }
        }
        #expect(try tmux.mouseModes() == "0 0", "no mouse modes: nothing full-screen")
        #expect(try tmux.cursor().visible)
        try tmux.type("open 2")
        try tmux.waitFor(text: "Item 1 of 3: photo, A ginger tabby cat looking up.")
        try tmux.type("pause")
        try tmux.waitFor(text: "Paused.")
        try tmux.type("help")
        try tmux.waitFor(text: "quit: leave.")
        try tmux.type("close")
        try tmux.waitFor(text: "Story 2 of 11, Mika 🌸, 3 items, 2 new.")
        try tmux.type("quit")
        try tmux.waitForPrompt()
        try tmux.type("echo exit=$?")
        try tmux.waitFor(text: "exit=0")
        // The seen state was kept: a new run says so.
        try tmux.type("clear; " + (try Binary.requireBuilt()) + " --screen-reader --mute")
        try tmux.waitFor("the first story said again") { $0.contains { $0.contains("Story 1 of ") && $0.contains("Ayla Demir") } }
        try tmux.type("next")
        try tmux.waitFor(text: "Story 2 of 11, Mika 🌸, 3 items, 2 new.")
        try tmux.press("C-c")
        try tmux.waitFor("the shell prompt after Ctrl-C") { $0.contains { $0.hasSuffix("PROMPT$") } }
        try tmux.type("echo exit=$?")
        try tmux.waitFor(text: "exit=130")
    }

    /// Piped, as a speech synthesiser reads it: every line reaches the pipe as it is said,
    /// and the run ends with its input.
    @Test func pipedEveryLineReachesThePipeAsItIsSaid() throws {
        let tmux = try Tmux(width: 100, height: 30)
        let out = tmux.stateDirectory.appendingPathComponent("said.txt").path
        try FileManager.default.createDirectory(at: tmux.stateDirectory, withIntermediateDirectories: true)
        try tmux.type("printf 'wait 1\\nopen\\nwait 6\\n' | " + (try Binary.requireBuilt()) + " --screen-reader --mute | cat > \(out); echo done=$?")
        try tmux.waitFor(text: "done=0", timeout: 30)
        let said = try String(contentsOfFile: out, encoding: .utf8)
        #expect(said.range(of: #"4\. Story 1 of (10 so far|11), Ayla Demir, 3 items, all new\."#, options: .regularExpression) != nil)
        #expect(said.contains("Item 1 of 3: photo, Portrait of an astronaut in an orange flight suit, a flag behind her. ‘Training day at the space centre.’ 5 seconds."))
        #expect(said.contains("Item 1 of 3 ended."))
        #expect(!said.contains("\u{1B}"), "no escape sequences: plain lines")
    }

    /// `doctor` says what stories.conf chose for the cursor, the direction and bidi, and a
    /// bad line there as the viewer would.
    @Test func doctorSaysWhatStoriesConfChose() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-a11y-\(UUID())")
        defer { try? FileManager.default.removeItem(at: config) }
        try FileManager.default.createDirectory(at: config.appendingPathComponent("stories"), withIntermediateDirectories: true)
        let file = config.appendingPathComponent("stories/stories.conf")
        try "cursor = focus\ndirection = rtl\nbidi = terminal\n".write(to: file, atomically: true, encoding: .utf8)
        let chosen = try Binary.run(["doctor"], environment: ["XDG_CONFIG_HOME": config.path, "LANG": "en_GB.UTF-8"]).out
        #expect(chosen.contains("reader      the cursor stands on what has focus (cursor = focus in stories.conf)"), "\(chosen)")
        #expect(chosen.contains("direction   right to left, whatever the feed says (direction = rtl in stories.conf)"))
        #expect(chosen.contains("bidi        the terminal puts right-to-left text in order (bidi = terminal in stories.conf)"))
        try "direction = up\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try Binary.run(["doctor"], environment: ["XDG_CONFIG_HOME": config.path, "LANG": "ar_EG.UTF-8"]).out
        #expect(bad.contains("stories.conf:1: direction takes auto, ltr or rtl; got 'up'"), "\(bad)")
        #expect(bad.contains("direction   right to left, as the locale reads"))
    }
}

