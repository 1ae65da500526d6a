import StoriesTestSupport
import StoriesCells
import Foundation
import StoriesCore
import Testing
@testable import StoriesMedia

@MainActor
@Suite struct VideoPlayerTests {
    static let key = RenditionKey(location: "colors.mp4", width: 8, height: 4, depth: .direct)

    /// A pool deciding inline: every frame comes at once, in order.
    func player(_ file: String = "colors.mp4", pool: PlayerPool = PlayerPool(execution: .inline)) throws -> (PlayerPool, VideoPlayer) {
        var key = Self.key
        key.location = file
        pool.keep([(key: key, data: try VideoFixture.data(file))])
        return (pool, try #require(pool.player(for: file)))
    }

    func colour(_ player: VideoPlayer) -> Color? { player.current?.cells[4, 2].foreground }

    @Test func framesShowAtTheirTimestampsAgainstTheAppsClock() throws {
        let (_, player) = try player()
        #expect(player.phase == .ready && player.current?.time == 0, "prepared: the first frame")
        #expect(player.framesShown == 0, "not shown until the app moves its clock")
        var events: [VideoEvent] = []
        player.onEvent = { events.append($0) }
        player.play()
        player.advance(to: 0.2)
        #expect(player.current?.time == 0, "the second frame is due at 0.25")
        player.advance(to: 0.25)
        #expect(player.current?.time == 0.25)
        player.advance(to: 0.6)
        #expect(player.current?.time == 0.5)
        player.advance(to: 0.99)
        #expect(player.current?.time == 0.75)
        #expect(player.framesShown == 4 && player.framesDropped == 0)
        player.advance(to: 1.2)
        #expect(player.endedAt == 1.0, "the last frame plus one frame")
        #expect(events.contains(.ended(at: 1.0)))
        #expect(!events.contains(.stalled))
    }

    @Test func aFrameAlreadyLateIsDroppedBeforeItIsScaled() throws {
        let (_, player) = try player()
        player.advance(to: 0.9) // the app's clock ran on before the player played
        player.play()
        player.advance(to: 0.9)
        #expect(player.current?.time == 0.75, "straight to the frame due")
        #expect(player.framesDropped == 2, "0.25 and 0.5 were late when decoded: never scaled")
    }

    @Test func overtakenFramesInTheQueueCountAsDropped() throws {
        let (_, player) = try player()
        player.play()            // the queue fills ahead: 0.25, 0.5, 0.75
        #expect(player.queue.count == 3 && player.queue.count <= VideoPlayer.queueLimit)
        player.advance(to: 0.8)  // one frame shown, two overtaken
        #expect(player.current?.time == 0.75)
        #expect(player.framesDropped == 2)
    }

    @Test func prepareScaleAndStopAreIdempotent() throws {
        let pool = PlayerPool(execution: .inline)
        let (_, player) = try player(pool: pool)
        player.prepare()
        player.prepare()
        #expect(pool.decoders.current == 1 && pool.decoders.peak == 1)
        player.play()
        let queued = player.queue.count
        player.play()
        #expect(player.queue.count == queued && player.isPlaying)
        player.pause()
        player.pause()
        #expect(!player.isPlaying)
        player.stop()
        player.stop()
        #expect(pool.decoders.current == 0)
        player.play()
        #expect(!player.isPlaying, "a stopped player stays stopped")
        #expect(player.current?.time == 0, "its last frame stays for drawing")
    }

    @Test func theFirstFrameIsTheRightColourAndAResizeRendersAnew() throws {
        let (_, player) = try player()
        guard case .rgb(let r, let g, let b)? = colour(player) else { Issue.record("no truecolour cell"); return }
        #expect(r > 230 && g < 30 && b < 30, "red: \(r),\(g),\(b)")
        var bigger = Self.key
        bigger.width = 16
        player.resize(bigger)
        #expect(player.current?.cells.width == 16, "the frame on screen is redrawn at the new size")
    }

    /// A paused video resized: the frame on screen is rendered again on the decode queue, and
    /// the app hears of it (`.redrawn`), so it draws the new frame at once — a frame swapped
    /// with no news left the poster on screen until the next key (issue 28).
    @Test func aRedrawnFrameIsNewsForTheApp() throws {
        let executor = ManualExecutor()
        let pool = PlayerPool(execution: .manual(executor))
        var events: [VideoEvent] = []
        pool.onEvent = { _, event in events.append(event) }
        let (_, player) = try player(pool: pool)
        executor.runAll()
        #expect(player.phase == .ready && !player.isPlaying)
        var bigger = Self.key
        bigger.width = 16
        player.resize(bigger)
        executor.runAll()
        #expect(player.current?.cells.width == 16)
        #expect(events.last == .redrawn(width: 16, height: Self.key.height), "\(events)")
    }

    /// A resize while the stream opens on the decode queue: the first frame still arrives,
    /// at the new size.
    @Test func aResizeWhileOpeningKeepsTheFirstFrame() throws {
        let executor = ManualExecutor()
        let (_, player) = try player(pool: PlayerPool(execution: .manual(executor)))
        #expect(player.phase == .preparing)
        var bigger = Self.key
        bigger.width = 16
        player.resize(bigger)
        executor.runAll()
        #expect(player.phase == .ready)
        #expect(player.current?.time == 0 && player.current?.cells.width == 16)
    }

    /// Decoding behind the clock: the stall is reported once; the app then stops its clock
    /// and pauses the player, which must not end the stall (that once made the app and
    /// the player hand `.resumed` and `.stalled` back and forth forever on the main
    /// queue); the next frame ends it.
    @Test func aStallEndsWhenAFrameComesNotWhenTheAppPauses() throws {
        let executor = ManualExecutor()
        let (_, player) = try player(pool: PlayerPool(execution: .manual(executor)))
        executor.runAll() // opened, first frame
        var events: [VideoEvent] = []
        player.onEvent = { events.append($0) }
        player.play()            // asks for the next frame; the executor holds it
        player.advance(to: 0.6)  // the clock ran on: nothing due is there
        #expect(events == [.stalled])
        player.pause()           // what the engine does once the reducer stops the clock
        player.advance(to: 0.6)
        player.advance(to: 0.6)
        #expect(events == [.stalled], "pausing does not end a stall")
        #expect(executor.count == 1, "still decoding while stalled")
        executor.runNext()
        #expect(events == [.stalled, .resumed])
        player.play()
        player.advance(to: 0.6)
        #expect(player.current?.time == 0.5, "the frame due is shown once it is there")
    }

    /// A player decides nothing: a clock that goes back does not rewind it (issue 28); the
    /// app's `restart` does.
    @Test func aClockGoingBackDoesNotRewindButRestartDoes() throws {
        let (_, player) = try player()
        player.play()
        player.advance(to: 0.8)
        let shown = player.current?.time
        player.advance(to: 0)
        #expect(player.current?.time == shown, "holds its frame")
        player.restart()
        #expect(player.phase == .ready)
        #expect(player.current?.time == 0)
        player.advance(to: 0.3)
        #expect(player.current?.time == 0.25)
    }

    @Test func thePoolKeepsAtMostTwoAndReleasesTheRestAtOnce() throws {
        let pool = PlayerPool(execution: .inline)
        let data = try VideoFixture.data("colors.mp4")
        func key(_ name: String) -> RenditionKey { var k = Self.key; k.location = name; return k }
        pool.keep([(key("a"), data), (key("b"), data), (key("c"), data)])
        #expect(pool.players.keys.sorted() == ["a", "b"])
        #expect(pool.decoders.current == 2)
        pool.keep([(key("c"), data)])
        #expect(pool.players.keys.sorted() == ["c"] && pool.decoders.current == 1)
        pool.keep([(key("d"), nil)])
        #expect(pool.players.isEmpty, "no bytes yet: no player, and the old one is gone")
        #expect(pool.decoders.peak == 2)
    }

    /// Random live sets, as swipes and taps would ask, on the real decode queue: never more
    /// than two decoders open at any moment.
    @Test func neverAboveTwoUnderThousandsOfRandomNavigationsOnRealQueues() async throws {
        let pool = PlayerPool(execution: .background)
        let files = [("colors.mp4", try VideoFixture.data("colors.mp4")), ("colors.webm", try VideoFixture.data("colors.webm")),
                     ("sound.mp4", try VideoFixture.data("sound.mp4")), ("rotated.mp4", try VideoFixture.data("rotated.mp4"))]
        var rng = SplitMix(seed: 14)
        for step in 0..<3000 {
            let count = Int(rng.next() % 3)
            var wanted: [(key: RenditionKey, data: Data?)] = []
            for _ in 0..<count {
                let (name, data) = files[Int(rng.next() % UInt64(files.count))]
                var key = Self.key
                key.location = name
                if !wanted.contains(where: { $0.key.location == name }) { wanted.append((key, data)) }
            }
            pool.keep(wanted)
            for player in pool.players.values {
                if rng.next() % 2 == 0 { player.play() } else { player.pause() }
                player.advance(to: Double(rng.next() % 100) / 100)
            }
            #expect(pool.players.count <= PlayerPool.capacity)
            if step % 50 == 0 { await Pace.pause(0.001) } // a person's pace: the queue and main run between inputs
        }
        pool.releaseAll()
        let held = await AsyncWait.until(10, every: 0.005) { pool.decoders.current == 0 }
        #expect(held, "every decoder closed")
        #expect(pool.decoders.peak <= PlayerPool.capacity, "peak \(pool.decoders.peak)")
        #expect(pool.decoders.peak >= 1)
    }
}
