import StoriesFeedIO
import ArgumentParser
import Foundation
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories init DIR`: writes what `stories DIR` shows of a folder of photos and videos as
/// a feed folder's documents (`feed.json`, `stories/<id>.json`, docs/feed-format.md), with
/// each photo's BlurHash, so captions, order and links can be edited by hand. Nothing is
/// overwritten without `--force`; the photos themselves are never touched.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write feed.json and stories/*.json for a folder of photos and videos, to edit by hand."
    )

    @Argument(help: ArgumentHelp("The folder of photos and videos.", valueName: "dir"))
    var directory: String

    @Flag(help: "Write over a feed.json and story files that are there.")
    var force = false

    @Flag(help: "Leave out BlurHashes (faster on a large folder).")
    var noBlurhash = false

    func run() throws {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        let index = folder.appendingPathComponent("feed.json")
        let storiesFolder = folder.appendingPathComponent("stories")
        // The headers' cache, without its background previews: the hashes are worked out below.
        let cache = PhotoFolderCache.standardRoot().map { PhotoFolderCache(feed: folder, root: $0) }
        let feed: PhotoFolder
        do { feed = try PhotoFolder(directory: folder, cache: cache) } catch { throw fail(error.description) }
        // Everything below is reached from the folder's descriptor (read and written), never
        // by its path again: a folder in it swapped for a link leads nowhere.
        let root = feed.root
        if !force, root.status(of: "feed.json") != nil {
            throw fail("\(SafeText.line(index.path)) is already there (the folder is a feed folder); --force writes it again")
        }
        let load = feed.loadAll(pageSize: 50)
        // The documents' own folder is no story (after an earlier init).
        // Each line once (a page and a story both list a folder).
        var said = Set<String>()
        for warning in load.warnings where !warning.message.hasPrefix("stories: no photos or videos in it") && said.insert(warning.message).inserted {
            warn(warning.message)
        }
        guard !load.stories.isEmpty else { throw fail("\(SafeText.line(folder.path)): no photos or videos to make stories of") }

        // Nothing is written until everything is known to be writable as asked.
        if let info = root.status(of: "stories") {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw fail("\(SafeText.line(storiesFolder.path)) is there and is \(SafeFile.kind(of: info.st_mode)), not a folder; move it away first")
            }
        } else {
            do { try root.makeFolder("stories") } catch {
                throw fail("\(SafeText.line(storiesFolder.path)): cannot be made (\(error))")
            }
        }
        let documents: OpenFolder
        do { documents = try root.folder("stories") } catch {
            throw fail("\(SafeText.line(storiesFolder.path)): \(error == .link ? "is a symbolic link, which is not followed" : error.description)")
        }
        // A folder of photos named "stories" is one of the stories, not the place for documents.
        var others = 0
        if let reason = documents.forEachName({ name, _ in
            if !(name ?? "").hasSuffix(".json") { others += 1 }
            return true
        }) {
            throw fail("\(SafeText.line(storiesFolder.path)): cannot be read (\(reason))")
        }
        if others > 0 {
            throw fail("\(SafeText.line(storiesFolder.path)) holds other files (\(others)); the documents go there: rename that folder first")
        }
        let existing = load.stories.filter { story in
            documents.status(of: "\(story.id).json") != nil // a link too, even to nothing
        }
        if !force, let first = existing.first {
            throw fail("stories/\(first.id).json is already there (\(existing.count) of them); --force writes them again")
        }

        var items = 0, hashed = 0, worked = 0
        let started = Date()
        for (n, story) in load.stories.enumerated() {
            var story = story
            for index in story.items.indices {
                guard !noBlurhash, var media = story.items[index].content.media else { continue }
                if media.blurhash != nil { hashed += 1; continue }
                media.blurhash = (try? root.open(media.location)).flatMap { try? BlurHash.ofFile($0) }
                if media.blurhash != nil { hashed += 1 }
                worked += 1
                if worked % 250 == 0 {
                    FileHandle.standardError.write(Data("stories: init: \(worked) BlurHashes worked out (\(Int(Date().timeIntervalSince(started))) s; --no-blurhash skips them)\n".utf8))
                }
                switch story.items[index].content {
                case .image: story.items[index].content = .image(media)
                case .video: story.items[index].content = .video(media)
                case .audio: story.items[index].content = .audio(media)
                case .text: break
                }
            }
            items += story.items.count
            try write(FeedWire.story(story, pretty: true), to: "\(story.id).json", in: documents)
            if load.stories.count > 20, (n + 1) % 20 == 0 {
                FileHandle.standardError.write(Data("stories: init: \(n + 1) of \(load.stories.count) stories written\n".utf8))
            }
        }
        let document: JSONValue = .object(["version": .int(FeedDecoder.supportedVersion), "title": .string(feed.title),
                                           "stories": .strings(load.stories.map(\.id))])
        let data = document.data(pretty: true)
        try write(data, to: "feed.json", in: root)
        cache?.flush()
        let stories = load.stories.count == 1 ? "1 story" : "\(load.stories.count) stories"
        let media = items == 1 ? "1 photo or video" : "\(items) photos and videos"
        print("init: \(stories), \(media) (\(hashed) with a BlurHash) in \(SafeText.line(index.path)) and \(SafeText.line(storiesFolder.path))/")
    }

    /// Whole or not at all, from the folder's descriptor.
    private func write(_ data: Data, to name: String, in folder: OpenFolder) throws {
        do { try folder.write(data + Data("\n".utf8), to: name, mode: 0o644) } catch {
            throw fail("\(error)")
        }
    }
}
