import StoriesCore
import Foundation

/// A feed in a folder: `feed.json`, `stories/<id>.json`, `media/…` (docs/feed-format.md).
/// `init` reads and checks `feed.json` at once, so a missing or malformed feed is reported
/// before the screen is touched.
///
/// Every file is read from the folder's own descriptor (`OpenFolder`): no link anywhere in a
/// path inside it is followed, and a folder swapped for a link after the start leads nowhere.
public struct FeedFolder: FeedSource {
    public let directory: URL
    public let index: FeedIndex
    /// The folder, held open.
    public let root: OpenFolder

    public var title: String { index.title }

    public init(directory: URL) throws(FeedError) {
        let open: OpenFolder
        do { open = try OpenFolder.open(directory.path) } catch {
            let reason = switch error {
            case .missing: "no such file or folder"
            case .notFolder("a file"): "is a file; --feed takes the folder that holds feed.json"
            case .notFolder(let kind): "is \(kind), not a folder; --feed takes the folder that holds feed.json"
            case .cannotOpen(let why): "cannot be read (\(why))"
            default: error.description
            }
            throw FeedError(file: SafeText.line(directory.path), reason: reason)
        }
        try self.init(root: open, directory: directory)
    }

    /// Over a folder already open (a server reads the same descriptor for its files).
    public init(root: OpenFolder, directory: URL) throws(FeedError) {
        self.directory = directory
        self.root = root
        index = try FeedDecoder.index(from: Self.read(root, "feed.json", in: directory, maxBytes: FeedDecoder.maxDocumentBytes, retried: false),
                                      file: directory.appendingPathComponent("feed.json").path)
    }

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let ids = index.storyIDs
        let offset = try OffsetCursor.offset(cursor, count: ids.count, file: directory.appendingPathComponent("feed.json").path)
        let end = min(ids.count, offset + max(1, limit))
        var summaries: [StorySummary] = []
        var warnings = offset == 0 ? index.warnings : []
        var bytes = 0, skipped = 0, unreadable: [FeedError] = []
        for id in ids[offset..<end] {
            do throws(FeedError) {
                let load = try story(id: id)
                summaries.append(StorySummary(load.story))
                bytes += load.bytes
            } catch {
                skipped += 1
                if error.isTransient { unreadable.append(error) }
                warnings.append(FeedWarning("skipped story '\(id)': \(error)"))
            }
        }
        // None of the page could be read now (the folder unmounted, moved away for a
        // moment): the page is asked for again by the policy, not passed over for good.
        if summaries.isEmpty, let first = unreadable.first, unreadable.count == skipped {
            throw FeedError(file: first.file, field: first.field, reason: first.reason + (skipped > 1 ? " (and the page's \(skipped - 1) other stories)" : ""),
                            isTransient: true)
        }
        return FeedPage(stories: summaries, nextCursor: OffsetCursor.next(after: offset, limit: max(1, limit), count: ids.count),
                        warnings: warnings, bytes: bytes, direction: index.direction, skipped: skipped)
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        let relative = "stories/\(id).json"
        let data = try Self.read(root, relative, in: directory, maxBytes: FeedDecoder.maxDocumentBytes)
        let (story, warnings) = try FeedDecoder.story(from: data, file: directory.appendingPathComponent(relative).path, expectedID: id)
        return StoryLoad(story: story, warnings: warnings, bytes: data.count)
    }

    /// `home.json` beside `feed.json`, when there is one.
    public func home() throws(FeedError) -> HomeLoad {
        let url = directory.appendingPathComponent("home.json")
        guard root.status(of: "home.json") != nil else { return HomeLoad(layout: .empty) }
        return try HomeDecoder.decode(Self.read(root, "home.json", in: directory, maxBytes: FeedDecoder.maxDocumentBytes), file: url.path)
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        guard !location.contains("://") else {
            throw FeedError(file: location, reason: "this feed is a folder; it cannot fetch URLs")
        }
        if let problem = FeedPath.problem(with: location) {
            throw FeedError(file: directory.appendingPathComponent(SafeText.line(location)).path, reason: problem)
        }
        return try Self.read(root, location, in: directory, maxBytes: maxBytes)
    }

    /// From the folder's descriptor: a link (a feed.json pointing at a 3 GB file, a photo
    /// outside the folder, a folder of it swapped for a link) is refused by what it is,
    /// before any size is trusted.
    /// `retried`: a failure that may pass is said as one (the app asks again by its policy);
    /// not for `feed.json` at start, which nothing asks again.
    private static func read(_ root: OpenFolder, _ relative: String, in directory: URL, maxBytes: Int, retried: Bool = true) throws(FeedError) -> Data {
        do {
            return try root.read(relative, maxBytes: maxBytes).0
        } catch {
            throw FeedError(file: directory.appendingPathComponent(relative).path, reason: SafeFile.describe(error, maxBytes: maxBytes),
                            isTransient: retried && root.mayPass(error, reading: relative))
        }
    }
}
