@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// The one way files from outside are read: links, FIFOs and oversize files refused by what
/// they are, before anything is read.
@Suite struct SafeFileTests {
    @Test func linksFIFOsAndOversizeFilesAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("safe-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.txt")
        try Data("hello world".utf8).write(to: file)
        #expect(try SafeFile.read(file.path, maxBytes: 100).0 == Data("hello world".utf8))
        #expect(try SafeFile.read(file.path, maxBytes: 5, wholeOrNothing: false).0 == Data("hello".utf8), "a header read")
        #expect(throws: SafeFile.Failure.tooLarge(11)) { try SafeFile.read(file.path, maxBytes: 5) }
        let link = folder.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: file.path)
        #expect(throws: SafeFile.Failure.link) { try SafeFile.read(link.path, maxBytes: 100) }
        let fifo = folder.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(throws: SafeFile.Failure.notRegular("a FIFO")) { try SafeFile.read(fifo.path, maxBytes: 100) } // and no hang
        #expect(throws: SafeFile.Failure.notRegular("a folder")) { try SafeFile.read(folder.path, maxBytes: 100) }
        #expect(throws: SafeFile.Failure.notRegular("a device")) { try SafeFile.read("/dev/zero", maxBytes: 100, followLinks: true) }
        #expect(SafeFile.Failure.notRegular("a FIFO").description == "is a FIFO, not a file")
        #expect(throws: SafeFile.Failure.missing) { try SafeFile.read(folder.appendingPathComponent("none").path, maxBytes: 100) }
        // A loop of links named on the command line (links followed) is said as a loop.
        let one = folder.appendingPathComponent("one"), two = folder.appendingPathComponent("two")
        try FileManager.default.createSymbolicLink(atPath: one.path, withDestinationPath: two.path)
        try FileManager.default.createSymbolicLink(atPath: two.path, withDestinationPath: one.path)
        #expect(throws: SafeFile.Failure.cannotOpen("its links go round in a loop")) { try SafeFile.read(one.path, maxBytes: 100, followLinks: true) }
        #expect(throws: SafeFile.Failure.link) { try SafeFile.read(one.path, maxBytes: 100) }
    }

    /// The feed-folder reader goes through it: a story file linked in from outside is refused
    /// with its reason (issue 12's symlinked feed.json, for every document and photo).
    @Test func aFeedFolderDoesNotFollowALinkedDocument() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("safe-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("stories"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"version":1,"title":"T","stories":["a"]}"#.utf8).write(to: folder.appendingPathComponent("feed.json"))
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).json")
        try Data(#"{"version":1,"id":"a","author":{"name":"A"},"items":[]}"#.utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("stories/a.json").path, withDestinationPath: outside.path)
        let feed = try FeedFolder(directory: folder)
        #expect(throws: FeedError(file: folder.appendingPathComponent("stories/a.json").path, reason: "is a symbolic link, which is not followed")) {
            try feed.story(id: "a")
        }
    }
}
