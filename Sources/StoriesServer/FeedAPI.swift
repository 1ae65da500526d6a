import StoriesFeedIO
import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

/// The feed API over a feed folder (docs/feed-format.md, "Over HTTP"):
///
/// - `GET /v1/feed?cursor=&limit=` — a page of story summaries and the next cursor
/// - `GET /v1/stories/{id}` — one story document, as it is in the folder (checked first)
/// - `GET /v1/media/{path}` — a file's bytes, with `Range`
/// - `GET /v1/home` — the home sections (`home.json`, or none)
///
/// Every document and file has a strong ETag (from its bytes, or for a file over 4 MB from
/// its inode, size and modification time); `If-None-Match` that names it gets 304 and no
/// body. Documents are `no-cache` (always revalidated), media may be kept for a day. HEAD answers like GET without the body. Errors are JSON: `{"error", "status"}`.
/// No state is kept per client.
public struct FeedAPI: Sendable {
    /// What is served: a feed folder's documents, or any folder of photos and videos read
    /// as a feed (`PhotoFolder`), whose pages and stories are made from the folder.
    public enum Source: Sendable {
        case documents(FeedFolder)
        case folder(FolderSource)
    }

    public let source: Source
    public let files: ConfinedFiles
    /// The most a media answer carries (a video may be large; the app refuses more anyway).
    public static let maxMediaBytes = 256 << 20
    public static let maxPageLimit = 100
    /// Documents smaller than this go out as they are (gzip's header would eat the gain).
    static let gzipThreshold = 1024
    let gzip = Gzip()
    let memo: Memo

    /// `recheckAfter`: how long a file or a page may be served from memory before the disk
    /// is looked at again (0: every request looks).
    /// A folder with `feed.json` is served as its documents; any other folder as a folder
    /// feed (`folderCache` keeps what its files' headers said, and their BlurHashes).
    /// The folder is opened once, and everything served is reached from that descriptor.
    public init(directory: URL, recheckAfter: Double = 1, folderCache: PhotoFolderCache? = nil, openat2: Bool = true) throws(FeedError) {
        let root: OpenFolder
        do { root = try OpenFolder.open(directory.path, openat2: openat2) } catch {
            throw FeedError(file: SafeText.line(directory.path), reason: PhotoFolder.folderProblem(error))
        }
        let named = NamedFolder(root, recheckAfter: recheckAfter)
        if root.status(of: "feed.json") != nil {
            source = .documents(try FeedFolder(root: root, directory: directory))
        } else {
            source = .folder(FolderSource(root: named, directory: directory, cache: folderCache, recheckAfter: recheckAfter))
        }
        files = ConfinedFiles(folder: named, recheckAfter: recheckAfter)
        memo = Memo(recheckAfter: recheckAfter)
    }

    public var title: String {
        switch source {
        case .documents(let feed): feed.title
        case .folder(let folder): folder.current().title
        }
    }

    public func respond(_ request: APIRequest) -> APIResponse {
        let head = request.method == "HEAD"
        guard request.method == "GET" || head else {
            return error(405, "only GET and HEAD are served", extra: [("Allow", "GET, HEAD")], head: head)
        }
        let raw = request.path
        guard let path = raw.utf8.contains(0x25) ? raw.removingPercentEncoding : raw, !path.utf8.contains(0) else {
            return error(400, "the path is not valid percent-encoding", head: head)
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.first == "v1" else { return error(404, "no such route: \(path)", head: head) }
        let rest = Array(segments.dropFirst())
        switch rest.first {
        case "feed" where rest.count == 1:
            return page(request, head: head)
        case "stories" where rest.count == 2:
            return story(String(rest[1]), request, head: head)
        case "media" where rest.count >= 2:
            return media(rest.dropFirst().joined(separator: "/"), request, head: head)
        case "home" where rest.count == 1:
            return home(request, head: head)
        default:
            return error(404, "no such route: \(path)", head: head)
        }
    }

    // MARK: - Routes

    private func page(_ request: APIRequest, head: Bool) -> APIResponse {
        var limit = 10
        if let text = request.query["limit"] {
            guard let value = Int(text), (1...Self.maxPageLimit).contains(value) else {
                return error(400, "limit must be a whole number from 1 to \(Self.maxPageLimit)", head: head)
            }
            limit = value
        }
        let cursor = request.query["cursor"].flatMap { $0.isEmpty ? nil : $0 }
        guard case .documents(let feed) = source else {
            guard case .folder(let folder) = source else { return error(500, "no feed", head: head) }
            return folderPage(folder.current(), cursor: cursor, limit: limit, request, head: head)
        }
        // A page is built once and kept while none of its story files changed (checked
        // with stat on every request): the same bytes, the same tag, no parsing.
        let key = "\(cursor ?? "")|\(limit)"
        if let recent = memo.recentPage(key) { return document(recent.body, request, head: head, etag: recent.tag) }
        let looked = ConfinedFiles.now()
        let fingerprint = pageFingerprint(feed, cursor: cursor, limit: limit)
        if let fingerprint, let kept = memo.page(key, fingerprint: fingerprint, checkedAt: looked) {
            return document(kept.body, request, head: head, etag: kept.tag)
        }
        guard let offset = Self.offset(cursor, count: feed.index.storyIDs.count) else {
            return self.error(400, "cursor '\(String(SafeText.line(cursor ?? "").prefix(64)))' is not a page of this feed", head: head)
        }
        let body = FeedWire.page(buildPage(feed, offset: offset, limit: limit), title: feed.title)
        let tag = ETag.strong(for: body)
        if let fingerprint { memo.keep(key, fingerprint: fingerprint, body: body, tag: tag, checkedAt: looked) }
        return document(body, request, head: head, etag: tag)
    }

    /// A folder's cursor is the position in `stories` in decimal digits (nothing else: no
    /// sign, no spaces); nil when it is not one of this folder's.
    static func offset(_ cursor: String?, count: Int) -> Int? {
        guard let cursor else { return 0 }
        guard !cursor.isEmpty, cursor.utf8.count <= 9, cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Int(cursor), value <= count else { return nil }
        return value
    }

    /// The summaries of one page, each story read through `ConfinedFiles` (the folder's
    /// rules hold for pages as for stories) and checked like the app checks it; a story
    /// that fails is left out with a warning that names it by its place in the folder.
    private func buildPage(_ feed: FeedFolder, offset: Int, limit: Int) -> FeedPage {
        let ids = feed.index.storyIDs
        let end = min(ids.count, offset + limit)
        var summaries: [StorySummary] = [], skipped = 0
        var warnings = offset == 0 ? feed.index.warnings.map { FeedWarning(hidingFolder($0.message)) } : []
        for id in ids[offset..<end] {
            let name = "stories/\(id).json"
            let bytes: Data
            do throws(ConfinedFiles.Failure) {
                bytes = try files.read(name, maxBytes: FeedDecoder.maxDocumentBytes, fresh: true).contents()
            } catch {
                warnings.append(FeedWarning("skipped story '\(id)': \(name): \(error)"))
                skipped += 1
                continue
            }
            do throws(FeedError) {
                summaries.append(StorySummary(try FeedDecoder.story(from: bytes, file: name, expectedID: id).0))
            } catch {
                warnings.append(FeedWarning("skipped story '\(id)': \(hidingFolder(error.description))"))
                skipped += 1
            }
        }
        return FeedPage(stories: summaries, nextCursor: end < ids.count ? String(end) : nil, warnings: warnings, skipped: skipped)
    }

    /// A photo folder's page: listed from the folder (its own warnings name places in it),
    /// kept for the recheck window like any page.
    private func folderPage(_ folder: PhotoFolder, cursor: String?, limit: Int, _ request: APIRequest, head: Bool) -> APIResponse {
        let key = "\(cursor ?? "")|\(limit)"
        if let recent = memo.recentPage(key) { return document(recent.body, request, head: head, etag: recent.tag) }
        let looked = ConfinedFiles.now()
        let page: FeedPage
        do { page = try folder.page(after: cursor, limit: limit) } catch {
            return self.error(400, "cursor '\(String(SafeText.line(cursor ?? "").prefix(64)))' is not a page of this feed", head: head)
        }
        var shown = page
        shown.warnings = page.warnings.map { FeedWarning(hidingFolder($0.message)) }
        let body = FeedWire.page(shown, title: folder.title)
        let tag = ETag.strong(for: body)
        memo.keep(key, fingerprint: tag, body: body, tag: tag, checkedAt: looked)
        return document(body, request, head: head, etag: tag)
    }

    /// A message without the server's own paths (clients see places in the folder only).
    private func hidingFolder(_ message: String) -> String {
        let root: String
        switch source {
        case .documents(let feed): root = feed.directory.path
        case .folder(let folder): root = folder.directory.path
        }
        // The cache's lines name the server's cache folder: the client hears only what happened.
        if message.hasPrefix("folder cache ") { return "a damaged cache file on the server was set aside and built again" }
        let shown = message.replacingOccurrences(of: root + "/", with: "").replacingOccurrences(of: files.root + "/", with: "")
        // The folder itself, at the start of a line about it, by its name.
        return shown.hasPrefix(root + ":") ? URL(fileURLWithPath: root).lastPathComponent + shown.dropFirst(root.count) : shown
    }

    /// What the page's files are now (inode, size, modification time of each story file of
    /// the page), or nil when the cursor is not one of this folder's.
    private func pageFingerprint(_ feed: FeedFolder, cursor: String?, limit: Int) -> String? {
        let ids = feed.index.storyIDs
        guard let offset = Self.offset(cursor, count: ids.count) else { return nil }
        var parts: [String] = []
        for id in ids[offset..<min(ids.count, offset + limit)] {
            if let file = files.folder.current().identity(of: "stories/\(id).json") {
                parts.append("\(file.inode)-\(file.size)-\(file.modified)")
            } else {
                parts.append("-")
            }
        }
        return parts.joined(separator: ",")
    }

    private func story(_ id: String, _ request: APIRequest, head: Bool) -> APIResponse {
        guard StoryIDRule.isValid(id) else { return error(404, "no story '\(SafeText.line(id))'", head: head) }
        if case .folder(let folder) = source {
            // Kept for the recheck window like a page: a story's headers are read once.
            let key = "story|" + id
            if let recent = memo.recentPage(key) { return document(recent.body, request, head: head, etag: recent.tag) }
            let looked = ConfinedFiles.now()
            let load: StoryLoad
            do { load = try folder.current().story(id: id) } catch { return self.error(404, hidingFolder(error.description), head: head) }
            let body = FeedWire.story(load.story)
            let tag = ETag.strong(for: body)
            memo.keep(key, fingerprint: tag, body: body, tag: tag, checkedAt: looked)
            return document(body, request, head: head, etag: tag)
        }
        let file: ConfinedFiles.File, bytes: Data
        do {
            file = try files.read("stories/\(id).json", maxBytes: FeedDecoder.maxDocumentBytes)
            bytes = try file.contents()
        } catch {
            return failure(error, what: "story '\(id)'", head: head)
        }
        // Only a story the app could read goes out: a broken file is the server's problem.
        // (Checked once per id and version of the file: the same bytes under another id
        // are another story, which must carry that id.)
        let checkedAs = id + "|" + file.etag
        if !memo.isValid(checkedAs) {
            do { _ = try FeedDecoder.story(from: bytes, file: "stories/\(id).json", expectedID: id) } catch {
                return self.error(500, hidingFolder("\(error)"), head: head)
            }
            memo.markValid(checkedAs)
        }
        return document(bytes, request, head: head, etag: file.etag)
    }

    /// The item ids of each story the feed has, for checking a seen batch (a story it does
    /// not have, or cannot read, is left out). Blocking: reads the stories' files.
    public func itemIDs(ofStories ids: [StoryID]) -> [StoryID: Set<ItemID>] {
        var found: [StoryID: Set<ItemID>] = [:]
        for id in ids where StoryIDRule.isValid(id) {
            switch source {
            case .folder(let folder):
                if let load = try? folder.current().story(id: id) { found[id] = Set(load.story.items.map(\.id)) }
            case .documents:
                let name = Self.storyFile(id)
                guard let file = try? files.read(name, maxBytes: FeedDecoder.maxDocumentBytes) else { continue }
                let key = Self.itemsKey(id, file.etag)
                if let kept = memo.items(key) {
                    found[id] = kept
                } else if let bytes = try? file.contents(), let story = try? FeedDecoder.story(from: bytes, file: name, expectedID: id).0 {
                    let items = Set(story.items.map(\.id))
                    memo.keepItems(key, items)
                    found[id] = items
                }
            }
        }
        return found
    }

    /// What `itemIDs` would answer, when all of it is in memory already (story files read
    /// within the last `recheckAfter`, their items worked out); nil when any of it would
    /// need the disk. A seen batch asks on every request: most of the time without leaving
    /// its thread.
    public func keptItemIDs(ofStories ids: [StoryID]) -> [StoryID: Set<ItemID>]? {
        guard case .documents = source else { return nil }
        var found: [StoryID: Set<ItemID>] = [:]
        for id in ids where StoryIDRule.isValid(id) {
            guard let file = files.kept(Self.storyFile(id), maxBytes: FeedDecoder.maxDocumentBytes),
                  let items = memo.items(Self.itemsKey(id, file.etag)) else { return nil }
            found[id] = items
        }
        return found
    }

    private static func storyFile(_ id: StoryID) -> String { "stories/\(id).json" }
    /// Where a story's item ids are kept in `memo`: by the file's tag, so a changed file is
    /// worked out again.
    private static func itemsKey(_ id: StoryID, _ etag: String) -> String { "items|" + id + "|" + etag }

    /// `home.json` as it is and its tag (nil: none, or it cannot be read: `home` says why).
    public func homeTemplate() -> (bytes: Data, etag: String)? {
        guard let file = try? files.read("home.json", maxBytes: FeedDecoder.maxDocumentBytes), let bytes = try? file.contents() else { return nil }
        return (bytes, file.etag)
    }

    private func home(_ request: APIRequest, head: Bool) -> APIResponse {
        do {
            let file = try files.read("home.json", maxBytes: FeedDecoder.maxDocumentBytes)
            return document(try file.contents(), request, head: head, etag: file.etag)
        } catch .notFound {
            return document(Data(#"{"sections":[],"version":1}"#.utf8), request, head: head)
        } catch {
            return failure(error, what: "home.json", head: head)
        }
    }

    private func media(_ relative: String, _ request: APIRequest, head: Bool) -> APIResponse {
        // A folder of photos is served as its feed shows it: its photos and videos, one level
        // down at most, and nothing else in it (no notes, no documents, no deeper folders).
        if case .folder = source, !PhotoFolder.isMediaPath(relative) {
            return error(404, "no '\(SafeText.line(relative))': only the photos and videos of the folder's stories are served", head: head)
        }
        let file: ConfinedFiles.File
        do { file = try files.read(relative, maxBytes: Self.maxMediaBytes) } catch {
            return failure(error, what: "'\(relative)'", head: head)
        }
        var headers: [(String, String)] = [
            ("Content-Type", Self.mediaType(of: relative, bytes: file.start)),
            ("ETag", file.etag),
            ("Cache-Control", "public, max-age=86400"),
            ("Accept-Ranges", "bytes"),
        ]
        if ETag.matches(request.ifNoneMatch, file.etag) { return APIResponse(status: 304, headers: headers, body: Data()) }
        let total = file.size
        /// The answer's bytes: a small file's from memory, a large one's as a part of the
        /// open file, sent as the client takes it (nothing of it held here).
        func answer(_ status: Int, _ range: Range<Int>, _ headers: [(String, String)]) -> APIResponse {
            if head { return APIResponse(status: status, headers: headers, body: Data()) }
            if let opened = file.open { return APIResponse(status: status, headers: headers, body: Data(), file: FileSlice(file: opened, range: range)) }
            if let kept = file.buffer, let slice = kept.getSlice(at: kept.readerIndex + range.lowerBound, length: range.count) {
                return APIResponse(status: status, headers: headers, body: Data(), buffer: slice)
            }
            guard let bytes = try? file.bytes(in: range) else { return error(500, "'\(relative)': the file changed while it was served", head: head) }
            return APIResponse(status: status, headers: headers, body: bytes)
        }
        // If-Range with another tag: the whole file, as RFC 9110 asks.
        let rangeApplies = request.range != nil && (request.ifRange.map { $0 == file.etag } ?? true)
        if rangeApplies, let header = request.range {
            switch ByteRange.parse(header, length: total) {
            case .whole:
                break
            case .unsatisfiable:
                let message = FeedWire.error("range not satisfiable: \(String(SafeText.line(header).prefix(64)))", status: 416)
                return APIResponse(status: 416, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"),
                                                          ("Content-Range", "bytes */\(total)"), ("Content-Length", String(message.count))],
                                   body: head ? Data() : message)
            case .part(let range):
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)"))
                headers.append(("Content-Length", String(range.count)))
                return answer(206, range, headers)
            }
        }
        headers.append(("Content-Length", String(total)))
        return answer(200, 0..<total, headers)
    }

}



