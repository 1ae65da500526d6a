import Foundation

/// The feed API's own documents (docs/feed-format.md, "Over HTTP"): what `GET /v1/feed`
/// answers. A story and a media file go over the wire as they are in the folder; a page of
/// summaries exists only on the wire. Keys are written sorted, so the same page is always
/// the same bytes (and the same ETag).
public enum FeedWire {
    /// `{"version":1,"title":…,"stories":[summary…],"nextCursor":…,"warnings":[…]}`; a
    /// summary is `{"id","author":{"name","handle","avatar"},"itemIDs":[…],"latest"}`.
    public static func page(_ page: FeedPage, title: String) -> Data {
        var document: [String: Any] = [
            "version": 1,
            "title": title,
            "stories": page.stories.map(summary),
            "warnings": page.warnings.map(\.message),
        ]
        document["nextCursor"] = page.nextCursor ?? NSNull()
        return json(document)
    }

    /// `{"error": message, "status": code}`: every answer that is not a document.
    public static func error(_ message: String, status: Int) -> Data {
        json(["error": SafeText.line(message), "status": status])
    }

    static func summary(_ summary: StorySummary) -> [String: Any] {
        var author: [String: Any] = ["name": summary.author.name]
        if let handle = summary.author.handle { author["handle"] = handle }
        if let avatar = summary.author.avatar { author["avatar"] = avatar }
        var result: [String: Any] = ["id": summary.id, "author": author, "itemIDs": summary.itemIDs]
        if let latest = summary.latest { result["latest"] = latest.formatted(.iso8601) }
        return result
    }

    static func json(_ object: [String: Any]) -> Data {
        // Only strings, numbers, arrays, dictionaries and NSNull go in: serialisation cannot fail.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
