import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

/// `Range: bytes=…` for one range (RFC 9110 §14.1.2). Several ranges, or a unit other than
/// bytes, are answered with the whole file, which the RFC allows.
public enum ByteRange: Equatable {
    case whole
    case part(Range<Int>)
    case unsatisfiable

    public static func parse(_ header: String, length: Int) -> ByteRange {
        guard header.utf8.count <= 200, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingCharacters(in: .whitespaces), last = parts[1].trimmingCharacters(in: .whitespaces)
        func number(_ text: String) -> Int? {
            guard !text.isEmpty, text.utf8.count <= 18, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
            return Int(text)
        }
        if first.isEmpty {
            // The last N bytes.
            guard let suffix = number(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - suffix)..<length)
        }
        guard let start = number(first) else { return .whole }
        guard start < length else { return .unsatisfiable }
        if last.isEmpty { return .part(start..<length) }
        guard let end = number(last), end >= start else { return .whole }
        return .part(start..<(min(end, length - 1) + 1))
    }
}
