import Foundation

/// How `/` finds a person: the typed text, folded (case, accents and width ignored, a
/// leading `@` dropped), anywhere in the name or the handle, folded the same way.
public enum NameSearch {
    /// The most characters the field takes.
    public static let maxLength = 100

    public static func fold(_ text: String) -> String {
        var text = Substring(text)
        while text.first == "@" { text = text.dropFirst() }
        return String(text).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Whether a story's author answers to the folded query (`fold`); an empty query
    /// matches nobody.
    public static func matches(_ summary: StorySummary, folded query: String) -> Bool {
        guard !query.isEmpty else { return false }
        if fold(summary.author.name).contains(query) { return true }
        return summary.author.handle.map { fold($0).contains(query) } ?? false
    }
}
