import StoriesCells
import Foundation
import StoriesCore

/// A canvas as text, the way a person reads a screen: one line per row, trailing blanks
/// removed, wide characters once. With `styles: true` a style layer follows: a legend that
/// gives each style a letter, then the rows again as letters ('.' = plain, trailing dots
/// removed). Snapshot files hold this text and are reviewed like code.
public enum Snapshot {
    public static func text(of canvas: Canvas, styles: Bool = false) -> String {
        var out = "\(canvas.width)x\(canvas.height)\n"
        out += lines(of: canvas).joined(separator: "\n") + "\n"
        guard styles else { return out }

        var letters: [Style: Character] = [.plain: "."]
        var legend: [(Character, Style)] = []
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rows: [String] = []
        for y in 0..<canvas.height {
            var row = ""
            for x in 0..<canvas.width {
                let style = canvas[x, y].style
                if letters[style] == nil {
                    let letter = legend.count < alphabet.count ? alphabet[legend.count] : "?"
                    letters[style] = letter
                    legend.append((letter, style))
                }
                row.append(letters[style] ?? "?")
            }
            while row.last == "." { row.removeLast() }
            rows.append(row)
        }
        out += "-- styles\n. plain\n"
        for (letter, style) in legend { out += "\(letter) \(describe(style))\n" }
        out += "-- style rows\n"
        out += rows.joined(separator: "\n") + "\n"
        return out
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
