/// The key map: the keyboard column of DESIGN.md's gesture table. The help overlay is drawn
/// from this table, so it always shows the bindings in force.
public struct KeyBindings: Equatable, Sendable {
    public var bindings: [KeyBinding]

    public init(bindings: [KeyBinding]) { self.bindings = bindings }

    public func command(for input: InputEvent, in context: InputContext) -> Command? {
        bindings.first { $0.context == context && $0.inputs.contains(input) }?.command
    }

    /// A terminal sends Alt+key as Esc followed by the key, so Esc pressed just before
    /// another key (a fast typist, `tmux send-keys Escape q`) reads as Alt+key. When no
    /// binding takes that Alt form, it is read as the two keys it most likely was.
    public func resolving(_ input: InputEvent, in context: InputContext) -> [InputEvent] {
        guard case .key(let key, let modifiers) = input, modifiers.contains(.alt),
              command(for: input, in: context) == nil else { return [input] }
        return [.key(.escape), .key(key, modifiers.subtracting(.alt))]
    }

    public func bindings(in context: InputContext) -> [KeyBinding] {
        bindings.filter { $0.context == context }
    }

    private static func chars(_ text: String) -> [InputEvent] {
        text.map { .key(.character($0)) }
    }

    public static let standard = KeyBindings(bindings: [
        KeyBinding(.home, [.key(.right)] + chars("l"), .selectNext, "next story in the row (next cell in a section)"),
        KeyBinding(.home, [.key(.left)] + chars("h"), .selectPrevious, "previous story in the row (previous cell)"),
        KeyBinding(.home, [.key(.home)], .selectFirst, "first story (first cell)"),
        KeyBinding(.home, [.key(.end)], .selectLast, "the feed's last story, paging on to it (last cell)"),
        KeyBinding(.home, [.key(.pageDown)], .screenfulNext, "a screenful on (of cells in a section)"),
        KeyBinding(.home, [.key(.pageUp)], .screenfulPrevious, "a screenful back"),
        KeyBinding(.home, chars("n"), .nextUnseen, "next story with unseen items"),
        KeyBinding(.home, chars("/"), .search, "find a person by name or handle"),
        KeyBinding(.home, [.key(.down)] + chars("j"), .focusDown, "next section below the row"),
        KeyBinding(.home, [.key(.up)] + chars("k"), .focusUp, "previous section (back up to the row)"),
        KeyBinding(.home, [.key(.enter)], .open, "open the story (run the cell's action)"),
        KeyBinding(.home, [.key(.escape)], .dismiss, "stop opening; close a section screen; back to the row"),
        KeyBinding(.home, chars("g"), .toggleGestures, "gesture log: how each input was routed"),
        KeyBinding(.home, chars("i"), .toggleMetrics, "metrics: time to visible, the preload window"),
        KeyBinding(.home, chars("p"), .toggleProblems, "every feed problem, with its file and field"),
        KeyBinding(.home, chars("?"), .toggleHelp, "this help"),
        KeyBinding(.home, chars("q"), .quit, "quit"),
        KeyBinding(.home, [.key(.character("l"), .control)], .redraw, "redraw the whole screen"),
        KeyBinding(.home, [.key(.character("z"), .control)], .suspend, "stop; the shell's fg brings it back"),

        KeyBinding(.viewer, [.key(.right)] + chars("l"), .nextItem, "tap right: next item"),
        KeyBinding(.viewer, [.key(.left)] + chars("h"), .previousItem, "tap left: previous item"),
        KeyBinding(.viewer, chars("]") + [.key(.right, .shift)] + chars("L"), .nextStory, "swipe: next story"),
        KeyBinding(.viewer, chars("[") + [.key(.left, .shift)] + chars("H"), .previousStory, "swipe: previous story"),
        KeyBinding(.viewer, chars(" "), .togglePause, "hold: pause / resume"),
        KeyBinding(.viewer, chars("n"), .nextUnseen, "next story with unseen items"),
        KeyBinding(.viewer, chars("f"), .toggleFit, "photos: fill the screen / show whole"),
        KeyBinding(.viewer, chars("m"), .toggleSound, "sound: off / on"),
        KeyBinding(.viewer, chars("o"), .openLink, "open the item's link in the browser"),
        KeyBinding(.viewer, chars("u"), .toggleLinkAddress, "show or hide links' addresses"),
        KeyBinding(.viewer, chars("y"), .copyLink, "copy the item's link to the clipboard (OSC 52)"),
        KeyBinding(.viewer, [.key(.escape)] + chars("q") + [.key(.down)] + chars("j"), .dismiss, "dismiss: back to the row"),
        KeyBinding(.viewer, chars("g"), .toggleGestures, "gesture log: how each input was routed"),
        KeyBinding(.viewer, chars("i"), .toggleMetrics, "metrics: time to visible, the preload window"),
        KeyBinding(.viewer, chars("p"), .toggleProblems, "every feed problem, with its file and field"),
        KeyBinding(.viewer, chars("?"), .toggleHelp, "this help"),
        KeyBinding(.viewer, [.key(.character("l"), .control)], .redraw, "redraw the whole screen"),
        KeyBinding(.viewer, [.key(.character("z"), .control)], .suspend, "stop; the shell's fg brings it back"),

        KeyBinding(.box, [.key(.pageDown), .key(.down)] + chars(" j"), .screenfulNext, "scroll on"),
        KeyBinding(.box, [.key(.pageUp), .key(.up)] + chars("k"), .screenfulPrevious, "scroll back"),
        KeyBinding(.box, [.key(.escape)] + chars("?qp"), .closeBox, "close"),
        KeyBinding(.box, [.key(.character("l"), .control)], .redraw, "redraw the whole screen"),
        KeyBinding(.box, [.key(.character("z"), .control)], .suspend, "stop; the shell's fg brings it back"),

        KeyBinding(.stepping, [.key(.right), .key(.enter)] + chars(" l"), .stepNext, "replay the next recorded input"),
        KeyBinding(.stepping, chars("."), .stepFrame, "a thirtieth of a second on"),
        KeyBinding(.stepping, [.key(.escape), .key(.character("c"), .control)] + chars("q"), .quit, "stop and quit"),
        KeyBinding(.stepping, [.key(.character("z"), .control)], .suspend, "stop; the shell's fg brings it back"),

        KeyBinding(.search, [.key(.tab), .key(.down)], .searchNext, "the next story that matches"),
        KeyBinding(.search, [.key(.tab, .shift), .key(.up)], .searchPrevious, "the previous one"),
        KeyBinding(.search, [.key(.enter)], .searchSubmit, "keep it (none loaded: look along the feed)"),
        KeyBinding(.search, [.key(.escape)], .searchCancel, "give up: back where the search began"),
        KeyBinding(.search, [.key(.backspace), .key(.delete)], .searchDeleteBackward, "delete a character"),
        KeyBinding(.search, [.key(.character("u"), .control)], .searchClear, "empty the field"),
        KeyBinding(.search, [.key(.character("l"), .control)], .redraw, "redraw the whole screen"),
        KeyBinding(.search, [.key(.character("z"), .control)], .suspend, "stop; the shell's fg brings it back"),
    ])
}
