import StoriesCore

/// Home: title line, the ring row, the selected story's details, feed problems, key hints.
public enum HomeScreen {
    /// The first row of the ring row.
    public static let ringRow = 2

    public static func render(_ state: AppState, into canvas: inout Canvas) {
        let width = canvas.width, height = canvas.height

        canvas.text(" ◉ stories", x: 0, y: 0, style: Theme.title)
        let titleX = 11
        canvas.text("· " + state.title, x: titleX, y: 0, style: Style(attributes: [.bold]), maxWidth: width - titleX - 14)
        if !state.isLoading {
            let count = state.stories.count == 1 ? "1 story" : "\(state.stories.count) stories"
            canvas.text(count, x: width - count.displayWidth - 1, y: 0, style: Theme.mutedText)
        }

        let ringY = ringRow
        if state.isLoading {
            canvas.text("Loading stories…", x: 2, y: ringY + 1, style: Theme.mutedText)
        } else if state.stories.isEmpty {
            canvas.text("No stories to show in this feed.", x: 2, y: ringY + 1, style: Theme.mutedText)
        } else {
            drawRing(state, into: &canvas, y: ringY)
            drawDetails(state, into: &canvas, y: ringY + Bubble.height + 1)
        }

        drawWarnings(state.warnings, into: &canvas, bottom: height - 2)
        Hints.draw([("←→", "choose"), ("Enter", "open"), ("?", "help"), ("q", "quit")], into: &canvas, y: height - 1)
    }

    /// Index of the first bubble shown: the selection stays in view, centred when the row
    /// scrolls. Derived from the selection alone, so it needs no state of its own.
    public static func firstVisible(selection: Int, count: Int, visible: Int) -> Int {
        guard count > visible else { return 0 }
        return min(max(0, selection - visible / 2), count - visible)
    }

    public static func visibleBubbles(width: Int) -> Int {
        max(1, (width - 4) / Bubble.slotWidth)
    }

    static func drawRing(_ state: AppState, into canvas: inout Canvas, y: Int) {
        let count = state.stories.count
        let visible = visibleBubbles(width: canvas.width)
        let first = firstVisible(selection: state.selection, count: count, visible: visible)
        let last = min(count, first + visible)
        for index in first..<last {
            let story = state.stories[index]
            let bubble = Bubble(name: story.author.name, isSeen: state.seen.isFullySeen(story),
                                isSelected: index == state.selection)
            bubble.draw(into: &canvas, x: 2 + (index - first) * Bubble.slotWidth, y: y)
        }
        let arrow = Style(foreground: Theme.accent, attributes: [.bold])
        if first > 0 { canvas.text("‹", x: 0, y: y + 1, style: arrow) }
        if last < count { canvas.text("›", x: canvas.width - 1, y: y + 1, style: arrow) }
    }

    static func drawDetails(_ state: AppState, into canvas: inout Canvas, y: Int) {
        guard state.stories.indices.contains(state.selection) else { return }
        let story = state.stories[state.selection]
        let width = canvas.width - 4
        var x = 2
        x += canvas.text(story.author.name, x: x, y: y, style: Style(attributes: [.bold]), maxWidth: width / 2)
        if let handle = story.author.handle {
            x += canvas.text("  @" + handle, x: x, y: y, style: Theme.mutedText, maxWidth: width - x)
        }
        let unseen = state.seen.unseenCount(in: story)
        let items = story.items.count == 1 ? "1 item" : "\(story.items.count) items"
        var summary = unseen == 0 ? "\(items), all seen" : (unseen == story.items.count ? "\(items), new" : "\(items), \(unseen) new")
        if let latest = story.items.compactMap(\.createdAt).max() {
            summary += " · " + RelativeTime.short(from: latest, to: state.now.date)
        }
        canvas.text(summary, x: 2, y: y + 1, style: Theme.mutedText, maxWidth: width)
        let next = story.items[state.seen.firstUnseenIndex(in: story)]
        if let preview = next.caption ?? next.textContent {
            let line = preview.split(separator: "\n").joined(separator: " ")
            canvas.text("“" + line + "”", x: 2, y: y + 2, style: Style(foreground: .palette(250), attributes: [.italic]), maxWidth: width)
        }
    }

    static func drawWarnings(_ warnings: [FeedWarning], into canvas: inout Canvas, bottom: Int) {
        guard let latest = warnings.last, bottom > 8 else { return }
        let style = Style(foreground: Theme.warning)
        let prefix = warnings.count == 1 ? "⚠ " : "⚠ \(warnings.count) feed problems; latest: "
        let lines = TextWrap.lines(prefix + latest.message, width: canvas.width - 4)
        for (offset, line) in lines.suffix(2).enumerated() {
            canvas.text(line, x: 2, y: bottom - min(2, lines.count) + 1 + offset, style: style, maxWidth: canvas.width - 4)
        }
    }
}

extension StoryItem {
    /// The words of a text item, nil for media.
    var textContent: String? {
        if case .text(let text, _) = content { return text }
        return nil
    }
}

/// The key-hint line at the bottom of a screen.
enum Hints {
    static func draw(_ hints: [(String, String)], into canvas: inout Canvas, y: Int) {
        var x = 1
        for (key, meaning) in hints {
            let needed = key.displayWidth + 1 + meaning.displayWidth
            guard x + needed < canvas.width else { break }
            x += canvas.text(key, x: x, y: y, style: Theme.hintKey)
            x += canvas.text(" " + meaning, x: x, y: y, style: Theme.hint)
            x += 2
        }
    }
}
