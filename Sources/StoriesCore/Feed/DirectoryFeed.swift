import Foundation

/// Everything a feed source delivered at start: the stories that loaded, in ring-row order,
/// and what was skipped on the way.
public struct FeedLoad: Equatable, Sendable {
    public var stories: [Story]
    public var warnings: [FeedWarning]

    public init(stories: [Story], warnings: [FeedWarning]) {
        self.stories = stories
        self.warnings = warnings
    }
}

/// Where stories come from. The walking skeleton loads a whole feed at once; paging by
/// cursor arrives with the story store.
public protocol FeedSource: Sendable {
    var title: String { get }
    /// Loads every story. A story that fails is left out with a warning; never throws.
    func loadAll() -> FeedLoad
    /// Where the bytes of a media item are (a file for a folder feed).
    func mediaURL(for media: Media) -> URL?
}

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
        index = try FeedDecoder.index(from: Self.read(indexURL), file: indexURL.path)
    }

    public func loadAll() -> FeedLoad {
        var stories: [Story] = []
        var warnings = index.warnings
        for id in index.storyIDs {
            do throws(FeedError) {
                let (story, storyWarnings) = try loadStory(id: id)
                stories.append(story)
                warnings += storyWarnings
            } catch {
                warnings.append(FeedWarning("skipped story '\(id)': \(error)"))
            }
        }
        return FeedLoad(stories: stories, warnings: warnings)
    }

    public func loadStory(id: StoryID) throws(FeedError) -> (Story, [FeedWarning]) {
        let url = directory.appendingPathComponent("stories").appendingPathComponent("\(id).json")
        return try FeedDecoder.story(from: Self.read(url), file: url.path, expectedID: id)
    }

    public func mediaURL(for media: Media) -> URL? {
        guard !media.location.contains("://") else { return URL(string: media.location) }
        return directory.appendingPathComponent(media.location)
    }

    private static func read(_ url: URL) throws(FeedError) -> Data {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw FeedError(file: path, reason: "no such file")
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
           size > FeedDecoder.maxDocumentBytes {
            throw FeedError(file: path, reason: "\(size) bytes is larger than the \(FeedDecoder.maxDocumentBytes >> 20) MB a feed document may be")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw FeedError(file: path, reason: "cannot read: \((error as NSError).localizedDescription)")
        }
    }
}
