import Foundation
import StoriesCore

/// An entry as the cache file holds it (`{"size":…,"modified":"…",…}`), read and written by
/// the project's one JSON reader and writer.
extension PhotoFolderCache.Entry {
    /// `modified` is written as a string of digits: nanoseconds since 1970 need 61 bits, more
    /// than a JSON number read as a Double keeps exactly, and the entry is keyed by it.
    var json: JSONValue {
        var members: [String: JSONValue] = ["size": .int(size), "modified": .string(String(modified))]
        members.put("read", read.map(JSONValue.bool))
        members.put("captured", captured.map(JSONValue.number))
        members.put("day", day.map(JSONValue.string))
        members.put("caption", caption.map(JSONValue.string))
        members.put("blurhash", blurhash.map(JSONValue.string))
        members.put("noPreview", noPreview.map(JSONValue.bool))
        members.put("animated", animated.map(JSONValue.bool))
        return .object(members)
    }

    /// An entry from the file; nil when `size` or `modified` are not whole numbers (a
    /// member of another kind is left out; `PhotoFolderCache.checked` bounds the values after).
    init?(json: JSONValue) {
        guard let size = json["size"]?.numberValue, size.rounded() == size, abs(size) < 1e15 else { return nil }
        let modified: Int64
        switch json["modified"] {
        case .string(let digits)?:
            guard let value = Int64(digits) else { return nil }
            modified = value
        case .number(let number)? where number.rounded() == number && abs(number) < 9e18:
            modified = Int64(number) // a file written before: its time read as a Double may not match, and is read again
        default: return nil
        }
        self.init(size: Int(size), modified: modified)
        read = json["read"]?.boolValue
        captured = json["captured"]?.numberValue
        day = json["day"]?.stringValue
        caption = json["caption"]?.stringValue
        blurhash = json["blurhash"]?.stringValue
        noPreview = json["noPreview"]?.boolValue
        animated = json["animated"]?.boolValue
    }
}
