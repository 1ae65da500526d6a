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

/// Compares snapshot text with a committed file. With the environment variable
/// `STORIES_UPDATE_SNAPSHOTS=1` it rewrites the file instead; a missing file is written and
/// reported as a failure, so a new snapshot is always looked at before it counts.
public enum SnapshotFile {
    public static let updateVariable = "STORIES_UPDATE_SNAPSHOTS"

    public enum Outcome: Equatable {
        case matched
        case recorded(path: String)
        case mismatched(diff: String)
    }

    public static func verify(_ actual: String, at url: URL,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        let update = environment[updateVariable] == "1"
        let existing = try? String(contentsOf: url, encoding: .utf8)
        if !update, let existing {
            return existing == actual ? .matched : .mismatched(diff: diff(expected: existing, actual: actual))
        }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? actual.write(to: url, atomically: true, encoding: .utf8)
        if update, existing == actual { return .matched }
        return .recorded(path: url.path)
    }

    /// What a test reports about `actual` against `__Snapshots__/<name>.txt` beside the test
    /// file at `testFile` (`#filePath`): nil when it matched, else the message.
    public static func problem(with actual: String, named name: String, besideTestFile testFile: String) -> String? {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent()
            .appendingPathComponent("__Snapshots__").appendingPathComponent("\(name).txt")
        switch verify(actual, at: url) {
        case .matched:
            return nil
        case .recorded(let path):
            return "Recorded a new snapshot at \(path); review it, then run the tests again."
        case .mismatched(let diff):
            return "Snapshot '\(name)' differs (rerun with \(updateVariable)=1 to accept):\n\(diff)"
        }
    }

    /// The differing lines, numbered, expected (-) above actual (+).
    public static func diff(expected: String, actual: String) -> String {
        let e = expected.components(separatedBy: "\n"), a = actual.components(separatedBy: "\n")
        var out: [String] = []
        for i in 0..<max(e.count, a.count) {
            let el = i < e.count ? e[i] : "<none>", al = i < a.count ? a[i] : "<none>"
            if el != al { out.append("line \(i + 1):\n- \(el)\n+ \(al)") }
        }
        return out.joined(separator: "\n")
    }
}
