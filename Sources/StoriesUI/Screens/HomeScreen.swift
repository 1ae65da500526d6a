import StoriesMedia
import StoriesCells
import StoriesCore

/// Home: title line, the ring row, the selected story's details, the server-driven
/// sections below them, the notice and feed-problem lines, key hints. A screen of sections
/// a cell opened replaces the ring row and details with its own title.
public enum HomeScreen {
    /// The first row of the ring row.
    public static let ringRow = RingLayout.row

    /// `backdrop`: drawn behind the viewer growing out of its bubble or shrinking into it —
    /// without the key hints, which are the viewer's then (the keys work on it), so the
    /// bottom line never holds the viewer's keys and the home's "↓ 2 more sections".
    public static func render(_ state: AppState, into canvas: inout Canvas,
                              banners: AppView.PictureLookup = { _ in .loading }, backdrop: Bool = false) {
        let width = canvas.width, height = canvas.height
        let nested = state.home.levels.count > 1

        canvas.text(" ◉ stories", x: 0, y: 0, style: Theme.title)
        // The dot apart from the title: a right-to-left title is a paragraph of its own, and
        // the dot would go to its far end.
        canvas.text("· ", x: 11, y: 0, style: Style(attributes: [.bold]))
        let titleX = 13
        var title = state.title
        if nested { title += " › " + state.home.level.title.ifEmpty("sections") }
        canvas.text(title, x: titleX, y: 0, style: Style(attributes: [.bold]), maxWidth: width - titleX - 24)
        let count = state.feed.store.count
        if count > 0 || !state.feed.store.hasMore {
            var text = state.feed.store.countText() // as the screen-reader mode says it
            if let network = state.network { text = "⇅ \(network) · " + text }
            canvas.text(text, x: width - text.displayWidth - 1, y: 0, style: Theme.mutedText)
        }

        if !nested {
            let ringY = ringRow
            if count == 0 {
                canvas.text(state.emptyRowMessage, x: 2, y: ringY + 1, style: Theme.mutedText, maxWidth: width - 4)
            } else {
                drawRing(state, into: &canvas, y: ringY)
                drawDetails(state, into: &canvas, y: ringY + Bubble.height + 1)
            }
        }
        HomeSectionsView.draw(state, into: &canvas, banners: banners)

        var bottom = height - 2
        let notice = HomeGeometry.noticeLines(state)
        for (offset, line) in notice.enumerated() {
            canvas.text(line, x: 2, y: bottom - notice.count + 1 + offset, style: Style(foreground: Theme.accent), maxWidth: width - 4)
        }
        bottom -= notice.count
        let paging = HomeGeometry.pagingLines(state)
        for (offset, line) in paging.enumerated() {
            canvas.text(line, x: 2, y: bottom - paging.count + 1 + offset, style: Style(foreground: Theme.warning), maxWidth: width - 4)
        }
        bottom -= paging.count
        // The latest problem is not said twice while the notice line says it (a file that
        // could not be written is both); it shows here once the notice is read.
        if let latest = state.feed.warnings.last, state.chrome.notice == "⚠ " + latest.message {} else {
            drawWarnings(state.feed.warnings, into: &canvas, bottom: bottom)
        }
        HomeSectionsView.drawTooltip(state, into: &canvas)
        if let search = state.row.search {
            drawSearch(search, state: state, into: &canvas, y: height - 1)
            return
        }
        guard !backdrop else { return }
        let hintsEnd = Hints.draw(state, into: &canvas, y: height - 1)
        // At the right of the hints' room: a replay's label, when there is one, is beyond it.
        let room = width - (HintLine.replayLabel(state).map { $0.displayWidth + 3 } ?? 0)
        if let more = HomeSectionsView.moreBelow(state), hintsEnd + more.displayWidth + 2 <= room {
            canvas.text(more, x: room - more.displayWidth - 1, y: height - 1, style: Theme.mutedText)
        }
    }

    /// Where the bubble of a story is drawn, when it is in view: present grows out of it
    /// and dismiss shrinks into it.
    public static func bubbleRect(of index: Int, state: AppState, width: Int) -> Rect? {
        guard state.home.levels.count == 1 else { return nil }
        let visible = RingLayout.visibleBubbles(width: width)
        let first = RingLayout.firstVisible(selection: state.row.selection, count: state.feed.store.count, visible: visible)
        guard index >= first, index < first + visible else { return nil }
        return Rect(x: RingLayout.slotX(index - first, width: width, rightToLeft: state.isRightToLeft), y: ringRow,
                    width: Bubble.ringWidth, height: Bubble.height - 1)
    }

    /// Draws only the visible bubbles, each found through the relation map: the cost of a
    /// frame does not grow with the number of stories.
    static func drawRing(_ state: AppState, into canvas: inout Canvas, y: Int) {
        let store = state.feed.store
        let count = store.count
        let visible = RingLayout.visibleBubbles(width: canvas.width)
        let first = RingLayout.firstVisible(selection: state.row.selection, count: count, visible: visible)
        let last = min(count, first + visible)
        // The selection is drawn heavy only while the row has the keyboard.
        let rowHasKeyboard = state.home.level.focus == nil
        for index in first..<last {
            let id = store.summaries[index].id
            // A bubble whose view model is still being built stays empty for that frame.
            guard let model = state.viewModels.ring.model(for: id) else { continue }
            var ring: Bubble.Ring?
            if state.row.opening == id {
                ring = .loading(step: Int(max(0, state.now.uptime - state.row.openingSince) * Bubble.spinnerStepsPerSecond))
            } else if case .failed? = store.items[id] { ring = .failed }
            var bubble = Bubble(model, isSelected: index == state.row.selection && rowHasKeyboard, ring: ring)
            bubble.rightToLeft = state.isRightToLeft
            bubble
                .draw(into: &canvas, x: RingLayout.slotX(index - first, width: canvas.width, rightToLeft: state.isRightToLeft), y: y)
        }
        // More before and more after, at the row's start and end (right and left, right to left).
        let arrow = Style(foreground: Theme.accent, attributes: [.bold])
        let (startSide, endSide) = state.isRightToLeft ? ((canvas.width - 1, "›"), (0, "‹")) : ((0, "‹"), (canvas.width - 1, "›"))
        if first > 0 { canvas.text(startSide.1, x: startSide.0, y: y + 1, style: arrow) }
        if last < count || store.hasMore { canvas.text(endSide.1, x: endSide.0, y: y + 1, style: arrow) }
    }

    static func drawDetails(_ state: AppState, into canvas: inout Canvas, y: Int) {
        guard let id = state.feed.store.summaries[safe: state.row.selection]?.id, let model = state.viewModels.ring.model(for: id) else { return }
        let width = canvas.width - 4
        // Right to left, each line ends at the right margin, under the row's start.
        let rightToLeft = state.isRightToLeft
        func line(_ text: String, y: Int, style: Style, from x: Int = 2, maxWidth: Int = width) -> Int {
            guard rightToLeft else { return canvas.text(text, x: x, y: y, style: style, maxWidth: maxWidth) }
            let shown = min(text.displayWidth, maxWidth)
            return canvas.text(text, x: canvas.width - 2 - (x - 2) - shown, y: y, style: style, maxWidth: shown)
        }
        var x = 2
        x += line(model.fullName, y: y, style: Style(attributes: [.bold]), maxWidth: width / 2)
        if let handle = model.handle {
            // The handle after the name in reading order: to its left, right to left.
            _ = line((rightToLeft ? "@" + handle + "  " : "  @" + handle), y: y, style: Theme.mutedText, from: x, maxWidth: width - x)
        }
        _ = line(model.summary, y: y + 1, style: Theme.mutedText)
        if state.row.opening == id {
            _ = line("Loading the story… (Esc: stop)", y: y + 2, style: Style(foreground: Theme.accent))
        } else if case .failed(let reason)? = state.feed.store.items[id] {
            _ = line("⚠ Could not load (Enter: try again): \(reason)", y: y + 2, style: Style(foreground: Theme.warning))
        } else if let preview = model.preview {
            _ = line("“" + preview + "”", y: y + 2, style: Style(foreground: .palette(250), attributes: [.italic]))
        }
    }

    /// The `/` field on the last row: what is typed, a cursor, and what it found.
    static func drawSearch(_ search: SearchField, state: AppState, into canvas: inout Canvas, y: Int) {
        let width = canvas.width
        // The keys in force (keys.conf can rebind the field's), each said only while bound.
        func hint(_ command: Command, _ what: String) -> String {
            guard let key = state.bindings.bindings(in: .search).first(where: { $0.command == command })?.inputs.first else { return "" }
            return " · \(key.description) \(what)"
        }
        let cancel = hint(.searchCancel, "cancel")
        let found: String
        if search.text.isEmpty {
            found = "type a name or @handle" + cancel
        } else if search.matches > 0 {
            found = "\(search.matches == 1 ? "1 match" : "\(search.matches) matches")" + hint(.searchNext, "next") + hint(.searchSubmit, "done") + cancel
        } else if state.feed.store.hasMore {
            found = "none among \(state.feed.store.count) loaded" + hint(.searchSubmit, "look further") + cancel
        } else {
            found = "no one by that name" + cancel
        }
        let foundWidth = min(found.displayWidth, max(0, width - 12))
        var x = 1
        x += canvas.text("/ ", x: x, y: y, style: Theme.hintKey)
        // The end of a long query stays in view, where the typing happens.
        let room = max(1, width - x - foundWidth - 4)
        var shown = search.text
        while shown.displayWidth > room, !shown.isEmpty { shown.removeFirst() }
        x += canvas.text(shown, x: x, y: y, style: Style(attributes: [.bold]))
        canvas.text(" ", x: x, y: y, style: Style(attributes: [.reverse]))
        canvas.focus(x: x, y: y) // where the next letter goes
        let style = search.matches > 0 || search.text.isEmpty ? Theme.hint : Style(foreground: Theme.warning)
        canvas.text(found, x: width - foundWidth - 1, y: y, style: style, maxWidth: foundWidth)
    }

    static func drawWarnings(_ warnings: [FeedWarning], into canvas: inout Canvas, bottom: Int) {
        guard let latest = warnings.last, bottom > 8 else { return }
        let style = Style(foreground: Theme.warning)
        let prefix = warnings.count == 1 ? "⚠ " : "⚠ \(warnings.count) feed problems (p: all); latest: "
        // The start of the line says what and where (file, field); a message longer than two
        // lines keeps its start and ends in "…" (`p` lists every problem whole).
        var lines = TextWrap.lines(prefix + latest.message, width: canvas.width - 4)
        if lines.count > 2 {
            lines = Array(lines.prefix(2))
            lines[1] = (lines[1] + " …").truncated(toWidth: canvas.width - 4)
        }
        for (offset, line) in lines.enumerated() {
            canvas.text(line, x: 2, y: bottom - lines.count + 1 + offset, style: style, maxWidth: canvas.width - 4)
        }
    }
}

extension String {
    fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}

/// The key-hint line at the bottom of a screen, as `HintLine` lays it out.
enum Hints {
    /// Draws the hints that fit; returns the column after the last one drawn.
    @discardableResult
    static func draw(_ state: AppState, into canvas: inout Canvas, y: Int) -> Int {
        var end = 1
        for placed in HintLine.layout(HintLine.hints(state), width: HintLine.room(state)) {
            var x = placed.x
            x += canvas.text(placed.hint.keyText, x: x, y: y, style: Theme.hintKey)
            x += canvas.text(" " + placed.hint.meaning, x: x, y: y, style: Theme.hint)
            end = x + 2
        }
        if let label = HintLine.replayLabel(state) {
            canvas.text(label, x: max(0, canvas.width - label.displayWidth - 1), y: y,
                        style: Style(foreground: Theme.warning, attributes: [.bold]))
        }
        return end
    }
}
