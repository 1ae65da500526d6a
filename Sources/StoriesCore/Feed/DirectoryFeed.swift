import Foundation

/// A feed in a folder: `feed.json`, `stories/<id>.json`, `media/…` (docs/feed-format.md).
/// `init` reads and checks `feed.json` at once, so a missing or malformed feed is reported
/// before the screen is touched.
public struct DirectoryFeed: FeedSource {
    public let directory: URL
    public let index: FeedIndex

    public var title: String { index.title }

    public init(directory: URL) throws(FeedError) {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw FeedError(file: directory.path, reason: "no such file or folder")
        }
        guard isDirectory.boolValue else {
            throw FeedError(file: directory.path, reason: "is a file; --feed takes the folder that holds feed.json")
        }
        let indexURL = directory.appendingPathComponent("feed.json")
        index = try FeedDecoder.index(from: Self.read(indexURL, maxBytes: FeedDecoder.maxDocumentBytes), file: indexURL.path)
    }

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let ids = index.storyIDs
        let offset = try OffsetCursor.offset(cursor, count: ids.count, file: directory.appendingPathComponent("feed.json").path)
        let end = min(ids.count, offset + max(1, limit))
        var summaries: [StorySummary] = []
        var warnings = offset == 0 ? index.warnings : []
        var bytes = 0
        for id in ids[offset..<end] {
            do throws(FeedError) {
                let load = try story(id: id)
                summaries.append(StorySummary(load.story))
                bytes += load.bytes
            } catch {
                warnings.append(FeedWarning("skipped story '\(id)': \(error)"))
            }
        }
        return FeedPage(stories: summaries, nextCursor: OffsetCursor.next(after: offset, limit: max(1, limit), count: ids.count),
                        warnings: warnings, bytes: bytes)
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        let url = directory.appendingPathComponent("stories").appendingPathComponent("\(id).json")
        let data = try Self.read(url, maxBytes: FeedDecoder.maxDocumentBytes)
        let (story, warnings) = try FeedDecoder.story(from: data, file: url.path, expectedID: id)
        return StoryLoad(story: story, warnings: warnings, bytes: data.count)
    }

    /// `home.json` beside `feed.json`, when there is one.
    public func home() throws(FeedError) -> HomeLoad {
        let url = directory.appendingPathComponent("home.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return HomeLoad(layout: .empty) }
        return try HomeDecoder.decode(Self.read(url, maxBytes: FeedDecoder.maxDocumentBytes), file: url.path)
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        guard !location.contains("://") else {
            throw FeedError(file: location, reason: "this feed is a folder; it cannot fetch URLs")
        }
        return try Self.read(directory.appendingPathComponent(location), maxBytes: maxBytes)
    }

    /// Through `SafeFile`: a link (a feed.json pointing at a 3 GB file, a photo outside the
    /// folder) is refused by what it is, before any size is trusted.
    private static func read(_ url: URL, maxBytes: Int) throws(FeedError) -> Data {
        do {
            return try SafeFile.read(url.path, maxBytes: maxBytes).0
        } catch {
            throw FeedError(file: url.path, reason: SafeFile.describe(error, maxBytes: maxBytes))
        }
    }
}
