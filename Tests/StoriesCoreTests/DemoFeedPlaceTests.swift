import Foundation
import Testing
@testable import StoriesAssets

/// The demo feed is found beside the running binary without Foundation's bundle lookup, at
/// the same place `Bundle.module` gives.
@Suite struct DemoFeedPlaceTests {
    @Test func theDemoBesideTheBinaryIsTheBundlesOwn() throws {
        let beside = try #require(DemoFeed.nextToBinary, "no demo beside \(Bundle.main.bundlePath)")
        let bundled = try #require(Bundle.module.url(forResource: "demo", withExtension: nil))
        #expect(beside.resolvingSymlinksInPath().path == bundled.resolvingSymlinksInPath().path)
        #expect(FileManager.default.fileExists(atPath: beside.appendingPathComponent("feed.json").path))
        #expect(DemoFeed.directory?.path == beside.path)
    }
}
