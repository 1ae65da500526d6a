/// What a key asks the app to do. Key bindings turn keys into commands inside the
/// `GestureRecognizer` (part of the reducer), which also turns mouse gestures into them.
public enum Command: String, CaseIterable, Equatable, Sendable {
    case selectNext, selectPrevious, selectFirst, selectLast, open, quit, focusUp, focusDown
    case nextItem, previousItem, nextStory, previousStory, dismiss, togglePause, toggleFit
    case toggleHelp, closeHelp, toggleGestures, toggleMetrics
    case pageNext, pagePrevious, nextUnseen, search, toggleProblems, redraw
    case openLink, toggleLinkAddress, copyLink
}

/// Which part of the app has the keyboard.
public enum InputContext: String, Equatable, Sendable, CaseIterable {
    case home, viewer, help
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
