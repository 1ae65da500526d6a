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
        guard let root = try? JSONSerialization.jsonObject(with: template) as? [String: Any] else { return [] }
        var found: Set<StoryID> = []
        func walk(_ sections: [Any]) {
            for case let section as [String: Any] in sections {
                for case let cell as [String: Any] in section["cells"] as? [Any] ?? [] {
                    guard let action = cell["action"] as? [String: Any] else { continue }
                    if let story = action["story"] as? String, StoryIDRule.isValid(story) { found.insert(story) }
                    if let nested = action["sections"] as? [Any] { walk(nested) }
                }
            }
        }
        walk(root["sections"] as? [Any] ?? [])
        return found.sorted()
    }

    /// The template worked out for one viewer; nil when it is not a JSON object (it is then
    /// served as it is, and the app says what is wrong with it).
    static func personalize(_ template: Data, seen: Seen, items: [StoryID: Set<ItemID>]) -> Data? {
        guard var root = try? JSONSerialization.jsonObject(with: template) as? [String: Any] else { return nil }
        if let sections = root["sections"] as? [Any] { root["sections"] = self.sections(sections, seen: seen, items: items, depth: 0) }
        return try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func sections(_ sections: [Any], seen: Seen, items: [StoryID: Set<ItemID>], depth: Int) -> [Any] {
        sections.compactMap { entry -> Any? in
            guard var section = entry as? [String: Any], let cells = section["cells"] as? [Any] else { return entry }
            let kept = cells.compactMap { cell(($0), seen: seen, items: items, depth: depth) }
            if kept.isEmpty, !cells.isEmpty { return nil }
            section["cells"] = kept
            return section
        }
    }

    private static func cell(_ entry: Any, seen: Seen, items: [StoryID: Set<ItemID>], depth: Int) -> Any? {
        guard var cell = entry as? [String: Any] else { return entry }
        let hide = cell.removeValue(forKey: "hide") as? String == "seen"
        if var action = cell["action"] as? [String: Any] {
            if let nested = action["sections"] as? [Any], depth < 8 {
                action["sections"] = sections(nested, seen: seen, items: items, depth: depth + 1)
                cell["action"] = action
            }
        }
        let story = (cell["action"] as? [String: Any])?["story"] as? String
        let all = story.flatMap { items[$0] }
        let mine = story.flatMap { seen.items[$0] } ?? []
        let seenCount = all.map { $0.intersection(mine).count } ?? 0
        if let all, hide, !all.isEmpty, seenCount == all.count { return nil }
        if cell["progress"] as? String == "seen" {
            if let all, !all.isEmpty { cell["progress"] = Double(seenCount) / Double(all.count) } else { cell.removeValue(forKey: "progress") }
        }
        if var badge = cell["badge"] as? [String: Any], let text = badge["text"] as? String, text.contains(Badge.newCount) {
            let unseen = (all?.count ?? 0) - seenCount
            if unseen > 0 {
                badge["text"] = text.replacingOccurrences(of: Badge.newCount, with: String(unseen))
                cell["badge"] = badge
            } else {
                cell.removeValue(forKey: "badge")
            }
        }
        if let tip = cell["tooltip"] as? [String: Any], let id = tip["id"] as? String, seen.tooltips.contains(id) {
            cell.removeValue(forKey: "tooltip")
        }
        return cell
    }
}
