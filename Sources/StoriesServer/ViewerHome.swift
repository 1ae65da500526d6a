import Foundation
import StoriesCore

/// A viewer's own home (issue 34): `home.json` as a template, its cells worked out from what
/// the viewer has seen — on the server, so every terminal of theirs shows the same.
///
/// - `"progress": "seen"` becomes the share of the cell's story the viewer has seen;
/// - `"hide": "seen"` leaves the cell out once the whole story is seen;
/// - `{new}` in a badge becomes the number of the story's items not seen (no badge at 0);
/// - a tooltip the viewer has been shown (on any terminal) is left out;
/// - a section left with no cells is left out.
///
/// Everything else goes out as written. A cell of a story the feed does not have keeps its
/// text, without the worked-out parts.
enum ViewerHome {
    struct Seen: Sendable {
        var items: [StoryID: Set<ItemID>]
        var tooltips: Set<String>
    }

    /// The stories a template's cells open (nested sections too), for reading their items.
    static func stories(in template: Data) -> [StoryID] {
        guard let root = try? JSONValue.parse(template, file: "home.json") else { return [] }
        var found: Set<StoryID> = []
        func walk(_ sections: [JSONValue], depth: Int) {
            for section in sections {
                for cell in section["cells"]?.arrayValue ?? [] {
                    guard let action = cell["action"] else { continue }
                    if let story = action["story"]?.stringValue, StoryIDRule.isValid(story) { found.insert(story) }
                    if let nested = action["sections"]?.arrayValue, depth < 8 { walk(nested, depth: depth + 1) }
                }
            }
        }
        walk(root["sections"]?.arrayValue ?? [], depth: 0)
        return found.sorted()
    }

    /// The template worked out for one viewer; nil when it is not a JSON object (it is then
    /// served as it is, and the app says what is wrong with it).
    static func personalize(_ template: Data, seen: Seen, items: [StoryID: Set<ItemID>]) -> Data? {
        guard case .object(var root)? = try? JSONValue.parse(template, file: "home.json") else { return nil }
        if let sections = root["sections"]?.arrayValue { root["sections"] = .array(self.sections(sections, seen: seen, items: items, depth: 0)) }
        return JSONValue.object(root).data()
    }

    private static func sections(_ sections: [JSONValue], seen: Seen, items: [StoryID: Set<ItemID>], depth: Int) -> [JSONValue] {
        sections.compactMap { entry -> JSONValue? in
            guard case .object(var section) = entry, let cells = section["cells"]?.arrayValue else { return entry }
            let kept = cells.compactMap { cell($0, seen: seen, items: items, depth: depth) }
            if kept.isEmpty, !cells.isEmpty { return nil }
            section["cells"] = .array(kept)
            return .object(section)
        }
    }

    private static func cell(_ entry: JSONValue, seen: Seen, items: [StoryID: Set<ItemID>], depth: Int) -> JSONValue? {
        guard case .object(var cell) = entry else { return entry }
        let hide = cell.removeValue(forKey: "hide")?.stringValue == "seen"
        if case .object(var action)? = cell["action"], let nested = action["sections"]?.arrayValue, depth < 8 {
            action["sections"] = .array(sections(nested, seen: seen, items: items, depth: depth + 1))
            cell["action"] = .object(action)
        }
        let story = cell["action"]?["story"]?.stringValue
        let all = story.flatMap { items[$0] }
        let mine = story.flatMap { seen.items[$0] } ?? []
        let seenCount = all.map { $0.intersection(mine).count } ?? 0
        if let all, hide, !all.isEmpty, seenCount == all.count { return nil }
        if cell["progress"]?.stringValue == "seen" {
            if let all, !all.isEmpty { cell["progress"] = .number(Double(seenCount) / Double(all.count)) } else { cell.removeValue(forKey: "progress") }
        }
        if case .object(var badge)? = cell["badge"], let text = badge["text"]?.stringValue, text.contains(Badge.newCount) {
            let unseen = (all?.count ?? 0) - seenCount
            if unseen > 0 {
                badge["text"] = .string(text.replacingOccurrences(of: Badge.newCount, with: String(unseen)))
                cell["badge"] = .object(badge)
            } else {
                cell.removeValue(forKey: "badge")
            }
        }
        if let id = cell["tooltip"]?["id"]?.stringValue, seen.tooltips.contains(id) {
            cell.removeValue(forKey: "tooltip")
        }
        return .object(cell)
    }
}
