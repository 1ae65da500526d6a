import Foundation

/// `feed.json`: the title of the feed and the order of the ring row.
public struct FeedIndex: Equatable, Sendable {
    public var title: String
    public var storyIDs: [StoryID]
    /// Problems that did not stop the index from loading (duplicate ids).
    public var warnings: [FeedWarning]
    /// Which way the feed reads, when it says (`direction`, else its `language`).
    public var direction: LayoutDirection?
}

/// Turns feed documents (the same JSON the HTTP API will serve) into models, checking every
/// field it uses. Unknown fields are ignored; an item of an unknown type is skipped with a
/// warning; anything else wrong is a `FeedError` naming the file and field.
public enum FeedDecoder {
    public static let supportedVersion = 1
    /// Larger documents are refused before parsing; the demo's largest is 2 KB.
    public static let maxDocumentBytes = 4 << 20
    /// An item may not ask to stay on screen longer than this.
    public static let maxDuration: Double = 60

    public static func index(from data: Data, file: String) throws(FeedError) -> FeedIndex {
        try checkSize(data, file: file)
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        _ = try root.object()
        try root.checkVersion()
        let title = try root.member("title").map { field throws(FeedError) in SafeText.line(try field.string(), maxColumns: SafeText.Limit.title) } ?? "Stories"
        var ids: [StoryID] = []
        var seen: Set<StoryID> = []
        var warnings: [FeedWarning] = []
        for element in try root.required("stories").array() {
            let id = try storyID(element)
            if seen.insert(id).inserted {
                ids.append(id)
            } else {
                warnings.append(FeedWarning("\(file): \(element.path): story '\(id)' is listed twice; the second is ignored"))
            }
        }
        return FeedIndex(title: title.isEmpty ? "Stories" : title, storyIDs: ids, warnings: warnings, direction: try direction(root))
    }

    /// Which way a feed reads: `"direction": "rtl"` or `"ltr"`, else what its `"language"`
    /// (a BCP 47 tag like "ar" or "he-IL") is written in; nil when it says neither.
    static func direction(_ root: JSONField) throws(FeedError) -> LayoutDirection? {
        if let field = try root.member("direction") {
            let text = try field.string()
            guard let direction = LayoutDirection(rawValue: text.lowercased()) else {
                throw field.fail("expected \"ltr\" or \"rtl\", found \"\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))\"")
            }
            return direction
        }
        guard let field = try root.member("language") else { return nil }
        let tag = try field.string()
        guard tag.count <= 35, tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              let direction = LayoutDirection.of(language: tag) else {
            throw field.fail("expected a language tag like \"ar\" or \"he-IL\", found \"\(SafeText.line(tag, maxColumns: SafeText.Limit.quoted))\"")
        }
        return direction
    }

    /// Decodes `stories/<id>.json`. `expectedID` is the id the feed listed.
    public static func story(from data: Data, file: String, expectedID: StoryID) throws(FeedError) -> (Story, [FeedWarning]) {
        try checkSize(data, file: file)
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        _ = try root.object()
        try root.checkVersion(required: false) // story files had none at first
        let idField = try root.required("id")
        let id = try storyID(idField)
        guard id == expectedID else { throw idField.fail("'\(id)' does not match the id '\(expectedID)' the feed lists") }

        let authorField = try root.required("author")
        let name = SafeText.line(try authorField.required("name").nonEmptyString(), maxColumns: SafeText.Limit.name)
        guard !name.isEmpty else { throw FeedError(file: file, field: "author.name", reason: "has no printable characters") }
        let handle = try authorField.member("handle").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: SafeText.Limit.name) }
        let avatar = try authorField.member("avatar").map { f throws(FeedError) in try f.string() }.flatMap { $0.utf8.count <= 2048 ? $0 : nil }
        let author = Author(name: name, handle: handle?.isEmpty == true ? nil : handle, avatar: avatar)

        var items: [StoryItem] = []
        var itemIDs: Set<ItemID> = []
        var warnings: [FeedWarning] = []
        let elements = try root.required("items").array()
        var skipped = 0
        for element in elements {
            // Navigation and seen state walk a story's items: past the limit they would cost
            // a frame each (a 60 000-item story took 90 ms a tap in a debug build).
            if items.count == maxItemsPerStory {
                warnings.append(FeedWarning("\(file): items: \(elements.count) items; the story shows the first \(maxItemsPerStory)"))
                break
            }
            var itemWarnings: [FeedWarning] = []
            guard let item = try self.item(element, warnings: &itemWarnings) else {
                // One line for each of the first few skipped items, then a count.
                if warnings.count < 10 { warnings += itemWarnings } else { skipped += 1 }
                continue
            }
            warnings += itemWarnings
            guard itemIDs.insert(item.id).inserted else {
                throw FeedError(file: file, field: "\(element.path).id", reason: "'\(item.id)' is used by an earlier item")
            }
            items.append(item)
        }
        if skipped > 0 { warnings.append(FeedWarning("\(file): \(skipped) more items skipped like those")) }
        guard !items.isEmpty else { throw FeedError(file: file, field: "items", reason: "the story has no items to show") }
        return (Story(id: id, author: author, items: items), warnings)
    }

    private static func storyID(_ field: JSONField) throws(FeedError) -> StoryID {
        let id = try field.nonEmptyString()
        guard StoryIDRule.isValid(id) else {
            throw field.fail("'\(SafeText.line(id, maxColumns: SafeText.Limit.quoted))' is not a valid id (letters, digits, '-', '_', '.'; not starting with '.')")
        }
        return id
    }

    /// An item id: 1 to 1024 bytes (a photo folder's are file names), nothing unprintable.
    /// The same rule in a page's `itemIDs` and a story's items, so the two always match.
    static func itemID(_ field: JSONField) throws(FeedError) -> ItemID {
        let id = try field.nonEmptyString()
        guard id.utf8.count <= 1024, id.unicodeScalars.allSatisfy(SafeText.isShowable) else {
            throw field.fail("expected an item id of 1 to 1024 bytes of printable characters")
        }
        return id
    }

    private static func item(_ field: JSONField, warnings: inout [FeedWarning]) throws(FeedError) -> StoryItem? {
        let id = try itemID(field.required("id"))
        let typeField = try field.required("type")
        let type = try typeField.string()

        let content: StoryItem.Content
        switch type {
        case "image": content = .image(try media(field.required("media")))
        case "video": content = .video(try media(field.required("media")))
        case "audio": content = .audio(try media(field.required("media")))
        case "text":
            let text = SafeText.paragraphs(try field.required("text").string(), maxCharacters: SafeText.Limit.textCard)
            let background: RGB
            if let bg = try field.member("background") {
                guard let rgb = RGB(hex: try bg.string()) else { throw bg.fail("expected a colour like \"#1d3557\"") }
                background = rgb
            } else {
                background = RGB(0x22, 0x22, 0x22)
            }
            content = .text(text, background: background)
        default:
            warnings.append(FeedWarning("\(field.file): \(typeField.path): unknown item type '\(SafeText.line(type, maxColumns: SafeText.Limit.quoted))'; item skipped"))
            return nil
        }

        var duration = StoryItem.defaultDuration
        if let durationField = try field.member("duration") {
            duration = try durationField.number()
            guard duration > 0, duration <= maxDuration else {
                throw durationField.fail("expected seconds between 0 and \(Int(maxDuration)), found \(duration)")
            }
            // A floor: an item shown for 5e-324 s would have the clock fire without end.
            duration = max(duration, StoryItem.minimumDuration)
        }
        let caption = try field.member("caption").map { f throws(FeedError) in SafeText.paragraphs(try f.string(), maxCharacters: SafeText.Limit.caption) }
        var createdAt: Date?
        if let dateField = try field.member("createdAt") {
            let text = try dateField.string()
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw dateField.fail("expected an ISO 8601 time like \"2026-11-20T18:00:00Z\", found \"\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))\"")
            }
            createdAt = date
        }
        var link: Link?
        if let linkField = try field.member("link") {
            let urlField = try linkField.required("url")
            let url = try urlField.string()
            // One rule for a link wherever it comes from (a home screen cell's too).
            if let problem = HomeDecoder.linkProblem(url) { throw urlField.fail(problem) }
            link = Link(title: SafeText.line(try linkField.required("title").string(), maxColumns: SafeText.Limit.linkTitle), url: url)
        }
        let alt = try field.member("alt").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: SafeText.Limit.caption) }
        return StoryItem(id: id, content: content, duration: duration,
                         caption: caption?.isEmpty == true ? nil : caption, createdAt: createdAt, link: link,
                         alt: alt?.isEmpty == true ? nil : alt)
    }

    static func media(_ field: JSONField) throws(FeedError) -> Media {
        let location: String
        if let pathField = try field.member("path") {
            let path = try pathField.nonEmptyString()
            // A feed may only point inside its own folder, by the one rule the server and
            // the client use too (so a path that works from a folder works over HTTP).
            guard !path.hasPrefix("/") else {
                throw pathField.fail("'\(SafeText.line(path, maxColumns: SafeText.Limit.quoted))' must be a relative path inside the feed folder")
            }
            if let problem = FeedPath.problem(with: path) {
                throw pathField.fail("'\(SafeText.line(path, maxColumns: SafeText.Limit.quoted))' must be a relative path inside the feed folder: \(problem)")
            }
            location = path
        } else if let urlField = try field.member("url") {
            let url = try urlField.nonEmptyString()
            if let problem = HomeDecoder.linkProblem(url) { throw urlField.fail(problem) }
            location = url
        } else {
            throw field.fail("needs a \"path\" or a \"url\"")
        }
        return Media(
            location: location,
            width: try field.member("width")?.positiveInt(),
            height: try field.member("height")?.positiveInt(),
            bytes: try field.member("bytes")?.positiveInt(),
            // A BlurHash is at most 2 + 4 + 2 × 81 characters of its alphabet; anything longer
            // would never decode, so it is not kept.
            blurhash: try field.member("blurhash").map { f throws(FeedError) in try f.string() }.flatMap { hash in
                hash.utf8.count <= 168 && hash.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) ? hash : nil
            }
        )
    }

    /// The most items a story shows (the rest of a longer one are left out, with a line).
    public static let maxItemsPerStory = 1000

    private static func checkSize(_ data: Data, file: String) throws(FeedError) {
        guard data.count <= maxDocumentBytes else {
            throw FeedError(file: file, reason: "\(data.count) bytes is larger than the \(maxDocumentBytes >> 20) MB a feed document may be")
        }
    }
}

/// Story ids name files (`stories/<id>.json`) and URLs (`/v1/stories/<id>`): 1–128 ASCII
/// letters, digits, `-`, `_` and `.`, not starting with `.`.
public enum StoryIDRule {
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && !id.hasPrefix(".") && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }
}

extension FeedDecoder {
    /// The `error` field of a server's JSON error body (`{"error": "…", "status": N}`), read
    /// by the one JSON reader; nil when the body is not such a document.
    public static func errorMessage(in body: Data) -> String? {
        guard body.count <= 64 << 10, case .object(let members)? = try? JSONValue.parse(body, file: ""),
              case .string(let message)? = members["error"] else { return nil }
        return message
    }

    /// Decodes a page of `GET /v1/feed` (`FeedWire.page`), as hostile as any document: a
    /// summary that does not parse is left out with a warning; the page itself must have
    /// the version, the stories array and a string or null `nextCursor`.
    public static func page(from data: Data, file: String) throws(FeedError) -> (title: String, page: FeedPage) {
        try checkSize(data, file: file)
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        _ = try root.object()
        try root.checkVersion()
        let title = try root.member("title").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: SafeText.Limit.title) } ?? "Stories"
        var summaries: [StorySummary] = []
        var seen: Set<StoryID> = []
        var warnings: [FeedWarning] = [], skipped = 0
        for element in try root.required("stories").array() {
            do throws(FeedError) {
                let id = try storyID(try element.required("id"))
                let authorField = try element.required("author")
                let name = SafeText.line(try authorField.required("name").nonEmptyString(), maxColumns: SafeText.Limit.name)
                guard !name.isEmpty else { throw FeedError(file: file, field: "\(element.path).author.name", reason: "has no printable characters") }
                let handle = try authorField.member("handle").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: SafeText.Limit.name) }
                let avatar = try authorField.member("avatar").map { f throws(FeedError) in try f.string() }.flatMap { $0.utf8.count <= 2048 ? $0 : nil }
                var itemIDs: [ItemID] = []
                for itemID in try element.required("itemIDs").array() where itemIDs.count < 1000 {
                    itemIDs.append(try Self.itemID(itemID))
                }
                guard !itemIDs.isEmpty else { throw FeedError(file: file, field: "\(element.path).itemIDs", reason: "the story has no items") }
                var latest: Date?
                if let field = try element.member("latest") {
                    let text = try field.string()
                    guard let date = try? Date(text, strategy: .iso8601) else { throw field.fail("expected an ISO 8601 time") }
                    latest = date
                }
                guard seen.insert(id).inserted else { continue }
                summaries.append(StorySummary(id: id, author: Author(name: name, handle: handle?.isEmpty == true ? nil : handle, avatar: avatar),
                                              itemIDs: itemIDs, latest: latest))
            } catch {
                skipped += 1
                warnings.append(FeedWarning("skipped a story: \(error)"))
            }
        }
        for warning in try root.member("warnings")?.array() ?? [] where warnings.count < 100 {
            warnings.append(FeedWarning(try warning.string()))
        }
        // Entries the source left out of the page (its warnings say why): bounded by a page's size.
        if let field = try root.member("skipped") {
            guard case .number(let n) = field.value, n >= 0, n <= 1000, n == n.rounded() else { throw field.fail("expected a whole number from 0 to 1000") }
            skipped += Int(n)
        }
        var next: FeedCursor?
        if let field = try root.member("nextCursor") {
            switch field.value {
            case .null:
                break
            case .string(let cursor):
                guard !cursor.isEmpty, cursor.utf8.count <= 256 else { throw field.fail("expected a cursor of 1 to 256 bytes") }
                next = cursor
            default:
                throw field.fail("expected a string or null")
            }
        }
        return (title.isEmpty ? "Stories" : title, FeedPage(stories: summaries, nextCursor: next, warnings: warnings, bytes: data.count,
                                                            direction: try direction(root), skipped: skipped))
    }
}

/// A path inside a feed folder as documents name it (`media.path`) and as the server
/// serves it: relative, every segment non-empty, not `.` or `..`, not hidden, no control
/// characters or backslashes, at most 1024 bytes. One rule for the server and the client.
public enum FeedPath {
    /// Why `path` is not one (nil when it is).
    public static func problem(with path: String) -> String? {
        guard !path.isEmpty, path.utf8.count <= 1024 else { return "no file named" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || segment == "." || segment == ".." { return "a path may not have empty, '.' or '..' parts" }
            if segment.hasPrefix(".") { return "hidden files are not served" }
            if segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) {
                return "a path may not hold control characters or backslashes"
            }
        }
        return nil
    }
}
