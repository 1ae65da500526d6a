import Foundation
import Testing
@testable import StoriesCore

/// Issue 33: what a line typed in the screen-reader mode asks for, and what is said.
@Suite struct ScreenReaderInputTests {
    let now = Moment(uptime: 100, date: Date(timeIntervalSince1970: 1_795_197_600))

    private func state(stories: Int = 3, viewer: ViewerState? = nil) -> AppState {
        var state = AppState(title: "Test", now: now)
        let summaries = (0..<stories).map { StorySummary(id: "s\($0)", author: Author(name: "Person \($0)"), itemIDs: ["a", "b"]) }
        _ = state.feed.store.append(FeedPage(stories: summaries, nextCursor: nil))
        if let viewer { state.viewing.screen = .viewer(viewer) }
        return state
    }

    private func key(_ key: Key) -> AppAction { .input(.key(key), readAt: 0) }

    @Test func wordsBecomeTheKeysAndCommandsTheAppHas() {
        let home = state()
        #expect(ScreenReaderInput.parse("next", state: home) == .send([key(.right)]))
        #expect(ScreenReaderInput.parse("  Previous ", state: home) == .send([key(.left)]))
        // The key the action is on now, not `]` written in: a rebound key follows.
        #expect(ScreenReaderInput.parse("next story", state: home) == .send([key(.character("]"))]))
        #expect(ScreenReaderInput.parse("previous story", state: home) == .send([key(.character("["))]))
        var rebound = home
        rebound.bindings = (try? KeyBindings.standard.applying("viewer nextStory x\n", file: "keys.conf")) ?? .standard
        #expect(ScreenReaderInput.parse("next story", state: rebound) == .send([key(.character("x"))]))
        #expect(ScreenReaderInput.parse("open", state: home) == .send([key(.enter)]))
        #expect(ScreenReaderInput.parse("open 2", state: home) == .send([.select(1), key(.enter)]))
        #expect(ScreenReaderInput.parse("close", state: home) == .send([key(.escape)]))
        #expect(ScreenReaderInput.parse("find ab", state: home)
            == .send([key(.character("/")), key(.character("a")), key(.character("b")), key(.enter)]))
        #expect(ScreenReaderInput.parse("", state: home) == .again)
        #expect(ScreenReaderInput.parse("   ", state: home) == .send([key(.character(" "))]), "a line of spaces is the space key")
        #expect(ScreenReaderInput.parse("help", state: home) == .help)
        #expect(ScreenReaderInput.parse("quit", state: home) == .quit)
        // Any key by the name keys.conf gives it.
        #expect(ScreenReaderInput.parse("]", state: home) == .send([.input(.key(.character("]")), readAt: 0)]))
        #expect(ScreenReaderInput.parse("Shift-Right", state: home) == .send([.input(.key(.right, [.shift]), readAt: 0)]))
        #expect(ScreenReaderInput.parse("Esc", state: home) == .send([.input(.key(.escape), readAt: 0)]))
    }

    @Test func pauseAndPlayDoNothingWhenItIsSoAlready() {
        var viewer = ViewerState(storyIndex: 0, itemIndex: 0, startedAt: 100)
        #expect(ScreenReaderInput.parse("pause", state: state(viewer: viewer)) == .send([.command(.togglePause)]))
        #expect(ScreenReaderInput.parse("play", state: state(viewer: viewer)) == .say("Already playing."))
        viewer.isPaused = true
        #expect(ScreenReaderInput.parse("pause", state: state(viewer: viewer)) == .say("Already paused."))
        #expect(ScreenReaderInput.parse("resume", state: state(viewer: viewer)) == .send([.command(.togglePause)]))
        #expect(ScreenReaderInput.parse("pause", state: state()) == .say("Nothing is playing: open a story first."))
    }

    /// Numbers from the keyboard are bounded before they are used; what is echoed back is
    /// one clean, short line.
    @Test(arguments: ["open 0", "open -1", "open 4", "open 99999999999999999999", "open three", "open 1e3"])
    func aStoryNumberOutsideTheRowIsSaidNotUsed(_ line: String) {
        guard case .say(let text) = ScreenReaderInput.parse(line, state: state()) else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(text.hasPrefix("open takes") || text.hasPrefix("There are 3 stories"), "\(text)")
    }

    @Test func waitIsBoundedAndAnythingElseIsRefusedCleanly() {
        let home = state()
        #expect(ScreenReaderInput.parse("wait 2.5", state: home) == .wait(2.5))
        #expect(ScreenReaderInput.parse("wait 3s", state: home) == .wait(3))
        #expect(ScreenReaderInput.parse("wait 60", state: home) == .wait(60))
        #expect(ScreenReaderInput.parse("wait 1e308", state: home) == .say("wait takes at most 60 seconds."))
        #expect(ScreenReaderInput.parse("find", state: home) == .say("find takes a name, like find layla."))
        // From a story, the search goes back to the row first.
        let viewing = state(viewer: ViewerState(storyIndex: 0, itemIndex: 0, startedAt: 100))
        #expect(ScreenReaderInput.parse("find a", state: viewing) == .send([key(.escape), key(.character("/")), key(.character("a")), key(.enter)]))
        // An escape sequence inside a command is no part of it.
        #expect(ScreenReaderInput.parse("open\u{1B}[31m 2", state: home) == .send([.select(1), key(.enter)]))
        for bad in ["wait nan", "wait inf", "wait -1", "wait"] {
            #expect(ScreenReaderInput.parse(bad, state: home) == .say("wait takes seconds, like wait 3."), "\(bad)")
        }
        let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J" + String(repeating: "x", count: 100_000)
        guard case .say(let text) = ScreenReaderInput.parse(hostile, state: home) else {
            Issue.record("a hostile line was taken")
            return
        }
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "no control characters are said back")
        #expect(text.count < 120)
        #expect(ScreenReaderInput.parse("next please", state: home) == .say("Unknown command ‘next please’. Type help for the commands."))
    }

    @Test func whatIsSaidIsOneCleanLine() {
        #expect(Announcer.seconds(5) == "5 seconds")
        #expect(Announcer.seconds(1) == "1 second")
        #expect(Announcer.seconds(12.54) == "12.5 seconds")
        #expect(Announcer.seconds(.infinity) == "86400 seconds")
        #expect(Announcer.clean("a\nb\u{1B}[31mc") == "a bc")
        var home = state()
        home.row.selection = 1
        home.seen.markSeen(story: "s1", item: "a")
        #expect(Announcer.storyLine(1, state: home) == "Story 2 of 3, Person 1, 2 items, 1 new.")
        #expect(Announcer.storyLine(1, state: home, counting: false) == "Story 2 of 3, Person 1, 2 items.")
        #expect(Announcer.whereabouts(home) == ["Story 2 of 3, Person 1, 2 items, 1 new."])
    }
}
