import Foundation
import StoriesTestSupport
import Testing

/// `stories FOLDER` on a folder of photos the test makes: its sub-folders are the ring row,
/// and a story opens with the caption its sidecar gives.
@Suite(.serialized, .ownThread) struct FolderEndToEndTests {
    @Test func aFolderOfPhotosIsAFeedOfItsSubFolders() throws {
        let root = try Self.photoFolder("e2e-folder")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("not a photo".utf8).write(to: root.appendingPathComponent("Cats/notes.md"))
        let before = try Self.everything(in: root)
        let tmux = try Tmux.runningStories(arguments: "'\(root.path)'", stateDirectory: root.appendingPathComponent(".state"))
        let lines = try tmux.screen()
        #expect(lines.first?.contains("e2e-folder-") == true && lines.first?.hasSuffix(" 2 stories") == true, "\(lines.first ?? "")")
        #expect(lines.contains { $0.contains("Cats") && $0.contains("Space tr") })
        try tmux.press("Enter")
        try tmux.waitFor(text: "1/2")
        try tmux.waitFor(text: "Chelsea asleep on the sofa") // once the zoom has settled
        try tmux.press("Escape", "Right", "Enter")
        try tmux.waitFor(text: "1/3")
        try tmux.press("q")
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
        #expect(try Self.everything(in: root) == before, "nothing was written into the folder")
    }

    /// Every path under `root` but the test's own state folder.
    static func everything(in root: URL) throws -> [String] {
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { !$0.hasPrefix(".state") }.sorted()
    }

    static func photoFolder(_ name: String) throws -> URL {
        let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        let fm = FileManager.default
        for (folder, files) in [("Cats", ["chelsea.jpg", "coffee.jpg"]), ("Space trip", ["astronaut.jpg", "rocket.jpg", "deep-field.mp4"])] {
            try fm.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            for file in files { try fm.copyItem(at: media.appendingPathComponent(file), to: root.appendingPathComponent(folder).appendingPathComponent(file)) }
        }
        try Data("Chelsea asleep on the sofa\n".utf8).write(to: root.appendingPathComponent("Cats/chelsea.txt"))
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: root.appendingPathComponent("Space trip").path)
        return root
    }

    /// `stories serve FOLDER` and `stories --server` against it: the same stories over HTTP.
    @Test func aFolderOfPhotosIsServedAndBrowsedOverHTTP() throws {
        let root = try Self.photoFolder("e2e-serve-folder")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-serve-folder-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: scratch)
        }
        let server = try ServeEndToEndTests.Server(log: scratch.appendingPathComponent("serve.log"), directory: root.path,
                                                   environment: ["XDG_CACHE_HOME": scratch.appendingPathComponent("server-cache").path])
        #expect(server.firstLine.contains(root.lastPathComponent), "\(server.firstLine)")
        let tmux = try Tmux(width: 100, height: 30)
        try tmux.type("XDG_CACHE_HOME=\(scratch.path)/cache XDG_STATE_HOME=\(scratch.path)/state \(try Binary.requireBuilt()) --server http://127.0.0.1:\(server.port)")
        try tmux.waitFor("the folder's stories over HTTP") { lines in
            lines.first?.hasSuffix(" 2 stories") == true && lines.contains { $0.contains("Cats") && $0.contains("Space tr") }
        }
        // Paused once the viewer is open: on a loaded machine reading the screen can take
        // longer than the photo's five seconds, and the story goes on to the next photo,
        // which has no caption — then back to the first.
        try tmux.press("Enter")
        _ = try tmux.waitFor("the viewer") { $0.joined(separator: "\n").contains("Esc close") }
        try tmux.press("Space")
        let captioned = try Wait.until(3, every: 0.1) { try tmux.screen().joined(separator: "\n").contains("Chelsea asleep on the sofa") }
        if !captioned { try tmux.press("Left") }
        try tmux.waitFor(text: "Chelsea asleep on the sofa")
        try tmux.press("q")
        try tmux.waitFor(text: "Enter open")
        try tmux.press("q")
        try tmux.waitForPrompt()
        #expect(server.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("server-cache/stories/folders").path),
                "the server kept what it read in its own cache")
    }

    /// `stories init FOLDER` writes the documents of a feed folder; the folder then opens as
    /// one, with the same stories; a second `init` refuses to write over them.
    @Test func initWritesAFeedFolderThatOpensAsTheSameStories() throws {
        let root = try Self.photoFolder("e2e-init")
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["XDG_CACHE_HOME": root.appendingPathComponent(".cache").path]
        let made = try Binary.run(["init", root.path], environment: environment)
        #expect(made.status == 0 && made.out.contains("init: 2 stories, 5 photos and videos (5 with a BlurHash)"), "\(made)")
        let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("feed.json"))) as? [String: Any])
        let ids = try #require(index["stories"] as? [String])
        #expect(ids.count == 2 && ids.first == "Cats" && ids.last?.hasPrefix("Space-trip-") == true, "\(ids)")
        let cats = try String(contentsOf: root.appendingPathComponent("stories/Cats.json"), encoding: .utf8)
        let story = try #require(try JSONSerialization.jsonObject(with: Data(cats.utf8)) as? [String: Any], "\(cats)")
        let items = try #require(story["items"] as? [[String: Any]], "\(cats)")
        #expect(items.contains { $0["caption"] as? String == "Chelsea asleep on the sofa" }, "\(cats)")
        #expect(items.allSatisfy { (($0["media"] as? [String: Any])?["blurhash"] as? String)?.isEmpty == false }, "\(cats)")
        #expect(cats.contains("\n  \"items\": ["), "written indented for a person to edit: \(cats)")

        let again = try Binary.run(["init", root.path], environment: environment)
        #expect(again.status == 1 && again.err.contains("feed.json is already there"), "\(again)")
        let shown = try Binary.run(["--feed", root.path, "--headless", "--virtual-clock", "--size", "80x20"],
                                   environment: environment.merging(["XDG_STATE_HOME": root.appendingPathComponent(".state").path]) { $1 })
        #expect(shown.status == 0 && shown.out.contains("Cats") && shown.out.contains("2 stories"), "\(shown.out)")
        #expect(try Binary.run(["init", "--force", root.path], environment: environment).status == 0)
    }
}
