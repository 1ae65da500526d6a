import Foundation

/// The feed API's own documents (docs/feed-format.md, "Over HTTP"): what `GET /v1/feed`
/// answers. A story and a media file go over the wire as they are in the folder; a page of
/// summaries exists only on the wire. Keys are written sorted, so the same page is always
/// the same bytes (and the same ETag).
public enum FeedWire {
    /// `{"version":1,"title":…,"stories":[summary…],"nextCursor":…,"warnings":[…]}` (and `"skipped"`: how many
    /// entries of the page could not be shown, when any); a
    /// summary is `{"id","author":{"name","handle","avatar"},"itemIDs":[…],"latest"}`.
    public static func page(_ page: FeedPage, title: String) -> Data {
        var document: [String: Any] = [
            "version": 1,
            "title": title,
            "stories": page.stories.map(summary),
            "warnings": page.warnings.map(\.message),
        ]
        if let direction = page.direction { document["direction"] = direction.rawValue }
        if page.skipped > 0 { document["skipped"] = page.skipped }
        document["nextCursor"] = page.nextCursor ?? NSNull()
        return json(document)
    }

    /// A story as `stories/<id>.json` holds it (docs/feed-format.md), keys sorted: what
    /// `GET /v1/stories/{id}` answers for a story that has no file of its own (a folder's),
    /// and what `stories init` writes (`pretty`).
    public static func story(_ story: Story, pretty: Bool = false) -> Data {
        var author: [String: Any] = ["name": story.author.name]
        if let handle = story.author.handle { author["handle"] = handle }
        if let avatar = story.author.avatar { author["avatar"] = avatar }
        let document: [String: Any] = ["id": story.id, "author": author, "items": story.items.map(item)]
        return json(document, pretty: pretty)
    }

    static func item(_ item: StoryItem) -> [String: Any] {
        var result: [String: Any] = ["id": item.id]
        if item.duration != StoryItem.defaultDuration { result["duration"] = item.duration }
        switch item.content {
        case .image(let media):
            result["type"] = "image"
            result["media"] = self.media(media)
        case .video(let media):
            result["type"] = "video"
            result["media"] = self.media(media)
        case .text(let text, let background):
            result["type"] = "text"
            result["text"] = text
            result["background"] = String(format: "#%02x%02x%02x", background.red, background.green, background.blue)
        }
        if let caption = item.caption { result["caption"] = caption }
        if let alt = item.alt { result["alt"] = alt }
        if let createdAt = item.createdAt { result["createdAt"] = createdAt.formatted(.iso8601) }
        if let link = item.link { result["link"] = ["title": link.title, "url": link.url] }
        return result
    }

    static func media(_ media: Media) -> [String: Any] {
        var result: [String: Any] = [:]
        let remote = media.location.hasPrefix("http://") || media.location.hasPrefix("https://")
        result[remote ? "url" : "path"] = media.location
        if let width = media.width { result["width"] = width }
        if let height = media.height { result["height"] = height }
        if let bytes = media.bytes, bytes > 0 { result["bytes"] = bytes }
        if let blurhash = media.blurhash { result["blurhash"] = blurhash }
        return result
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

    static func json(_ object: [String: Any], pretty: Bool = false) -> Data {
        // Only strings, numbers, arrays, dictionaries and NSNull go in: serialisation cannot fail.
        let options: JSONSerialization.WritingOptions = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        return (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8)
    }
}
