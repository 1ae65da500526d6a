import Foundation
import Testing
@testable import StoriesCore

/// A folder of photos and videos, made by the test, read as a feed.
@Suite struct FolderFeedTests {
    let utc = TimeZone(identifier: "UTC") ?? .current

    /// A JPEG start holding EXIF (`PhotoMetadataTests.jpeg`): the feed reads only headers.
    func photo(taken: String? = nil, caption: String? = nil) -> Data {
        var ifd0: [(Int, PhotoMetadataTests.Value)] = []
        if let caption { ifd0.append((0x010E, .ascii(caption))) }
        let exif: [(Int, PhotoMetadataTests.Value)] = taken.map { [(0x9003, .ascii($0))] } ?? []
        return PhotoMetadataTests.jpeg(littleEndian: true, ifd0: ifd0, exif: exif)
    }

    func makeFolder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-\(UUID().uuidString)/My Photos")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("Hiking trip"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("Only notes"), withIntermediateDirectories: true)
        func write(_ data: Data, _ path: String, modified: Date? = nil) throws {
            let url = root.appendingPathComponent(path)
            try data.write(to: url)
            if let modified { try fm.setAttributes([.modificationDate: modified], ofItemAtPath: url.path) }
        }
        let may = Date(timeIntervalSince1970: 1_714_500_000) // 30 April 2024
        try write(photo(taken: "2024:06:02 12:00:00", caption: "At the top"), "Hiking trip/b.jpg")
        try write(photo(taken: "2024:06:02 09:30:00"), "Hiking trip/a.jpg")
        try write(photo(), "Hiking trip/c.png", modified: Date(timeIntervalSince1970: 1_717_330_000)) // no EXIF: 2 June, 12:06
        try write(Data("Lunch by the lake\nmore lines".utf8), "Hiking trip/c.txt")
        try write(Data("not media".utf8), "Hiking trip/notes.md")
        try write(Data([0, 0, 0, 24]) + Data("ftypisom".utf8), "Hiking trip/clip.mp4", modified: Date(timeIntervalSince1970: 1_717_300_000))
        try write(Data("notes".utf8), "Only notes/todo.txt")
        try fm.setAttributes([.modificationDate: may], ofItemAtPath: root.appendingPathComponent("Only notes").path)
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_717_400_000)], ofItemAtPath: root.appendingPathComponent("Hiking trip").path)
        // Loose at the top: two days in May.
        try write(photo(taken: "2024:05:01 08:00:00"), "x.jpg")
        try write(photo(taken: "2024:05:01 18:00:00", caption: "Evening"), "y.jpg")
        try write(photo(taken: "2024:05:03 10:00:00"), "z.jpg")
        // Left out: hidden, not media, a link out of the folder, a FIFO and an escape in a name.
        try write(photo(), ".hidden.jpg")
        try write(Data("x".utf8), "readme.txt")
        let outside = root.deletingLastPathComponent().appendingPathComponent("secret.jpg")
        try photo().write(to: outside)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("link.jpg").path, withDestinationPath: outside.path)
        #expect(mkfifo(root.appendingPathComponent("pipe.jpg").path, 0o600) == 0)
        try write(photo(), "bad\u{1B}]0;x\u{07}.jpg")
        return root
    }

    @Test func subFoldersAreStoriesAndLooseFilesAreDaysNewestFirst() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try FolderFeed(directory: root, timeZone: utc)
        #expect(feed.title == "My Photos")
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.map(\.id) == ["Hiking-trip", "day-2024-05-03", "day-2024-05-01"], "\(page.stories.map(\.id))")
        #expect(page.stories.map(\.author.name) == ["Hiking trip", "3 May 2024", "1 May 2024"])
        #expect(page.stories[0].itemIDs.sorted() == ["a.jpg", "b.jpg", "c.png", "clip.mp4"])
        #expect(page.warnings.contains { $0.message.contains("Only notes: no photos or videos in it") })
        #expect(page.warnings.contains { $0.message.contains("3 entries left out") }, "\(page.warnings)")
        #expect(page.warnings.allSatisfy { !$0.message.contains("\u{1B}") })
        #expect(page.nextCursor == nil)
    }

    @Test func aStoryIsInCaptureOrderWithCaptionsFromEXIFOrASidecar() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try FolderFeed(directory: root, timeZone: utc)
        let story = try feed.story(id: "Hiking-trip").story
        #expect(story.items.map(\.id) == ["clip.mp4", "a.jpg", "b.jpg", "c.png"], "capture time, else the file's")
        #expect(story.items.map(\.caption) == [nil, nil, "At the top", "Lunch by the lake"])
        guard case .video(let clip) = story.items[0].content, case .image(let photo) = story.items[1].content else {
            Issue.record("kinds: \(story.items.map(\.content))")
            return
        }
        #expect(clip.location == "Hiking trip/clip.mp4" && photo.location == "Hiking trip/a.jpg")
        #expect(try feed.media(at: photo.location, maxBytes: 1 << 20) == (try Data(contentsOf: root.appendingPathComponent("Hiking trip/a.jpg"))))
        let day = try feed.story(id: "day-2024-05-01").story
        #expect(day.items.map(\.id) == ["x.jpg", "y.jpg"] && day.items[1].caption == "Evening")
    }

    @Test func nothingOutsideTheFolderOrSpecialIsEverRead() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try FolderFeed(directory: root, timeZone: utc)
        for location in ["../secret.jpg", "link.jpg", "pipe.jpg", "/etc/passwd", ".hidden.jpg", "Hiking trip/../../secret.jpg"] {
            #expect(throws: FeedError.self, "\(location)") { try feed.media(at: location, maxBytes: 1 << 20) }
        }
        #expect(throws: FeedError.self) { try feed.story(id: "nope") }
    }

    @Test func aMissingFolderAFileAndAnEmptyFolderSaySo() throws {
        #expect(throws: FeedError(file: "/nonexistent/photos", reason: "no such file or folder")) {
            try FolderFeed(directory: URL(fileURLWithPath: "/nonexistent/photos"))
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let empty = try FolderFeed(directory: root)
        let page = try empty.page(after: nil, limit: 10)
        #expect(page.stories.isEmpty && page.warnings.contains { $0.message.contains("no photos or videos here") })
        let file = root.appendingPathComponent("one.jpg")
        try Data([0xFF]).write(to: file)
        #expect(throws: FeedError.self) { try FolderFeed(directory: file) }
    }

    @Test func storyIDsAreSafeAndUnique() {
        var used = Set<StoryID>()
        #expect(FolderFeed.storyID(for: "Hiking trip", used: &used) == "Hiking-trip")
        #expect(FolderFeed.storyID(for: "Hiking/trip", used: &used) == "Hiking-trip-2")
        #expect(FolderFeed.storyID(for: "..", used: &used) == "story")
        #expect(FolderFeed.storyID(for: "山", used: &used) == "-")
        #expect(used.allSatisfy(StoryIDRule.isValid))
    }
}
