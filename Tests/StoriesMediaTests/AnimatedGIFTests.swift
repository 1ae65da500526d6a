import StoriesTestSupport
import StoriesCells
import Foundation
import StoriesCore
import StoriesFeedIO
import Testing
@testable import StoriesMedia

/// Issue 30, point 5: GIFs told apart by their blocks (an animation or a still), an
/// animation looping in its player, a folder's animated GIF a video item.
@MainActor
@Suite struct AnimatedGIFTests {
    @Test func theBlocksSayHowManyFramesHowLongAndWhetherItLoops() throws {
        let moving = try #require(GIFInfo.read(try VideoFixture.data("colors.gif")))
        #expect(moving.frames == 4 && moving.complete && moving.loops && moving.isAnimated, "\(moving)")
        #expect(abs(moving.duration - 1.0) < 0.011, "four delays of 0.25 s: \(moving.duration)")
        let still = try #require(GIFInfo.read(try VideoFixture.data("still.gif")))
        #expect(still.frames == 1 && still.complete && !still.isAnimated, "\(still)")
        // A loop block alone is no animation (FFmpeg writes one into a one-frame GIF too): the
        // start of an animation, cut after its first frame, is taken as a still.
        let data = try VideoFixture.data("colors.gif")
        let firstFrame = try #require((0..<data.count).first { GIFInfo.read(data.prefix($0))?.frames == 1 })
        let start = try #require(GIFInfo.read(data.prefix(firstFrame + 1)))
        #expect(start.loops && !start.complete && !start.isAnimated, "\(start)")
        #expect(GIFInfo.read(Data("not a gif at all".utf8)) == nil)
        #expect(GIFInfo.read(try VideoFixture.data("colors.mp4")) == nil)
    }

    /// Every cut of the file, and every byte of its start turned to 0xFF: a walk ends, never
    /// runs off the bytes, never counts more frames than there are.
    @Test func aCutOrDamagedGIFEndsTheWalkAndNeverTraps() throws {
        let data = try VideoFixture.data("colors.gif")
        for length in 0..<data.count {
            let info = GIFInfo.read(data.prefix(length))
            #expect(info == nil || info?.frames ?? 0 <= 4, "cut at \(length)")
            if let info { #expect(!info.complete, "cut at \(length) cannot reach the trailer") }
        }
        for index in 6..<min(data.count, 400) {
            var bytes = data
            bytes[index] = 0xFF
            #expect((GIFInfo.read(bytes)?.frames ?? 0) <= 5, "0xFF at \(index)")
        }
        // A colour table larger than the file, and a run of empty extensions.
        var header = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x87, 0, 0]
        #expect(GIFInfo.read(Data(header))?.frames == 0)
        header = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0] + Array(repeating: [0x21, 0xF9, 0], count: 1000).flatMap { $0 } + [0x3B]
        #expect(GIFInfo.read(Data(header)) == GIFInfo(frames: 0, duration: 0, loops: false, complete: true))
    }

    func player(loops: Bool) throws -> (PlayerPool, VideoPlayer) {
        let pool = PlayerPool(execution: .inline)
        let key = RenditionKey(location: "colors.gif", width: 8, height: 4, depth: .direct)
        pool.keep([(key: key, data: try VideoFixture.data("colors.gif"))])
        let player = try #require(pool.player(for: "colors.gif"))
        player.loops = loops
        return (pool, player)
    }

    func isBlue(_ player: VideoPlayer) -> Bool {
        guard case .rgb(let r, _, let b)? = player.current?.cells[4, 2].foreground else { return false }
        return b > 200 && r < 60
    }

    @Test func anAnimationLoopsItsTimesRunningOnAndNeverEnds() throws {
        let (_, player) = try player(loops: true)
        var events: [VideoEvent] = []
        player.onEvent = { events.append($0) }
        player.play()
        player.advance(to: 0.5)
        #expect(isBlue(player), "the blue frame at 0.5 s")
        player.advance(to: 1.1)
        #expect(player.current.map { abs($0.time - 1.0) < 0.02 } == true, "the second pass's first frame at 1.0 s: \(String(describing: player.current?.time))")
        #expect(!isBlue(player))
        player.advance(to: 1.5)
        #expect(isBlue(player), "blue again at 1.5 s")
        for step in 31...192 { player.advance(to: Double(step) * 0.05) } // the item's clock, ticking on to 9.6 s
        #expect(isBlue(player), "and at 9.5 s, the tenth pass: \(String(describing: player.current?.time))")
        #expect(!events.contains(.stalled), "never without a frame")
        player.advance(to: 30.6) // a clock that jumped: the passes left behind are skipped
        player.advance(to: 30.6)
        #expect(isBlue(player), "at 30.5 s: \(String(describing: player.current?.time))")
        #expect(player.endedAt == nil && !events.contains { if case .ended = $0 { true } else { false } })
        player.restart()
        #expect(player.current?.time == 0, "started over: the first pass again")
    }

    @Test func withoutLoopingItEndsAndToldToLoopAfterItsEndItGoesOn() throws {
        let (_, player) = try player(loops: false)
        var events: [VideoEvent] = []
        player.onEvent = { events.append($0) }
        player.play()
        player.advance(to: 1.2)
        #expect(player.endedAt != nil, "a GIF not told to loop plays once")
        player.loops = true // the plan, once the app knew
        #expect(player.endedAt == nil)
        player.advance(to: 1.6)
        #expect(isBlue(player), "on into the second pass: \(String(describing: player.current?.time))")
    }

    @Test func aFoldersAnimatedGIFIsAVideoItemAndAStillOneAPhoto() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gif-folder-\(UUID().uuidString)")
        let story = root.appendingPathComponent("Cats")
        try FileManager.default.createDirectory(at: story, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try VideoFixture.data("colors.gif").write(to: story.appendingPathComponent("moving.gif"))
        try VideoFixture.data("still.gif").write(to: story.appendingPathComponent("still.gif"))
        let cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent("gif-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheRoot) }
        for pass in 0..<2 { // the second start reads what the cache kept
            let cache = PhotoFolderCache(feed: root, root: cacheRoot)
            let feed = try PhotoFolder(directory: root, cache: cache)
            let page = try feed.page(after: nil, limit: 10)
            let id = try #require(page.stories.first?.id)
            let items = try feed.story(id: id).story.items
            let kinds = Dictionary(uniqueKeysWithValues: items.map { item in
                (item.id, { if case .video = item.content { "video" } else { "photo" } }())
            })
            #expect(kinds == ["moving.gif": "video", "still.gif": "photo"], "pass \(pass)")
            cache.flush()
        }
    }
}
