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
        var document: [String: JSONValue] = [
            "version": .int(FeedDecoder.supportedVersion),
            "title": .string(title),
            "stories": .array(page.stories.map(summary)),
            "warnings": .strings(page.warnings.map(\.message)),
            "nextCursor": page.nextCursor.map(JSONValue.string) ?? .null,
        ]
        document.put("direction", page.direction.map { .string($0.rawValue) })
        if page.skipped > 0 { document["skipped"] = .int(page.skipped) }
        return JSONValue.object(document).data()
    }

    /// A story as `stories/<id>.json` holds it (docs/feed-format.md), keys sorted: what
    /// `GET /v1/stories/{id}` answers for a story that has no file of its own (a folder's),
    /// and what `stories init` writes (`pretty`).
    public static func story(_ story: Story, pretty: Bool = false) -> Data {
        let document: JSONValue = .object(["id": .string(story.id), "author": author(story.author), "items": .array(story.items.map(item))])
        return document.data(pretty: pretty)
    }

    static func author(_ author: Author) -> JSONValue {
        var result: [String: JSONValue] = ["name": .string(author.name)]
        result.put("handle", author.handle.map(JSONValue.string))
        result.put("avatar", author.avatar.map(JSONValue.string))
        return .object(result)
    }

    static func item(_ item: StoryItem) -> JSONValue {
        var result: [String: JSONValue] = ["id": .string(item.id)]
        if item.duration != StoryItem.defaultDuration { result["duration"] = .number(item.duration) }
        switch item.content {
        case .image(let media):
            result["type"] = "image"
            result["media"] = self.media(media)
        case .video(let media):
            result["type"] = "video"
            result["media"] = self.media(media)
        case .audio(let media):
            result["type"] = "audio"
            result["media"] = self.media(media)
        case .text(let text, let background):
            result["type"] = "text"
            result["text"] = .string(text)
            result["background"] = .string(String(format: "#%02x%02x%02x", background.red, background.green, background.blue))
        }
        result.put("caption", item.caption.map(JSONValue.string))
        result.put("alt", item.alt.map(JSONValue.string))
        result.put("createdAt", item.createdAt.map { .string($0.formatted(.iso8601)) })
        result.put("link", item.link.map { .object(["title": .string($0.title), "url": .string($0.url)]) })
        return .object(result)
    }

    static func media(_ media: Media) -> JSONValue {
        var result: [String: JSONValue] = [:]
        let remote = media.location.hasPrefix("http://") || media.location.hasPrefix("https://")
        result[remote ? "url" : "path"] = .string(media.location)
        result.put("width", media.width.map(JSONValue.int))
        result.put("height", media.height.map(JSONValue.int))
        if let bytes = media.bytes, bytes > 0 { result["bytes"] = .int(bytes) }
        result.put("blurhash", media.blurhash.map(JSONValue.string))
        return .object(result)
    }

    /// `{"error": message, "status": code}`: every answer that is not a document.
    public static func error(_ message: String, status: Int) -> Data {
        JSONValue.object(["error": .string(SafeText.line(message)), "status": .int(status)]).data()
    }

    static func summary(_ summary: StorySummary) -> JSONValue {
        var result: [String: JSONValue] = ["id": .string(summary.id), "author": author(summary.author), "itemIDs": .strings(summary.itemIDs)]
        result.put("latest", summary.latest.map { .string($0.formatted(.iso8601)) })
        return .object(result)
    }
}
