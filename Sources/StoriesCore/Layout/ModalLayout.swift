/// The box the help (`?`) and the feed-problems list (`p`) are drawn in, and what is in
/// it: the reducer scrolls with these numbers and `HelpOverlay` draws with them, so a page
/// key and the drawn page can never disagree. A box taller than the screen scrolls; its
/// last line says which lines are shown and which keys move.
public enum ModalLayout {
    public struct Row: Equatable, Sendable {
        /// The keys, in the help; empty in the problems list.
        public var keys: String
        public var text: String
    }

    public struct Content: Equatable, Sendable {
        public var title: String
        public var rows: [Row]
        /// Columns the keys take, before the text (0 when there are no keys).
        public var keyColumn: Int
        public var box: Rect
        /// How many rows the box shows at once, and the screen row of the first.
        public var visibleLines: Int
        public var firstLine: Int
        /// The row of the last line: where the page is and how to close.
        public var footerLine: Int { box.maxY - 2 }

        public var maxScroll: Int { max(0, rows.count - visibleLines) }
    }

    /// Rows inside the box besides the lines: the border, a blank under the title, the
    /// footer line and the border (and a blank above the footer when there is room).
    static let chrome = 4
    /// The widest the problems list gets: long lines are easier to read wrapped.
    static let maxProblemsWidth = 100

    /// The mouse's gestures, after the keys (the mouse is not rebindable).
    public static let mouseInViewer = [
        Row(keys: "click", text: "left third: back · right: next · the hint line's keys"),
        Row(keys: "hold", text: "press and hold: pause"),
        Row(keys: "drag", text: "sideways: story · down: dismiss"),
    ]
    /// Right to left, a tap's zones are mirrored (and a sideways drag goes the reading's way).
    public static let mouseInViewerRightToLeft = [
        Row(keys: "click", text: "right third: back · left: next · the hint line's keys"),
        Row(keys: "hold", text: "press and hold: pause"),
        Row(keys: "drag", text: "sideways: story (right: next) · down: dismiss"),
    ]
    public static let mouseOnHome = [
        Row(keys: "click", text: "open a bubble, run a cell, ‹ › a screenful, the hint line's keys"),
        Row(keys: "wheel", text: "choose"),
    ]

    /// The keys in force here, each row a command and its keys. Right to left, where the
    /// sideways keys go the way they point (the viewer, the ring row), ← → h l H L are listed
    /// with what they do there (`Command.mirrored`), as the recognizer reads them.
    static func keyRows(_ state: AppState, context: InputContext) -> [Row] {
        var bindings = state.bindings.bindings(in: context).filter { $0.command != .toggleHelp && !$0.inputs.isEmpty }
        let mirrors = context == .viewer || (context == .home && state.home.level.focus == nil)
        if state.isRightToLeft, mirrors {
            var moved: [Command: [InputEvent]] = [:]
            for index in bindings.indices {
                guard let mirrored = bindings[index].command.mirrored else { continue }
                let sideways = bindings[index].inputs.filter(\.isSideways)
                bindings[index].inputs.removeAll { $0.isSideways }
                moved[mirrored, default: []] += sideways
            }
            for index in bindings.indices {
                bindings[index].inputs += moved[bindings[index].command] ?? []
                // The tap that does the same is on the other side too.
                bindings[index].summary = bindings[index].summary.replacingOccurrences(of: "tap right", with: "tap ⇄")
                    .replacingOccurrences(of: "tap left", with: "tap right").replacingOccurrences(of: "tap ⇄", with: "tap left")
            }
            bindings.removeAll { $0.inputs.isEmpty }
        }
        var rows = bindings.map { Row(keys: $0.keyNames, text: $0.summary) }
        // The terminal's two chores share a row, so the help fits 80×24 whole: Ctrl-L's, and
        // Ctrl-Z's keys said in its text.
        if let redraw = bindings.firstIndex(where: { $0.command == .redraw }),
           let suspend = bindings.firstIndex(where: { $0.command == .suspend }) {
            rows[redraw].text = "redraw the screen · \(bindings[suspend].keyNames) stop (fg: back)"
            rows.remove(at: suspend)
        }
        return rows
    }

    /// What the box shows now, and where; nil when no box is open.
    public static func content(_ state: AppState) -> Content? {
        guard let modal = state.chrome.modal else { return nil }
        let width = state.screenWidth, height = state.screenHeight
        switch modal {
        case .help:
            let context: InputContext = state.viewer == nil ? .home : .viewer
            var entries = keyRows(state, context: context)
            entries += context == .viewer ? (state.isRightToLeft ? mouseInViewerRightToLeft : mouseInViewer) : mouseOnHome
            let keyColumn = min(18, (entries.map { $0.keys.displayWidth }.max() ?? 4) + 2)
            let textWidth = entries.map { $0.text.displayWidth }.max() ?? 10
            let boxWidth = min(width - 2, max(40, keyColumn + textWidth + 6))
            // A summary too long for the box goes on under itself rather than being cut.
            let room = max(1, boxWidth - keyColumn - 5)
            var rows: [Row] = []
            for entry in entries {
                for (index, line) in TextWrap.lines(entry.text, width: room).enumerated() {
                    rows.append(Row(keys: index == 0 ? entry.keys : "", text: line))
                }
            }
            return place(title: context == .viewer ? " Keys · viewer " : " Keys · stories ", rows: rows,
                         keyColumn: keyColumn, boxWidth: boxWidth, screen: (width, height))
        case .problems:
            let boxWidth = min(width - 2, maxProblemsWidth)
            let textWidth = max(1, boxWidth - 8)
            var rows: [Row] = []
            for warning in state.feed.warnings {
                for (index, line) in TextWrap.lines(warning.message, width: textWidth).enumerated() {
                    rows.append(Row(keys: "", text: (index == 0 ? "• " : "  ") + line))
                }
            }
            if rows.isEmpty { rows = [Row(keys: "", text: "No problems found in this feed so far.")] }
            let count = state.feed.warnings.count
            let title = " Feed problems · \(count == 1 ? "1 problem" : "\(count) problems") "
            return place(title: title, rows: rows, keyColumn: 0, boxWidth: boxWidth, screen: (width, height))
        }
    }

    /// The box, centred: the border, a blank row under the title and above the footer, the
    /// rows; when that does not fit, the blank rows go before any row is scrolled away.
    private static func place(title: String, rows: [Row], keyColumn: Int, boxWidth: Int,
                              screen: (width: Int, height: Int)) -> Content {
        let room = screen.height - 2
        let roomy = rows.count + chrome + 1 <= room
        let around = roomy ? chrome + 1 : chrome - 1
        let boxHeight = max(around + 1, min(room, rows.count + around))
        let box = Rect(x: max(0, (screen.width - boxWidth) / 2), y: max(0, (screen.height - boxHeight) / 2),
                       width: max(1, boxWidth), height: boxHeight)
        return Content(title: title, rows: rows, keyColumn: keyColumn, box: box,
                       visibleLines: max(1, boxHeight - around), firstLine: box.y + (roomy ? 2 : 1))
    }

}
