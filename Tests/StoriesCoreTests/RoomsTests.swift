import Foundation
import Testing

/// Rooms that fit: no source file of the project — Swift or C, app or test — over 400
/// lines. A change that makes one grow past it splits the file by what it holds.
@Suite struct RoomsTests {
    static let limit = 400

    @Test func noSourceFileIsOverFourHundredLines() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var checked = 0, over: [String] = []
        for folder in ["Sources", "Tests", "Assets"] {
            let walker = try #require(FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil))
            for case let url as URL in walker where ["swift", "c", "h"].contains(url.pathExtension) {
                let text = try String(contentsOf: url, encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
                checked += 1
                if lines > Self.limit { over.append("\(url.path.dropFirst(root.path.count + 1)): \(lines) lines") }
            }
        }
        #expect(checked > 300, "the project's files were found: \(checked)")
        #expect(over.isEmpty, "over \(Self.limit) lines: \(over)")
    }

    /// One JSON reader and one writer (`JSONValue.parse`, `JSONValue.data`): nothing the app
    /// reads or writes goes through Foundation's JSON coders or `Codable` (tests may use them
    /// as an independent check).
    @Test func everyJSONGoesThroughTheOneReaderAndWriter() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let walker = try #require(FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil))
        var checked = 0, found: [String] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            checked += 1
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for word in ["JSONDecoder", "JSONEncoder", "JSONSerialization", "Codable", ": Encodable", ": Decodable"] where line.contains(word) {
                    found.append("\(url.lastPathComponent):\(n + 1): \(word)")
                }
            }
        }
        #expect(checked > 200)
        #expect(found.isEmpty, "\(found)")
    }

    /// Tests wait on conditions, never on time: the one place any test lets time pass is
    /// `Tests/StoriesTestSupport/Timing.swift` (`Wait.until`, `Wait.holds`, `Pace`, `Fault`),
    /// where each kind of waiting is named.
    @Test func testsSleepOnlyThroughTheTimingHelpers() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let walker = try #require(FileManager.default.enumerator(at: root.appendingPathComponent("Tests"), includingPropertiesForKeys: nil))
        // A sleep, or work put off by the clock (`asyncAfter`): time as the input goes
        // through `Pace` and `Fault`; a line that tests a scheduler's own API says so
        // (`// timing:`).
        let sleeping = try Regex(#"(\b|\.)(u|nano)?sleep\(|Thread\.sleep|Task\.sleep|asyncAfter\("#)
        var checked = 0, found: [String] = []
        let timing = root.appendingPathComponent("Tests/StoriesTestSupport/Timing.swift").standardizedFileURL.path
        for case let url as URL in walker where ["swift", "c"].contains(url.pathExtension) && url.standardizedFileURL.path != timing {
            let text = try String(contentsOf: url, encoding: .utf8)
            checked += 1
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(sleeping) && !line.contains("let sleeping")
                && !line.contains("// timing:") {
                found.append("\(url.lastPathComponent):\(n + 1)")
            }
        }
        #expect(checked > 100)
        #expect(found.isEmpty, "sleeps outside Timing.swift: \(found)")
    }
}
