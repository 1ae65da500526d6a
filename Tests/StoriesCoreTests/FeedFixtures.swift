import Foundation
import StoriesCore

/// Writes a feed folder under a fresh temporary directory for a test.
struct TemporaryFeed {
    let directory: URL

    init(index: String, stories: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stories-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("stories"), withIntermediateDirectories: true)
        try index.write(to: directory.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        for (id, json) in stories {
            try json.write(to: directory.appendingPathComponent("stories/\(id).json"), atomically: true, encoding: .utf8)
        }
    }

    static func story(_ id: String, name: String = "Test Person", items: String = #"[{"id":"i1","type":"text","text":"hi"}]"#) -> String {
        #"{"id":"\#(id)","author":{"name":"\#(name)"},"items":\#(items)}"#
    }
}

func decodeStory(_ json: String, id: String = "s") throws(FeedError) -> (Story, [FeedWarning]) {
    try FeedDecoder.story(from: Data(json.utf8), file: "stories/\(id).json", expectedID: id)
}
