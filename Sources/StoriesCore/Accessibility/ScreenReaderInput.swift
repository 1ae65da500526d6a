/// What a line typed in the screen-reader mode asks for (issue 33): a command in words
/// (`next`, `open 3`, `pause`), or any key the full-screen app takes, by its name as
/// keys.conf writes it (`l`, `]`, `Space`, `Enter`, `Esc`, `Right`). Words become the keys
/// and actions the app already has, so the reducer decides what they do, as it does for
/// a key.
public enum ScreenReaderInput: Equatable, Sendable {
    /// Actions for the engine, in order.
    case send([AppAction])
    /// Nothing to do but say this.
    case say(String)
    /// Wait before reading the next line (a script paces itself), in seconds.
    case wait(Double)
    /// Say where things are again.
    case again
    /// The list of commands.
    case help
    case quit

    /// The longest `wait`: a minute.
    public static let maxWait = 60.0

    /// Reads one line. `state` tells `pause` from `play` (each does nothing when it is so already).
    public static func parse(_ line: String, state: AppState) -> ScreenReaderInput {
        let raw = String(line.prefix(400))
        // A line of spaces is the space key (pause / resume), as a press of it would be.
        if !raw.isEmpty, raw.allSatisfy({ $0 == " " }) { return .send([key(.character(" "))]) }
        // Escape sequences and control characters are no part of a command (nor echoed back).
        let text = SafeText.line(raw, maxColumns: 400).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .again }
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        let rest = words.dropFirst().joined(separator: " ")
        switch words[0] {
        case "next", "forward":
            if rest == "story" { return .send([storyKey(.nextStory, state)]) }
            if rest == "new" || rest == "unseen" { return .send([.command(.nextUnseen)]) }
            return rest.isEmpty ? .send([key(.right)]) : unknown(text)
        case "previous", "prev", "back", "backward":
            if rest == "story" { return .send([storyKey(.previousStory, state)]) }
            return rest.isEmpty ? .send([key(.left)]) : unknown(text)
        case "open", "go":
            guard !rest.isEmpty else { return .send([key(.enter)]) }
            guard state.viewer == nil, state.chrome.modal == nil else { return .say("open with a number works on the stories; close this first (close).") }
            guard rest.count <= 7, let number = Int(rest), number >= 1 else { return .say("open takes a story's number, like open 3.") }
            guard number <= state.feed.store.count else {
                return .say("There are \(state.feed.store.count) stories\(state.feed.store.hasMore ? " so far" : ""): open 1 to open \(state.feed.store.count).")
            }
            return .send([.select(number - 1), key(.enter)])
        case "close", "dismiss", "stop":
            return rest.isEmpty ? .send([key(.escape)]) : unknown(text)
        case "pause", "play", "resume", "continue":
            guard rest.isEmpty else { return unknown(text) }
            guard let viewer = state.viewer, !viewer.isWaiting else {
                return .say(state.row.opening != nil ? "The story is still opening." : "Nothing is playing: open a story first.")
            }
            let wantsPause = words[0] == "pause"
            // An item that has played its time waits at its end: play goes on to the next.
            if state.itemWaitsAtItsEnd { return wantsPause ? .say("The item has ended: next goes on.") : .send([.command(.nextItem)]) }
            if viewer.isPaused == wantsPause { return .say(wantsPause ? "Already paused." : "Already playing.") }
            return .send([.command(.togglePause)])
        case "mute", "unmute", "sound":
            guard rest.isEmpty || words[0] == "sound" && (rest == "on" || rest == "off") else { return unknown(text) }
            let wantsOn = words[0] == "unmute" || (words[0] == "sound" && rest != "off")
            if state.media.sound.on == wantsOn { return .say(wantsOn ? "Sound is already on." : "Sound is already off.") }
            return .send([.command(.toggleSound)])
        case "find", "search":
            guard !rest.isEmpty else { return .say("find takes a name, like find layla.") }
            let name = text.drop { !$0.isWhitespace }.trimmingCharacters(in: .whitespaces)
            let typed = name.prefix(64).map { key(.character($0)) }
            // The search is the row's: from a story or a box, Esc goes back to it first.
            let back = [AppAction](repeating: key(.escape), count: (state.chrome.modal != nil ? 1 : 0) + (state.viewer != nil ? 1 : 0))
            return .send(back + [key(.character("/"))] + typed + [key(.enter)])
        case "link":
            return rest.isEmpty ? .send([.command(.openLink)]) : unknown(text)
        case "wait", "sleep":
            guard let seconds = Double(rest.hasSuffix("s") ? String(rest.dropLast()) : rest), seconds.isFinite, seconds >= 0 else {
                return .say("wait takes seconds, like wait 3.")
            }
            return seconds > maxWait ? .say("wait takes at most \(Int(maxWait)) seconds.") : .wait(seconds)
        case "where", "again", "repeat", "status":
            return rest.isEmpty ? .again : unknown(text)
        case "help", "commands":
            return rest.isEmpty ? .help : unknown(text)
        case "quit", "exit", "bye":
            return rest.isEmpty ? .quit : unknown(text)
        default:
            // A key by name: "l", "]", "Space", "Shift-Right".
            if words.count == 1, let input = KeyBindings.input(named: text) { return .send([.input(input, readAt: 0)]) }
            return unknown(text)
        }
    }

    private static func key(_ key: Key) -> AppAction { .input(.key(key), readAt: 0) }

    /// The key the viewer has `command` on now (keys.conf may have moved it), sent as a key
    /// so the context decides, as it does for a press: with a box open it does nothing.
    private static func storyKey(_ command: Command, _ state: AppState) -> AppAction {
        guard let input = state.bindings.bindings(in: .viewer).first(where: { $0.command == command })?.inputs.first else {
            return .command(command)
        }
        return .input(input, readAt: 0)
    }

    private static func unknown(_ text: String) -> ScreenReaderInput {
        .say("Unknown command ‘\(SafeText.line(text, maxColumns: 40))’. Type help for the commands.")
    }

    /// What `help` says: one line a command.
    public static let helpLines = [
        "Commands, one a line, then Enter:",
        "next, previous: the next or previous story on the row; in a story, the next or previous item.",
        "next story, previous story: in a story, move to the next or previous story.",
        "next new: the next story with items you have not seen.",
        "open: open the story you are on. open 3: open story 3.",
        "close: back to the stories.",
        "pause, play: stop or go on; a line of spaces does either.",
        "mute, unmute: the sound of videos and voice notes.",
        "find name: go to a person's story on the row, from anywhere.",
        "link: open the item's link.",
        "where: say again where you are. An empty line does too.",
        "wait 3: wait 3 seconds before the next line (for scripts).",
        "quit: leave.",
        "Any key of the full-screen app works by its name too: l, h, ], [, Space, Enter, Esc, Right, Left; ? lists them all.",
    ]
}
