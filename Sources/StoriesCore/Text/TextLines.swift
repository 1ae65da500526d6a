import Foundation

/// The lines of a text file the app reads (keys.conf, stories.conf, recordings): LF, CRLF
/// and a lone CR all end a line, and a byte order mark at the start is not text. Swift
/// reads "\r\n" as one Character, so splitting on "\n" alone keeps a CRLF file as one line.
public enum TextLines {
    public static func split(_ text: String) -> [Substring] {
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        return body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }
}
