import StoriesTestSupport
import StoriesCells
import Foundation
import StoriesCore
import StoriesFeedIO
import Testing
@testable import StoriesMedia

/// Issue 49, point 2: every frame of a GIF for its own delay, the last of each loop too;
/// loop counts as browsers read them; 0 and 1 hundredths as 0.1 s; disposal to the
/// background and to the previous picture. (The timing a person's terminal sees is
/// `CommandLineTests`' GIF test, from a pseudo-terminal.)
@MainActor
@Suite struct GIFTimingTests {
    /// Every frame's time and duration as the decoder gives them, with its middle pixel.
    func frames(_ name: String) throws -> [(time: Double, duration: Double?, pixel: RGBPixel)] {
        let decoder = try VideoDecoder(data: try VideoFixture.data(name))
        var result: [(time: Double, duration: Double?, pixel: RGBPixel)] = []
        while let time = try decoder.decodeNext() {
            let picture = try #require(decoder.picture(width: decoder.info.width, height: decoder.info.height, fit: .fill, pixelAspect: 1))
            result.append((time, decoder.frameDuration, picture[picture.width / 2, picture.height / 2]))
        }
        return result
    }

    @Test func eachFrameSaysItsOwnDelayTheLastOneToo() throws {
        let mixed = try frames("mixed.gif")
        #expect(mixed.map(\.time).map { ($0 * 100).rounded() } == [0, 5, 25, 75, 80, 100], "\(mixed.map(\.time))")
        #expect(mixed.map { (($0.duration ?? -1) * 100).rounded() } == [5, 20, 50, 5, 20, 50], "\(mixed.map(\.duration))")
        #expect(mixed.last?.pixel == RGBPixel(0, 0, 0), "the last frame is the black one")
        // 0 and 1 hundredths are 0.1 s, as browsers show them; 2 is 2.
        let fast = try frames("fast.gif")
        #expect(fast.map { (($0.duration ?? -1) * 100).rounded() } == [10, 10, 2], "\(fast.map(\.duration))")
        #expect(GIFInfo.read(try VideoFixture.data("fast.gif")).map { abs($0.duration - 0.22) < 0.001 } == true)
        // The viewer's frame timer ticks on the GIF's frame grid (the delays' common divisor),
        // not at FFmpeg's average rate (3.2 a second for mixed.gif, which skips its 50 ms frames).
        #expect(abs(try VideoDecoder(data: try VideoFixture.data("mixed.gif")).info.frameInterval - 0.05) < 1e-9)
        #expect(abs(try VideoDecoder(data: try VideoFixture.data("fast.gif")).info.frameInterval - 0.02) < 1e-9)
    }

    @Test func loopCountsAsBrowsersReadThem() throws {
        let forever = try #require(GIFInfo.read(try VideoFixture.data("mixed.gif")))
        #expect(forever.loopCount == 0 && forever.plays == nil)
        let twice = try #require(GIFInfo.read(try VideoFixture.data("twice.gif")))
        #expect(twice.loopCount == 1 && twice.plays == 2, "ImageMagick's -loop 2: \(twice)")
        let once = try #require(GIFInfo.read(try VideoFixture.data("once.gif")))
        #expect(!once.loops && once.loopCount == nil && once.plays == 1, "no loop block: \(once)")
        #expect(try VideoDecoder(data: try VideoFixture.data("twice.gif")).info.plays == 2)
        // Played once, but an animation still: its item lasts its own time, the last frame held.
        let onceInfo = try VideoDecoder(data: try VideoFixture.data("once.gif")).info
        #expect(onceInfo.plays == 1 && onceInfo.loops)
        #expect(try VideoDecoder(data: try VideoFixture.data("mixed.gif")).info.loops == true)
        #expect(try VideoDecoder(data: try VideoFixture.data("colors.mp4")).info.plays == 1, "a video plays once")
        // A loop block cut before its count: for ever, and never read past the bytes.
        let data = try VideoFixture.data("twice.gif")
        let block = try #require(data.firstRange(of: Data("NETSCAPE2.0".utf8)))
        for cut in block.upperBound..<(block.upperBound + 4) {
            #expect(GIFInfo.read(data.prefix(cut))?.loopCount == nil, "cut at \(cut)")
        }
    }

    /// The one looping arithmetic (`PassClock`): passes of 1.5 s follow on where the last
    /// frame gave way, passes left behind are skipped (no more than are left to play), and
    /// only the last pass's last frame is the clip's last.
    @Test func passesFollowOnAndThoseLeftBehindAreSkipped() {
        var clock = PassClock(plays: 3, length: 1.5)
        #expect(clock.place(pts: 1.0, frameEnd: 1.5) == (1.0, 1.5))
        #expect(!clock.isLast(end: 1.5, looping: true), "two passes still to play")
        #expect(clock.isLast(end: 1.5, looping: false), "not looping: the first pass is the last")
        #expect(clock.playsAgain(looping: true) && !clock.playsAgain(looping: false))
        clock.nextPass(now: 1.6)
        #expect(clock.offset == 1.5 && clock.pass == 1)
        #expect(clock.place(pts: 0, frameEnd: 0.05) == (1.5, 1.55))
        clock.place(pts: 1.0, frameEnd: 1.5)
        clock.nextPass(now: 100) // a jump: passes left behind, but only one is left to play
        #expect(clock.pass == 2 && clock.offset == 3.0 && !clock.playsAgain(looping: true))
        #expect(clock.place(pts: 1.0, frameEnd: 1.5).end == 4.5 && clock.isLast(end: 4.5, looping: true))
        var forever = PassClock(plays: nil, length: 1.5)
        forever.place(pts: 1.0, frameEnd: 1.5)
        forever.nextPass(now: 31.6)
        #expect(forever.offset == 31.5 && forever.pass == 21 && forever.playsAgain(looping: true))
    }

    func player(_ name: String, loops: Bool) throws -> (PlayerPool, VideoPlayer) {
        let pool = PlayerPool(execution: .inline)
        let key = RenditionKey(location: name, width: 8, height: 4, depth: .direct)
        pool.keep([(key: key, data: try VideoFixture.data(name))])
        let player = try #require(pool.player(for: name))
        player.loops = loops
        return (pool, player)
    }

    func colour(_ player: VideoPlayer) -> (Int, Int, Int)? {
        guard case .rgb(let r, let g, let b)? = player.current?.cells[4, 2].foreground else { return nil }
        return (Int(r), Int(g), Int(b))
    }

    func isBlack(_ player: VideoPlayer) -> Bool { colour(player).map { $0.0 < 40 && $0.1 < 40 && $0.2 < 40 } ?? false }
    func isRed(_ player: VideoPlayer) -> Bool { colour(player).map { $0.0 > 200 && $0.1 < 60 && $0.2 < 60 } ?? false }
    func isLime(_ player: VideoPlayer) -> Bool { colour(player).map { $0.0 < 60 && $0.1 > 200 && $0.2 < 60 } ?? false }

    /// The viewer's player, its clock ticking every 20 ms: the last frame (black, 1.0–1.5 s)
    /// holds its whole 0.5 s before the next pass begins with red, pass after pass.
    @Test func theLastFrameOfEachLoopHoldsItsWholeDelay() throws {
        let (_, player) = try player("mixed.gif", loops: true)
        player.play()
        var seen: [(time: Double, black: Bool, red: Bool)] = []
        for tick in 1...320 {
            let time = Double(tick) * 0.02
            player.advance(to: time)
            seen.append((time, isBlack(player), isRed(player)))
        }
        for pass in 0..<4 {
            let base = Double(pass) * 1.5
            let last = seen.filter { $0.time > base + 1.01 && $0.time < base + 1.49 }
            #expect(!last.isEmpty && last.allSatisfy(\.black), "pass \(pass): black from \(base + 1.0) to \(base + 1.5) s: \(last.map(\.black))")
            let next = seen.filter { $0.time > base + 1.51 && $0.time < base + 1.55 }
            #expect(!next.isEmpty && next.allSatisfy(\.red), "pass \(pass + 1) begins with red at \(base + 1.5) s")
        }
        #expect(player.endedAt == nil)
    }

    /// A count of 1 plays twice and stops on its last frame, which holds its delay: the
    /// stream ends at 0.6 s, not after one pass nor a third.
    @Test func aLoopCountPlaysThatManyTimesAndEndsAfterTheLastDelay() throws {
        let (_, twice) = try player("twice.gif", loops: true)
        twice.play()
        for step in 1...40 { twice.advance(to: Double(step) * 0.025) }
        let end = try #require(twice.endedAt, "two plays, then the end")
        #expect(abs(end - 0.6) < 0.001, "ended at \(end)")
        // A clock that jumps past the end (the app suspended): the last frame is what stays.
        let (_, jumped) = try player("twice.gif", loops: true)
        jumped.play()
        jumped.advance(to: 0.05)
        for _ in 0..<4 { jumped.advance(to: 5) }
        #expect(jumped.endedAt.map { abs($0 - 0.6) < 0.001 } == true, "\(String(describing: jumped.endedAt))")
        #expect(isLime(jumped), "the last frame, lime: \(String(describing: colour(jumped)))")
        let (_, once) = try player("once.gif", loops: true) // the plan loops every GIF; its block says once
        once.play()
        for step in 1...20 { once.advance(to: Double(step) * 0.025) }
        #expect(once.endedAt.map { abs($0 - 0.3) < 0.001 } == true, "once: \(String(describing: once.endedAt))")
    }

    /// Disposal to the background: the square that moved leaves nothing behind (transparent,
    /// shown as the viewer's black, not FFmpeg's default white). To the previous picture:
    /// the yellow square is gone when the white one comes, the red under it back.
    @Test func disposalToTheBackgroundAndToThePreviousPicture() throws {
        let decoder = try VideoDecoder(data: try VideoFixture.data("sprite.gif"))
        var pictures: [RGBImage] = []
        while try decoder.decodeNext() != nil {
            pictures.append(try #require(decoder.picture(width: 8, height: 8, fit: .fill, pixelAspect: 1)))
        }
        try #require(pictures.count == 2)
        #expect(pictures[0][1, 1] == RGBPixel(255, 0, 0) && pictures[0][6, 6] == RGBPixel(0, 0, 0), "first: red top left, black elsewhere")
        #expect(pictures[1][1, 1] == RGBPixel(0, 0, 0), "second: the first square disposed (\(pictures[1][1, 1]))")
        #expect(pictures[1][6, 6] == RGBPixel(255, 0, 0))
        let previous = try VideoDecoder(data: try VideoFixture.data("previous.gif"))
        var restored: [RGBImage] = []
        while try previous.decodeNext() != nil {
            restored.append(try #require(previous.picture(width: 8, height: 8, fit: .fill, pixelAspect: 1)))
        }
        try #require(restored.count == 3)
        #expect(restored[1][5, 1] == RGBPixel(255, 255, 0), "the yellow square")
        #expect(restored[2][5, 1] == RGBPixel(255, 0, 0), "gone with the next frame, the red under it back")
        #expect(restored[2][1, 7] == RGBPixel(255, 255, 255), "the white square")
    }
}
