import StoriesCells
import Foundation
import StoriesCore

/// A canvas as text, the way a person reads a screen: one line per row, trailing blanks
/// removed, wide characters once. With `styles: true` a style layer follows: a legend that
/// gives each style a label of two characters, then the rows again as labels, two
/// characters a cell ('..' = plain, trailing plain cells removed). A style's label comes
/// from what the style is (a hash of its description), not from where it is first met, so
/// changing one style changes only the rows that use it. Snapshot files hold this text and
/// are reviewed like code.
public enum Snapshot {
    public static func text(of canvas: Canvas, styles: Bool = false) -> String {
        var out = "\(canvas.width)x\(canvas.height)\n"
        out += lines(of: canvas).joined(separator: "\n") + "\n"
        guard styles else { return out }

        var used: Set<Style> = []
        for y in 0..<canvas.height {
            for x in 0..<canvas.width { used.insert(canvas[x, y].style) }
        }
        let labels = self.labels(for: used)
        var rows: [String] = []
        for y in 0..<canvas.height {
            var row = ""
            for x in 0..<canvas.width { row += labels[canvas[x, y].style] ?? "??" }
            while row.hasSuffix("..") { row.removeLast(2) }
            rows.append(row)
        }
        out += "-- styles\n.. plain\n"
        for (style, label) in labels.filter({ $0.key != .plain }).sorted(by: { $0.value < $1.value }) {
            out += "\(label) \(describe(style))\n"
        }
        out += "-- style rows\n"
        out += rows.joined(separator: "\n") + "\n"
        return out
    }

    /// Two characters for each style, from a hash of its description; a label already
    /// taken (rare: 3,844 of them) passes to the next, in the order of the descriptions.
    static func labels(for styles: Set<Style>) -> [Style: String] {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let slots = alphabet.count * alphabet.count
        var labels: [Style: String] = [.plain: ".."]
        var taken: Set<Int> = []
        for (style, description) in styles.filter({ $0 != .plain }).map({ ($0, describe($0)) }).sorted(by: { $0.1 < $1.1 }) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a
            for byte in description.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            var slot = Int(hash % UInt64(slots))
            while taken.contains(slot) { slot = (slot + 1) % slots }
            taken.insert(slot)
            labels[style] = String([alphabet[slot / alphabet.count], alphabet[slot % alphabet.count]])
        }
        return labels
    }

    /// The screen's text lines, trailing blanks removed.
    public static func lines(of canvas: Canvas) -> [String] {
        (0..<canvas.height).map { y in
            var line = ""
            for x in 0..<canvas.width {
                if let grapheme = canvas[x, y].grapheme { line.append(grapheme) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    static func describe(_ style: Style) -> String {
        var parts: [String] = []
        if style.foreground != .default { parts.append("fg=\(describe(style.foreground))") }
        if style.background != .default { parts.append("bg=\(describe(style.background))") }
        let names: [(Attributes, String)] = [(.bold, "bold"), (.dim, "dim"), (.italic, "italic"), (.underline, "underline"), (.reverse, "reverse")]
        for (attribute, name) in names where style.attributes.contains(attribute) { parts.append(name) }
        return parts.isEmpty ? "plain" : parts.joined(separator: " ")
    }

    static func describe(_ color: Color) -> String {
        switch color {
        case .default: "default"
        case .palette(let index): "\(index)"
        case .rgb(let r, let g, let b): String(format: "#%02x%02x%02x", r, g, b)
        }
    }
}
