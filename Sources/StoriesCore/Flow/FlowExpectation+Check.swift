import Foundation
import StoriesCells

extension FlowExpectation {
    /// The expectation in words, for the report's line ("text \"Mika\" in columns 0–99 of
    /// rows 0–2").
    public var summary: String {
        switch self {
        case .text(let text, let place, let present):
            let quoted = "\"" + Self.printable(String(text.prefix(60))) + (text.count > 60 ? "…" : "") + "\""
            let verb = present ? "visible" : "not visible"
            switch place {
            case .anywhere: return "text \(quoted) \(verb)"
            case .region(let x, let y, let w, let h):
                return "text \(quoted) \(verb) in columns \(x)–\(x + w - 1) of rows \(y)–\(y + h - 1)"
            case .cell(let x, let y): return "text \(quoted) \(verb) at column \(x), row \(y)"
            }
        case .gesture(let expected):
            var parts = ["gesture " + (expected.gesture.map { "\"\(SafeText.line($0, maxColumns: 60))\"" } ?? "(any)")]
            if let handler = expected.handler { parts.append("by \(SafeText.line(handler, maxColumns: 60))") }
            if !expected.declined.isEmpty { parts.append("declined by \(expected.declined.map { SafeText.line($0, maxColumns: 40) }.joined(separator: ", "))") }
            if !expected.result.isEmpty { parts.append("giving \(expected.result.map { SafeText.line($0, maxColumns: 40) }.joined(separator: ", "))") }
            return parts.joined(separator: " ")
        case .shown(.home): return "the home shown"
        case .shown(.story(let story, let item)):
            return "story \(SafeText.line(story, maxColumns: 60))" + (item.map { ", item \(Self.describe($0))," } ?? "") + " shown"
        case .progress(let item, let of, let atLeast, let atMost):
            var parts = ["progress"]
            if let item { parts.append("item \(item)" + (of.map { " of \($0)" } ?? "")) } else if let of { parts.append("of \(of) items") }
            if let atLeast { parts.append("at least \(Self.percent(atLeast))") }
            if let atMost { parts.append("at most \(Self.percent(atMost))") }
            return parts.joined(separator: " ")
        case .seen(let story, let item, let seen):
            let what = item.map { "item \(SafeText.line($0, maxColumns: 60)) of story \(SafeText.line(story, maxColumns: 60))" }
                ?? "story \(SafeText.line(story, maxColumns: 60))"
            return what + (seen ? " seen" : " not seen")
        case .navigation(let story, let item, let hit, let within):
            var parts = ["navigation"]
            if let story { parts.append("to \(SafeText.line(story, maxColumns: 60))") }
            if let item { parts.append("item \(Self.describe(item))") }
            if let hit { parts.append(hit ? "a preload hit" : "a preload miss") }
            if let within { parts.append("visible within \(Self.number(within)) ms") }
            return parts.joined(separator: " ")
        case .screen(_, let file):
            return "screen equals " + (file.map { SafeText.line($0, maxColumns: 80) } ?? "the lines given")
        }
    }

    /// Whether `observation` meets the expectation, and what it showed.
    public func check(_ o: FlowObservation) -> FlowVerdict {
        switch self {
        case .text(let text, let place, let present):
            let found = Self.find(text, in: o.rows, place: place)
            let actual = found.map { "found at column \($0.x), row \($0.y)" } ?? "not found"
            return FlowVerdict(passed: (found != nil) == present, actual: actual, evidence: (found != nil) == present ? [] : Self.framed(o.lines))
        case .gesture(let expected):
            return Self.checkGesture(expected, o.decisions)
        case .shown(let expected):
            return Self.checkShown(expected, o.state)
        case .progress(let item, let of, let atLeast, let atMost):
            guard let viewer = o.state.viewer, !viewer.isWaiting,
                  let story = o.state.feed.store.story(at: viewer.storyIndex), let shown = story.items[safe: viewer.itemIndex] else {
                return FlowVerdict(passed: false, actual: "no item is playing (\(Self.describeShown(o.state)))")
            }
            let fraction = min(1, max(0, viewer.playback.elapsed(at: o.state.now.uptime) / max(0.001, o.state.duration(of: shown))))
            let passed = (item.map { $0 == viewer.itemIndex + 1 } ?? true) && (of.map { $0 == story.items.count } ?? true)
                && (atLeast.map { fraction >= $0 - 1e-9 } ?? true) && (atMost.map { fraction <= $0 + 1e-9 } ?? true)
            return FlowVerdict(passed: passed, actual: "item \(viewer.itemIndex + 1) of \(story.items.count), \(Self.percent(fraction)) played"
                                   + (viewer.isPaused ? " (paused)" : ""))
        case .seen(let story, let item, let seen):
            guard let summary = Self.summary(story, o.state) else {
                return FlowVerdict(passed: false, actual: "no story \(SafeText.line(story, maxColumns: 60)) in the feed loaded so far")
            }
            let isSeen: Bool
            if let item {
                guard summary.itemIDs.contains(item) else {
                    return FlowVerdict(passed: false, actual: "story \(SafeText.line(summary.id, maxColumns: 60)) has no item \(SafeText.line(item, maxColumns: 60))")
                }
                isSeen = o.state.seen.isSeen(story: summary.id, item: item)
            } else {
                isSeen = o.state.seen.isFullySeen(story: summary.id, items: summary.itemIDs)
            }
            let count = summary.itemIDs.count - o.state.seen.unseenCount(story: summary.id, items: summary.itemIDs)
            return FlowVerdict(passed: isSeen == seen, actual: (isSeen ? "seen" : "not seen") + " (\(count) of \(summary.itemIDs.count) items seen)")
        case .navigation(let story, let item, let hit, let within):
            return Self.checkNavigation(story: story, item: item, hit: hit, within: within, o)
        case .screen(let expected, _):
            let actual = o.lines
            let trimmed = expected.map { line -> String in
                var line = line
                while line.last == " " { line.removeLast() }
                return line
            }
            let diff = Self.diff(expected: trimmed, actual: actual)
            return FlowVerdict(passed: diff.isEmpty, actual: diff.isEmpty ? "the same" : "\(diff.count / 2) lines differ", evidence: diff)
        }
    }

    // MARK: - Pieces

    static func checkGesture(_ expected: FlowGesture, _ decisions: [GestureDecision]) -> FlowVerdict {
        func matches(_ d: GestureDecision) -> Bool {
            (expected.gesture.map { $0 == d.gesture } ?? true) && (expected.handler.map { $0 == d.handler } ?? true)
                && expected.declined.allSatisfy { name in d.declined.contains { $0.recognizer == name } }
                && expected.result.allSatisfy { d.result.contains($0) }
        }
        let routed = decisions.filter { $0.gesture != "none" || !$0.declined.isEmpty }
        let passed = decisions.contains(where: matches)
        guard !routed.isEmpty else { return FlowVerdict(passed: passed, actual: "no input was routed since the last input") }
        let words = routed.suffix(4).map { d -> String in
            var text = "\"\(SafeText.line(d.gesture, maxColumns: 60))\" by \(SafeText.line(d.handler, maxColumns: 40))"
            if !d.result.isEmpty { text += " → \(d.result.map { SafeText.line($0, maxColumns: 40) }.joined(separator: ", "))" }
            if !d.declined.isEmpty { text += " (declined by \(d.declined.map { SafeText.line($0.recognizer, maxColumns: 30) }.joined(separator: ", ")))" }
            return text
        }
        return FlowVerdict(passed: passed, actual: words.joined(separator: "; "))
    }

    static func checkShown(_ expected: FlowShown, _ state: AppState) -> FlowVerdict {
        let actual = describeShown(state)
        switch expected {
        case .home:
            return FlowVerdict(passed: state.viewer == nil, actual: actual)
        case .story(let name, let item):
            guard let summary = summary(name, state) else {
                return FlowVerdict(passed: false, actual: "no story \(SafeText.line(name, maxColumns: 60)) in the feed loaded so far (the screen shows \(actual))")
            }
            guard let viewer = state.viewer, !viewer.isWaiting,
                  state.feed.store.summaries[safe: viewer.storyIndex]?.id == summary.id else {
                return FlowVerdict(passed: false, actual: actual)
            }
            let shownID = summary.itemIDs[safe: viewer.itemIndex]
            let passed: Bool
            switch item {
            case nil: passed = true
            case .number(let number)?: passed = number == viewer.itemIndex + 1
            case .id(let id)?: passed = id == shownID
            }
            return FlowVerdict(passed: passed, actual: actual)
        }
    }

    static func checkNavigation(story: String?, item: FlowItem?, hit: Bool?, within: Double?, _ o: FlowObservation) -> FlowVerdict {
        let storyID = story.map { summary($0, o.state)?.id ?? $0 }
        let candidates = o.navigations.filter { record in
            guard record.complete else { return false }
            if let storyID, record.story != storyID { return false }
            switch item {
            case nil: return true
            case .id(let id)?: return record.item == id
            case .number(let number)?:
                let ids = o.state.feed.store.positions[record.story].flatMap { o.state.feed.store.summaries[safe: $0]?.itemIDs } ?? []
                return ids[safe: number - 1] == record.item
            }
        }
        guard let record = candidates.last else {
            return FlowVerdict(passed: false, actual: "no such navigation has finished (\(o.navigations.count) so far)")
        }
        let passed = (hit.map { $0 == record.hit } ?? true) && (within.map { record.timeToVisible <= $0 + 1e-9 } ?? true)
        let actual = "\(SafeText.line(record.trigger, maxColumns: 40)) to \(SafeText.line(record.story, maxColumns: 40)) "
            + "\(SafeText.line(record.item, maxColumns: 40)): \(record.hit ? "a hit" : "a miss"), visible in \(number(record.timeToVisible)) ms"
        return FlowVerdict(passed: passed, actual: actual)
    }

    /// What the screen shows, in words.
    public static func describeShown(_ state: AppState) -> String {
        guard let viewer = state.viewer else {
            if let opening = state.row.opening { return "the home, opening \(SafeText.line(opening, maxColumns: 60))" }
            return "the home"
        }
        let id = state.feed.store.summaries[safe: viewer.storyIndex]?.id ?? "?"
        if viewer.isWaiting { return "the viewer, waiting for story \(SafeText.line(id, maxColumns: 60))" }
        let items = state.feed.store.summaries[safe: viewer.storyIndex]?.itemIDs ?? []
        let item = items[safe: viewer.itemIndex] ?? "?"
        return "story \(SafeText.line(id, maxColumns: 60)), item \(viewer.itemIndex + 1) of \(items.count) (\(SafeText.line(item, maxColumns: 60)))"
    }

    /// A story by id, else by its author's name.
    static func summary(_ name: String, _ state: AppState) -> StorySummary? {
        let store = state.feed.store
        if let position = store.positions[name], let summary = store.summaries[safe: position] { return summary }
        return store.summaries.first { $0.author.name == name }
    }

    /// Where `text` starts within `place`, if it is there: within one row, found in time
    /// linear in the row (Knuth–Morris–Pratt over characters), whatever the text and screen.
    static func find(_ text: String, in rows: [[String]], place: TextPlace) -> (x: Int, y: Int)? {
        let target = Array(text)
        guard !target.isEmpty else { return nil }
        // How far the pattern falls back after a mismatch.
        var fallback = [Int](repeating: 0, count: target.count)
        var k = 0
        for i in 1..<max(1, target.count) {
            while k > 0, target[i] != target[k] { k = fallback[k - 1] }
            if target[i] == target[k] { k += 1 }
            fallback[i] = k
        }
        func search(row y: Int, columns: Range<Int>, prefixOnly: Bool) -> (x: Int, y: Int)? {
            guard let row = rows[safe: y], columns.lowerBound < row.count else { return nil }
            let columns = columns.clamped(to: 0..<row.count)
            // The row's characters in the columns, each with the column it starts in.
            var characters: [Character] = [], starts: [Int] = []
            for x in columns where !row[x].isEmpty {
                for character in row[x] {
                    characters.append(character)
                    starts.append(x)
                }
            }
            guard characters.count >= target.count else { return nil }
            if prefixOnly {
                return starts.first == columns.lowerBound && Array(characters.prefix(target.count)) == target ? (columns.lowerBound, y) : nil
            }
            var matched = 0
            for (index, character) in characters.enumerated() {
                while matched > 0, character != target[matched] { matched = fallback[matched - 1] }
                if character == target[matched] { matched += 1 }
                if matched == target.count { return (starts[index - target.count + 1], y) }
            }
            return nil
        }
        switch place {
        case .anywhere:
            for y in rows.indices { if let found = search(row: y, columns: 0..<rows[y].count, prefixOnly: false) { return found } }
        case .region(let x, let y, let width, let height):
            for row in stride(from: y, to: min(rows.count, y + height), by: 1) {
                if let found = search(row: row, columns: x..<(x + width), prefixOnly: false) { return found }
            }
        case .cell(let x, let y):
            return search(row: y, columns: x..<(x + target.count * 2 + 1), prefixOnly: true)
        }
        return nil
    }

    /// Rows that differ, each as a pair: "- 12|expected" and "+ 12|actual".
    static func diff(expected: [String], actual: [String]) -> [String] {
        var out: [String] = []
        for row in 0..<max(expected.count, actual.count) {
            // A line past the end of either is blank (trailing blank lines are not kept).
            let a = expected[safe: row], b = actual[safe: row]
            guard (a ?? "") != (b ?? "") else { continue }
            out.append(String(format: "- %3d|", row) + printable(a ?? ""))
            out.append(String(format: "+ %3d|", row) + printable(b ?? ""))
        }
        return out
    }

    /// The screen as evidence: each line between bars, so blanks at the ends show.
    /// Rows that are all picture cells (block symbols, a photo drawn in cells) are one line
    /// saying so: the rows a person reads a failure by are the text's.
    public static func framed(_ lines: [String]) -> [String] {
        func isPicture(_ line: String) -> Bool {
            line.unicodeScalars.contains { CellSymbols.isBlockSymbol($0) }
                && line.unicodeScalars.allSatisfy { $0 == " " || CellSymbols.isBlockSymbol($0) }
        }
        var out: [String] = []
        var row = 0
        while row < lines.count {
            var end = row
            while end < lines.count, isPicture(lines[end]) { end += 1 }
            if end - row >= 2 {
                out.append(String(format: "  %3d|", row) + "(rows \(row)–\(end - 1): picture cells)")
                row = end
                continue
            }
            out.append(String(format: "  %3d|", row) + printable(lines[row]) + "|")
            row += 1
        }
        return out
    }

    /// Text as it is, every space kept (a screen's columns, a snapshot's, a text looked for),
    /// with what a terminal would act on — controls, escapes, bidirectional overrides —
    /// shown as U+FFFD instead: printed, never interpreted, and nothing moved.
    public static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar == " " || SafeText.isShowable(scalar) ? scalar : "\u{FFFD}")
        }
        return String(out)
    }

    static func describe(_ item: FlowItem) -> String {
        switch item {
        case .number(let number): "\(number)"
        case .id(let id): SafeText.line(id, maxColumns: 60)
        }
    }

    static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
