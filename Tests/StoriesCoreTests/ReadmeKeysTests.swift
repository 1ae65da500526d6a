import Foundation
import StoriesCore
import Testing

/// README is true about keys: every key its Keys tables name does something in the app's
/// default bindings (or is one the terminal itself handles: Ctrl-C, Ctrl-\, Ctrl-S).
@Suite struct ReadmeKeysTests {
    static let keysSection: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        guard let start = text.range(of: "## Keys"), let end = text.range(of: "\n## ", range: start.upperBound..<text.endIndex) else { return "" }
        return String(text[start.upperBound..<end.lowerBound])
    }()

    @Test func everyKeyInREADMEsTablesIsBound() {
        let rows = Self.keysSection.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| keys") && !$0.hasPrefix("|---") }
        #expect(rows.count > 20, "README's key tables were read")
        let bound = Set(KeyBindings.standard.bindings.flatMap(\.inputs))
        let byTerminal: Set<String> = ["Ctrl-C", "Ctrl-\\", "Ctrl-S"]
        let names: [String: InputEvent] = [
            "→": .key(.right), "←": .key(.left), "↓": .key(.down), "↑": .key(.up), "Home": .key(.home), "End": .key(.end),
            "PgDn": .key(.pageDown), "PgUp": .key(.pageUp), "Enter": .key(.enter), "Esc": .key(.escape), "Space": .key(.character(" ")),
            "Shift-→": .key(.right, .shift), "Shift-←": .key(.left, .shift), "Ctrl-L": .key(.character("l"), .control),
            "Ctrl-Z": .key(.character("z"), .control),
            "Tab": .key(.tab),
        ]
        var checked = 0
        for row in rows {
            let first = row.dropFirst(2).prefix { $0 != "|" }
            // Backticked characters, and the named keys written bare.
            for match in first.matches(of: /`([^`]+)`/) {
                let key = String(match.output.1)
                guard key.count == 1, let character = key.first else { continue }
                #expect(bound.contains(.key(.character(character))), "README's Keys name `\(key)`, which nothing is bound to")
                checked += 1
            }
            let bare = first.replacing(/`[^`]*`/, with: "").split(whereSeparator: { $0 == " " || $0 == "/" }).map(String.init)
            for word in bare where names[word] != nil || byTerminal.contains(word) {
                if let input = names[word] {
                    #expect(bound.contains(input), "README's Keys name \(word), which nothing is bound to")
                    checked += 1
                }
            }
        }
        #expect(checked > 30, "\(checked) keys checked")
    }
}
