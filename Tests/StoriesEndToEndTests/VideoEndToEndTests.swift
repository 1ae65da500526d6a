import Foundation
import StoriesTestSupport
import Testing

/// Video in a real terminal: the demo's rocket story ends with two videos.
@Suite(.serialized, .ownThread) struct VideoEndToEndTests {
    /// The picture rows (between the header and the caption), with their colours.
    func picture(_ tmux: Tmux) throws -> String {
        let lines = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.session]).components(separatedBy: "\n")
        return lines.dropFirst(3).prefix(15).joined(separator: "\n")
    }

    @Test func aVideoPlaysStandsStillWhenPausedAndItsPlayerGoesWhenSwipedAway() throws {
        let tmux = try Tmux.runningStories(width: 100, height: 30)
        try tmux.press("/") // the rocket club, found by name
        try tmux.sendRaw("launch")
        try tmux.press("Enter")
        try tmux.waitFor(text: "Launch Club")
        try tmux.press("Enter")
        try tmux.waitFor("the rocket story") { $0.count > 1 && $0[1].contains("Launch Club") }
        try tmux.press("l", "l", "l")
        try tmux.waitFor("the liftoff video") { $0.count > 1 && $0[1].hasSuffix("4/5") }
        let a = try picture(tmux)
        let moved = try tmux.waitFor("the video moving while it plays") { _ in (try? picture(tmux)).map { $0 != a } ?? false }
        #expect(!moved.isEmpty)
        try tmux.press("Space")
        try tmux.waitFor(text: "paused")
        // Settled: a whole second in which nothing was drawn and no CPU was used.
        _ = try tmux.settledScreen()
        let still = try picture(tmux)
        _ = try tmux.settledScreen()
        #expect(try picture(tmux) == still, "paused: the picture stands still")
        try tmux.press("i")
        try tmux.waitFor(text: "video 2 live") // and the next item's, the deep-field video, held ready
        try tmux.press("Space", "l") // on to the deep-field video: the same player; nothing after it to hold
        try tmux.waitFor("the deep-field video") { $0.count > 1 && $0[1].hasSuffix("5/5") }
        try tmux.waitFor(text: "video 1 live")
        try tmux.press("[") // back a story, a photo: no video, no player
        try tmux.waitFor(text: "video 0 live")
        try tmux.press("q") // closes the viewer
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
    }

    @Test func playExplainsBadFiles() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-video-\(UUID()).mp4")
        try Data("hello\n".utf8).write(to: bad)
        let result = try Binary.run(["play", bad.path, "--size", "20x10"])
        #expect(result.status == 1)
        #expect(result.err == "stories: \(bad.path): neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read\n")
    }
}

extension VideoEndToEndTests {
    /// A damaged video plays what it can; libav's complaints never reach the terminal.
    @Test func libavNeverWritesToTheTerminal() throws {
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/liftoff.mp4")
        var data = try Data(contentsOf: clip)
        for index in stride(from: data.count / 3, to: data.count - 4, by: 97) { data[index] ^= 0x5A }
        let damaged = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID()).mp4")
        try data.write(to: damaged)
        let result = try Binary.run(["play", damaged.path, "--size", "20x10", "--colors", "256"])
        #expect(result.status == 0)
        // Nothing but, where no sound server runs (as in CI), the one line saying so.
        let lines = result.err.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasSuffix("played without sound: no sound server (PulseAudio or PipeWire): Connection refused") } && lines.count <= 1,
                "stderr: \(result.err.prefix(300))")
        #expect(result.out.contains("\u{1B}[?25h"), "the cursor is shown again at the end")
        #expect(!result.out.contains("h264"), "no libav message on stdout")
    }
}

extension VideoEndToEndTests {
    /// Issue 29, point 10: a resize while `stories play` runs. The terminal reflows what it
    /// showed (a 98-column picture wrapped over a 60-column window, cursor moves landing in
    /// the wrong rows: before, all 20 rows held scraps); the next frame is drawn whole at the
    /// new size from the top of a cleared screen — 18 rows of picture (the window less two
    /// lines), the two below it empty — and playback goes on. Ctrl-C gives the terminal back.
    @Test func playDrawsTheNextFrameWholeAtTheNewSizeAfterAResize() throws {
        let binary = try Binary.requireBuilt()
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/liftoff.mp4")
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("\(binary) play \(clip.path) --loop --colors 256")
        try tmux.waitFor("the picture") { $0.prefix(20).filter { $0.contains("▀") }.count >= 10 }
        try tmux.resize(width: 60, height: 20)
        try tmux.waitFor("the picture at 60×18 from the top, nothing under it") { lines in
            let rows = Array(lines.prefix(20))
            return rows.count == 20 && rows[18].isEmpty && rows[19].isEmpty
                && rows.prefix(18).filter { $0.contains("▀") }.count >= 12 && !rows.contains { $0.contains("PROMPT") }
        }
        let cells = try tmux.cells()
        #expect(cells.prefix(18).allSatisfy { !$0.isEmpty }, "every row of the picture has its cells, in colour")
        #expect(cells.prefix(18).allSatisfy { $0.count <= 60 })
        try tmux.sendRaw("\u{03}") // Ctrl-C
        try tmux.waitForPrompt()
    }
}
