import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import Testing

/// Issue 48, point 6: the video the person most likely goes to next waits opened at its first
/// frame, paused and silent, in the pool's second place; shown, that same player plays at
/// once. A turn that needs both places takes the second back.
@MainActor
@Suite struct WarmPlayerTests {
    static let liftoff = VideoPlaybackTests.liftoff
    static let life = VideoPlaybackTests.life

    /// A text card, then a video, in one story; a second story whose first item is a video.
    static func feed() -> MemoryFeed {
        let story = Story(id: "t", author: Author(name: "Tee"), items: [
            StoryItem(id: "t1", content: .text("before the video", background: RGB(0, 0, 0)), duration: 5),
            StoryItem(id: "t2", content: .video(Media(location: liftoff))),
        ])
        let other = Story(id: "w", author: Author(name: "Wes"), items: [
            StoryItem(id: "w1", content: .video(Media(location: life))),
        ])
        return MemoryFeed(load: FeedLoad(stories: [story, other], warnings: []))
    }

    @Test func theNextVideoWaitsOpenedAndPlaysTheMomentItIsShown() throws {
        let driver = AppDriver(width: 60, height: 24, source: Self.feed())
        driver.press(.key(.enter))
        driver.settle()
        let pool = driver.services.players
        #expect(driver.engine.state.warmPlayer == Self.liftoff)
        let warm = try #require(pool.player(for: Self.liftoff), "held ready for the next item")
        #expect(!warm.isPlaying && warm.current?.time == 0, "paused at its first frame")
        #expect(driver.snapshot().contains("before the video"), "not shown")
        driver.wait(1)
        #expect(warm.current?.time == 0, "it waits where it is")

        driver.press(.key(.character("l")))
        #expect(pool.player(for: Self.liftoff) === warm, "the same player, not a new one")
        #expect(warm.isPlaying)
        #expect(!driver.engine.state.awaitsMedia, "its first frame is there with the input")
        #expect(driver.engine.state.warmPlayer == Self.life, "and the next story's video is made ready")
        driver.wait(0.5)
        #expect((warm.current?.time ?? 0) > 0.3, "it plays on")
        #expect(pool.decoders.peak <= PlayerPool.capacity)
    }

    /// A warm video with a sound track gets no sound player until it is shown; then it does.
    @Test func theWarmVideoIsSilentUntilShown() throws {
        let driver = AppDriver(width: 60, height: 24, source: Self.feed())
        driver.press(.key(.enter))
        driver.press(.key(.character("l"))) // the video; the next story's (with sound) made ready
        driver.settle()
        #expect(driver.engine.state.warmPlayer == Self.life)
        #expect(driver.engine.state.media.videos[Self.life]?.hasAudio == true, "opened: its track is known")
        #expect(!driver.engine.state.media.playerPlan.sounds.contains { $0.location == Self.life }, "no sound player for it")
        #expect(driver.services.players.player(for: Self.life)?.framesShown == 0, "nothing of it shown")
        driver.press(.key(.character("]")))
        driver.settle()
        #expect(driver.engine.state.media.playerPlan.sounds.contains { $0.location == Self.life }, "shown: its sound player")
    }

    /// A cube turn to the next story takes both places: the warm player is the arriving one.
    @Test func aTurnToTheWarmVideoUsesTheSamePlayer() throws {
        let driver = AppDriver(width: 60, height: 24, source: Self.feed(), motion: true)
        driver.press(.key(.enter))
        driver.wait(1)
        driver.press(.key(.character("l")))
        driver.wait(1)
        let pool = driver.services.players
        let warm = try #require(pool.player(for: Self.life))
        driver.press(.key(.character("]")))
        #expect(driver.engine.state.viewing.transition != nil)
        #expect(Set(pool.players.keys) == [Self.liftoff, Self.life], "the leaving and the arriving video")
        #expect(pool.player(for: Self.life) === warm)
        #expect(driver.engine.state.warmPlayer == nil, "no place free during the turn")
        #expect(pool.decoders.peak <= PlayerPool.capacity)
    }

    /// With preloading off nothing is held ready: only what is shown has a player.
    @Test func withPreloadingOffOnlyTheShownVideoHasAPlayer() {
        let driver = AppDriver(width: 60, height: 24, source: Self.feed(), preload: .off)
        driver.press(.key(.enter))
        driver.settle()
        #expect(driver.engine.state.warmPlayer == nil)
        #expect(driver.services.players.players.isEmpty)
    }
}
