/// What a key asks the app to do. Key bindings turn keys into commands inside the
/// `GestureRecognizer` (part of the reducer), which also turns mouse gestures into them.
public enum Command: String, CaseIterable, Equatable, Sendable {
    case selectNext, selectPrevious, selectFirst, selectLast, open, quit, focusUp, focusDown
    case nextItem, previousItem, nextStory, previousStory, dismiss, togglePause, toggleFit
    /// `m`: the sound of videos and voice notes off or on.
    case toggleSound
    /// `closeBox` closes the help or the problems list, whichever is open.
    case toggleHelp, closeBox, toggleGestures, toggleMetrics
    /// A screenful on or back: the row by as many bubbles as fit, a box by its height.
    case screenfulNext, screenfulPrevious
    case nextUnseen, search, toggleProblems, redraw
    /// Ctrl-Z: the terminal given back and the process stopped until the shell's `fg`.
    case suspend
    case openLink, toggleLinkAddress, copyLink
    /// The `/` field's keys (context `search`): the next or previous match, look along the
    /// feed, give up (back where the search began), delete a character, empty the field.
    case searchNext, searchPrevious, searchSubmit, searchCancel, searchDeleteBackward, searchClear
    /// `--replay FILE --step`: the next recorded input, a thirtieth of a second on.
    case stepNext, stepFrame

    /// Names a `keys.conf` written for an older version may use.
    public static let formerNames: [String: Command] = [
        "pageNext": .screenfulNext, "pagePrevious": .screenfulPrevious, "closeHelp": .closeBox,
    ]

    /// The edit of the `/` field a search command makes.
    public var searchEdit: SearchEdit? {
        switch self {
        case .searchNext: .next
        case .searchPrevious: .previous
        case .searchSubmit: .submit
        case .searchCancel: .cancel
        case .searchDeleteBackward: .deleteBackward
        case .searchClear: .clear
        default: nil
        }
    }
}

/// Which part of the app has the keyboard.
public enum InputContext: String, Equatable, Sendable, CaseIterable {
    case home, viewer
    /// A box over the screen: the help (`?`) or the problems list (`p`).
    case box
    /// The `/` field on the row: printable keys type into it; the rest are bindings.
    case search
    /// `--replay FILE --step`: the keys move the replay on, not the app.
    case stepping

    /// Names a `keys.conf` written for an older version may use ("help" was the box).
    public static let formerNames: [String: InputContext] = ["help": .box]
}

/// One line of the key map: these inputs, in this context, do this.
public struct KeyBinding: Equatable, Sendable {
    public var context: InputContext
    public var inputs: [InputEvent]
    public var command: Command
    /// What the help overlay says the keys do.
    public var summary: String

    public init(_ context: InputContext, _ inputs: [InputEvent], _ command: Command, _ summary: String) {
        self.context = context
        self.inputs = inputs
        self.command = command
        self.summary = summary
    }

    /// The keys as the help overlay and the hint lines write them: "→ l".
    public var keyNames: String {
        inputs.map(\.description).joined(separator: " ")
    }
}

extension Command {
    /// The command that goes the other way along the screen: what a sideways key means when
    /// the layout runs right to left (issue 33). Nil for a command that does not go sideways.
    public var mirrored: Command? {
        switch self {
        case .selectNext: .selectPrevious
        case .selectPrevious: .selectNext
        case .nextItem: .previousItem
        case .previousItem: .nextItem
        case .nextStory: .previousStory
        case .previousStory: .nextStory
        default: nil
        }
    }
}

extension InputEvent {
    /// A key that points along the screen rather than the reading: ← and →, and vi's h and l
    /// (and H, L), with any modifiers. `[` and `]`, `n`, Tab are the reading's.
    public var isSideways: Bool {
        guard case .key(let key, _) = self else { return false }
        switch key {
        case .left, .right: return true
        case .character(let c): return "hlHL".contains(c)
        default: return false
        }
    }
}
