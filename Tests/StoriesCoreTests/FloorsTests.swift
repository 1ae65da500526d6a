import Foundation
import Testing

/// Issue 28, point 5: the floors of docs/architecture.md, enforced by reading every
/// source file's import lines. A module may import only the floors below it (and the
/// system's); a new import that breaks this fails here, with the file named.
@Suite struct FloorsTests {
    /// What each module may import, besides Foundation, Dispatch and the C shims it owns.
    static let allowed: [String: Set<String>] = [
        "StoriesCells": [],
        "StoriesCore": ["StoriesCells"],
        "StoriesFeedIO": ["StoriesCore", "StoriesCells", "CStoriesFiles"],
        "StoriesMedia": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "CStoriesImage", "CStoriesVideo"],
        "StoriesUI": ["StoriesCore", "StoriesCells", "StoriesMedia", "CFriBiDi"],
        "StoriesApp": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "StoriesMedia", "StoriesUI"],
        "StoriesTerminal": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp",
                            "CNcursesw", "CStoriesSupport"],
        "StoriesHTTP": ["StoriesCore", "StoriesFeedIO", "CZlib", "AsyncHTTPClient", "NIOCore", "NIOHTTP1"],
        "StoriesCommandLine": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesTerminal",
                               "StoriesAssets", "StoriesHTTP", "ArgumentParser"],
        "StoriesBench": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesTerminal",
                         "StoriesAssets", "StoriesCommandLine", "StoriesRender", "StoriesServer", "ArgumentParser", "CStoriesSupport"],
        "StoriesRender": ["StoriesCore", "StoriesCells", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "CFreeType"],
        "StoriesServer": ["StoriesCore", "StoriesFeedIO", "CZlib", "Hummingbird", "HummingbirdCore", "HummingbirdTLS", "NIOCore", "NIOFoundationCompat",
                          "Logging", "HTTPTypes", "SQLiteNIO", "NIOPosix", "Crypto", "ServiceLifecycle", "PostgresNIO", "NIOSSL"],
    ]
    static let system: Set<String> = ["Foundation", "Dispatch", "Glibc", "Darwin"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    @Test func everyImportIsOfAFloorBelow() throws {
        var seen = 0
        for (module, allowed) in Self.allowed {
            let folder = Self.sources.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "no sources for \(module)")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                    let imported = String(line.split(separator: " ").last ?? "")
                    seen += 1
                    #expect(allowed.contains(imported) || Self.system.contains(imported),
                            "\(module)/\(file) imports \(imported), which is not a floor below \(module)")
                }
            }
        }
        #expect(seen > 100, "the imports were read")
    }

    /// The core is pure: no file system, no queues, no clock of its own.
    @Test func theCoreTouchesNoFilesAndRunsNoQueues() throws {
        let folder = Self.sources.appendingPathComponent("StoriesCore")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for word in ["FileManager.default", "DispatchQueue(", "open(", "openat(", "fopen("] {
                #expect(!text.contains(word), "StoriesCore/\(file) uses \(word): I/O belongs in StoriesFeedIO")
            }
        }
    }

    /// Every feature is a scoped reducer (`FeatureReducer`), handed its slice and a context
    /// the parent derives: none extends `Reduction` or names `AppState`, either of which
    /// would let it reach every other slice. What reads across slices lives in `App/`.
    @Test func everyFeatureIsHandedOnlyItsSlice() throws {
        let folder = Self.sources.appendingPathComponent("StoriesCore/Features")
        let features = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(features.count >= 8, "the feature folders were found: \(features)")
        for feature in features {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(feature).path)
                .filter { $0.hasSuffix(".swift") }
            var reducers = 0
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(feature).appendingPathComponent(file), encoding: .utf8)
                let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                if code.contains(where: { $0.contains(": FeatureReducer") }) { reducers += 1 }
                #expect(!code.contains { $0.contains("AppState") }, "\(feature)/\(file): a feature names AppState")
                #expect(!code.contains { $0.contains("extension Reduction") }, "\(feature)/\(file): a feature extends the parent")
            }
            #expect(reducers == 1, "\(feature): \(reducers) scoped reducers, one expected")
        }
    }
}
