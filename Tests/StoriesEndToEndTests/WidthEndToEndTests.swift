import Foundation
import StoriesTestSupport
import Testing

/// The app and the terminal agree on where every character goes: flags, joined emoji, emoji
/// with and without VS16 and skin tones, keycaps, CJK, combining marks, Indic clusters and a
/// code point newer than the width table. After each step the live screen in tmux (drawn by
/// ncurses in pieces, only what changed) must read exactly like the app's own model of it (the
/// same steps replayed headless): a character one side thinks wider than the other shifts the
/// rest of its row and leaves stale cells behind when the screen changes.
@Suite(.serialized, .ownThread) struct WidthEndToEndTests {
    static let hardLines = [
        "A\u{1F1FA}\u{1F1F8}B\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}C\u{2764}\u{FE0F}D\u{1F44D}\u{1F3FD}E\u{6F22}F",
        "e\u{301}|\u{915}\u{94D}\u{937}\u{93F}|\u{938}\u{94D}\u{924}\u{94D}\u{930}\u{940}|1\u{FE0F}\u{20E3}|\u{1FA77}|\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}|\u{1100}\u{1161}\u{11A8}|end",
        "\u{2614}\u{2708}\u{FE0F}\u{1F600}\u{FE0E}\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}\u{1F1E6}x\u{AD}y\u{200B}z|\u{930}\u{94D}\u{200D}\u{939}\u{93E}|",
    ]

    static func feed() throws -> URL {
        let feed = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-widths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: feed.appendingPathComponent("stories"), withIntermediateDirectories: true)
        func write(_ object: [String: Any], _ path: String) throws {
            try JSONSerialization.data(withJSONObject: object).write(to: feed.appendingPathComponent(path))
        }
        try write(["version": 1, "title": "Widths", "stories": ["w", "p"]], "feed.json")
        try write(["id": "w", "author": ["name": "\u{1F1EF}\u{1F1F5} Family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"],
                   "items": [["id": "1", "type": "text", "text": hardLines.joined(separator: "\n"), "duration": 60],
                             ["id": "2", "type": "text", "text": "plain text only", "duration": 60]]], "stories/w.json")
        try write(["id": "p", "author": ["name": "\u{915}\u{94D}\u{937}\u{93F}\u{6F22}\u{5B57} \u{2764}\u{FE0F} \u{1F44B}\u{1F3FF}end"],
                   "items": [["id": "1", "type": "text", "text": "x"]]], "stories/p.json")
        return feed
    }

    /// The screen the app means to show after `keys`, from a headless replay of them.
    static func modelScreen(feed: URL, keys: [String]) throws -> [String] {
        let recording = NSTemporaryDirectory() + "stories-widths-\(getpid())-\(UUID().uuidString.prefix(6)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let lines = ["{\"stories-recording\":1,\"width\":100,\"height\":30,\"started\":1795240800}"]
            + keys.enumerated().map { "{\"t\":\($0.offset + 1),\"key\":\"\($0.element)\"}" }
        try lines.joined(separator: "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-widths-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let result = try Binary.run(["--headless", "--virtual-clock", "--reduce-motion", "--feed", feed.path, "--replay", recording],
                                    environment: ["XDG_STATE_HOME": state.path])
        try #require(result.status == 0, "\(result.err)")
        return result.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func everyKindOfWideOrJoinedCharacterLandsWhereTheAppPutIt() throws {
        let feed = try Self.feed()
        defer { try? FileManager.default.removeItem(at: feed) }
        let tmux = try Tmux.runningStories(width: 100, height: 30, arguments: "--reduce-motion --feed \(feed.path)")
        let steps: [(key: String?, tmuxKey: String?, shown: String)] = [
            (nil, nil, "2 stories"),
            ("Enter", "Enter", "|end"),
            ("Right", "Right", "plain text only"),
            ("Esc", "Escape", "2 stories"),
            ("Right", "Right", "\u{2764} \u{1F44B}end"),
        ]
        var keys: [String] = []
        for step in steps {
            if let key = step.key, let tmuxKey = step.tmuxKey {
                keys.append(key)
                try tmux.press(tmuxKey)
            }
            let expected = try Self.modelScreen(feed: feed, keys: keys)
            #expect(expected.count == 30)
            #expect(expected.joined().contains(step.shown), "the model shows '\(step.shown)' after \(keys)")
            let inViewer = !(expected.first?.hasPrefix(" ◉ stories") ?? true)
            // The progress row runs on the wall clock live and on the virtual clock headless.
            func comparable(_ lines: [String]) -> [String] {
                Array(lines.prefix(30).enumerated().map { inViewer && $0.offset == 0 ? "" : $0.element })
            }
            let want = comparable(expected)
            let live = try tmux.waitFor("the screen after \(keys) to read as the app's model", timeout: 10) {
                comparable($0) == want
            }
            #expect(comparable(live) == want)
            #expect(!live.joined().contains("\u{200D}"), "no joiner reaches the terminal")
        }
        try tmux.press("q")
        try tmux.expectGivenBack(status: 0)
    }
}
