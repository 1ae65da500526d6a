import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing

/// Video items through the real engine on the virtual clock: players decode inline, so the
/// same frames come at the same moments every run.
@MainActor
@Suite struct VideoPlaybackTests {
    static let liftoff = "media/liftoff.mp4"     // 6 s, 24 fps, H.264
    static let life = "media/life.webm"          // 6 s, 15 fps, VP9 with sound

    /// One story: a video whose feed entry says 2 s (the container says 6), then a text card.
    static func videoFeed(feedDuration: Double = 2) -> MemoryFeed {
        let story = Story(id: "v", author: Author(name: "Vee Dee"), items: [
            StoryItem(id: "v1", content: .video(Media(location: liftoff)), duration: feedDuration),
            StoryItem(id: "v2", content: .text("after the video", background: RGB(0, 0, 0))),
        ])
        let other = Story(id: "w", author: Author(name: "Wes"), items: [
            StoryItem(id: "w1", content: .video(Media(location: life))),
        ])
        return MemoryFeed(load: FeedLoad(stories: [story, other], warnings: []))
    }

    func opened(_ feed: MemoryFeed = videoFeed(), pauseOnBlur: Bool = true) -> AppDriver {
        let driver = AppDriver(width: 60, height: 24, source: feed, pauseOnBlur: pauseOnBlur)
        driver.press(.key(.enter))
        driver.settle()
        return driver
    }

    /// The progress bar's filled cells of the current segment (the first, here).
    func filled(_ driver: AppDriver) -> Int {
        let bar = driver.lines.first ?? ""
        return bar.filter { $0 == "━" }.count
    }

    @Test func theItemLastsAsLongAsTheVideoAndTheBarFollowsIt() {
        let driver = opened()
        #expect(driver.engine.state.media.videos[Self.liftoff]?.duration == 6)
        #expect(driver.engine.state.duration(of: driver.engine.state.feed.store.story(at: 0)!.items[0]) == 6)
        driver.wait(3)
        #expect(driver.engine.state.viewer?.itemIndex == 0, "the feed's 2 s do not end a 6 s video")
        let half = filled(driver)
        driver.wait(1.5)
        #expect(filled(driver) > half, "the bar moves on with the video")
        driver.wait(1.6)
        #expect(driver.engine.state.viewer?.itemIndex == 1, "the item ends when the video ends")
        #expect(driver.snapshot().contains("after the video"))
    }

    @Test func theFeedsDurationStandsInOnlyWhenTheVideoCannotSay() {
        var state = AppState(title: "", now: Fixture.moment)
        let item = StoryItem(id: "x", content: .video(Media(location: "x.mp4")), duration: 4)
        #expect(state.duration(of: item) == 4, "nothing known yet")
        state.media.videos["x.mp4"] = VideoStatus(duration: nil)
        #expect(state.duration(of: item) == 4, "the container has no length")
        state.media.videos["x.mp4"]?.duration = 9
        #expect(state.duration(of: item) == 9)
        state.media.videos["x.mp4"]?.endedAt = 8.5
        #expect(state.duration(of: item) == 8.5, "where the stream really ended wins")
        state.media.videos["x.mp4"]?.failure = "no decoder"
        #expect(state.duration(of: item) == 4, "a video that cannot play shows its reason for the feed's time")
    }

    /// The item shown again (← on the first item starts it over) starts its video over: the
    /// reducer's plan says so with a new run; the player itself never rewinds.
    @Test func aVideoShownAgainStartsOverBecauseThePlanSaysSo() {
        let driver = opened()
        driver.wait(1)
        let player = driver.services.players.player(for: Self.liftoff)
        #expect((player?.current?.time ?? 0) > 0.5)
        let run = driver.state.media.playerPlan.videos.first?.run
        driver.press(.key(.left))
        #expect(driver.position?.item == 0)
        #expect(driver.state.media.playerPlan.videos.first?.run != run, "a new showing")
        #expect(player?.current?.time == 0, "from its first frame")
        driver.wait(0.5)
        #expect((player?.current?.time ?? 0) > 0.3)
    }

    /// Ctrl-Z: the reducer stops what plays (the runtime no longer reads the state to
    /// decide) without making it the person's pause: after `fg` it plays on, and what the
    /// person had paused stays paused (issue 29, point 5).
    @Test func suspendingStopsThroughTheReducerAndResumingPlaysOnAsItWas() {
        let driver = opened()
        driver.deliver(.app(.suspend))
        #expect(driver.state.viewer?.isPaused == false && driver.state.viewer?.playback.isRunning == false)
        driver.deliver(.app(.suspend))
        #expect(driver.state.viewer?.playback.isRunning == false, "not a toggle")
        driver.deliver(.app(.resume))
        #expect(driver.state.viewer?.playback.isRunning == true, "plays on after fg")
        driver.press(.key(.character(" ")))
        driver.deliver(.app(.suspend))
        driver.deliver(.app(.resume))
        #expect(driver.state.viewer?.isPaused == true && driver.state.viewer?.playback.isRunning == false, "paused stays paused")
    }

    /// The terminal window in the background: playback waits and nothing more is seen; in
    /// front again it plays on. `pause-on-blur = off` lets it run.
    @Test func inTheBackgroundPlaybackWaitsAndNothingMoreIsSeen() {
        let driver = opened()
        driver.deliver(.app(.focus(false)))
        let elapsed = driver.state.viewer?.playback.elapsed(at: driver.now.uptime) ?? -1
        driver.wait(20)
        #expect(driver.state.viewer?.playback.elapsed(at: driver.now.uptime) == elapsed, "the bar stands still")
        #expect(driver.text.contains("❚❚ in the background"))
        #expect(driver.state.viewer?.isPaused == false)
        driver.deliver(.app(.focus(true)))
        driver.wait(0.5)
        #expect((driver.state.viewer?.playback.elapsed(at: driver.now.uptime) ?? 0) > elapsed)
        #expect(!driver.text.contains("in the background"))
        // With pause-on-blur off, the story runs on behind other windows.
        let running = opened(pauseOnBlur: false)
        running.deliver(.app(.focus(false)))
        let before = running.state.viewer?.playback.elapsed(at: running.now.uptime) ?? -1
        running.wait(0.5)
        #expect((running.state.viewer?.playback.elapsed(at: running.now.uptime) ?? 0) > before)
    }

    @Test func aPlayingVideoChangesOnScreenAndStandsStillWhenPaused() {
        let driver = opened()
        let first = driver.snapshot(styles: true)
        driver.wait(1)
        let later = driver.snapshot(styles: true)
        #expect(first != later, "the zoom moves on")
        let player = driver.services.players.player(for: Self.liftoff)
        #expect(player?.isPlaying == true)
        #expect((player?.framesShown ?? 0) >= 20, "24 fps for a second: \(player?.framesShown ?? 0)")
        driver.press(.key(.character(" ")))
        let paused = driver.snapshot(styles: true)
        driver.wait(1)
        #expect(driver.snapshot(styles: true) == paused, "paused: the same frame, the same bar")
        #expect(player?.isPlaying == false)
        driver.press(.key(.character(" ")))
        driver.wait(0.5)
        #expect(driver.snapshot(styles: true) != paused)
    }

    @Test func aStallStopsTheBarAndSaysSo() {
        let driver = opened()
        driver.wait(1)
        driver.deliver(.video(Self.liftoff, .stalled))
        #expect(driver.engine.state.viewer?.playback.isRunning == false)
        let bar = filled(driver)
        #expect(driver.snapshot().contains("◌ buffering"))
        driver.wait(2)
        #expect(filled(driver) == bar, "no running bar over a frozen picture")
        driver.deliver(.video(Self.liftoff, .resumed))
        #expect(driver.engine.state.viewer?.playback.isRunning == true)
        driver.wait(1)
        #expect(filled(driver) > bar)
        #expect(!driver.snapshot().contains("buffering"))
    }

    @Test func aVideoWithSoundShowsTheMutedMark() {
        let driver = opened()
        driver.press(.key(.character("]")))
        driver.settle()
        #expect(driver.engine.state.media.videos[Self.life]?.hasAudio == true)
        #expect(driver.lines[1].contains("🔇"))
    }

    @Test func movingOnReleasesThePlayerAtOnce() {
        let driver = opened()
        let pool = driver.services.players
        #expect(pool.players.count == 1 && pool.decoders.current == 1)
        driver.press(.key(.character("l"))) // the text card
        #expect(pool.player(for: Self.liftoff) == nil, "the video left is let go at once")
        driver.settle()
        #expect(driver.engine.state.warmPlayer == Self.life)
        #expect(pool.players.keys.sorted() == [Self.life], "only the next story's, held ready")
        driver.press(.key(.character("h"))) // back: a new player from the start
        #expect(pool.players.count == 1)
        #expect(driver.services.players.player(for: Self.liftoff)?.current?.time == 0)
        driver.press(.key(.character("]")))
        #expect(pool.players.keys.sorted() == [Self.life])
        #expect(pool.decoders.peak <= PlayerPool.capacity)
    }

    @Test func aCubeTurnKeepsTwoPlayersAndDropsTheOldOneWhenItEnds() {
        let driver = AppDriver(width: 60, height: 24, source: Self.videoFeed(), motion: true)
        driver.press(.key(.enter))
        driver.wait(1) // the present animation, then a second of video
        let pool = driver.services.players
        driver.press(.key(.character("]")))
        #expect(driver.engine.state.viewing.transition != nil)
        #expect(Set(pool.players.keys) == [Self.liftoff, Self.life], "both stories' videos during the turn")
        let leaving = pool.player(for: Self.liftoff)
        let held = leaving?.current
        driver.wait(0.1)
        #expect(pool.player(for: Self.life)?.current?.time == 0, "the incoming one shows its first frame")
        #expect(leaving?.current == held, "the outgoing one holds its last frame")
        driver.wait(1)
        #expect(driver.engine.state.viewing.transition == nil)
        #expect(pool.players.keys.sorted() == [Self.life], "released once the turn completed")
        #expect(pool.decoders.current == 1 && pool.decoders.peak <= 2)
    }

    /// A video that cannot be shown says why; its progress waits and it is not marked seen
    /// (issue 28: nothing counts as seen that was not shown); a tap goes on.
    @Test func aVideoThatCannotPlaySaysWhyAndTheStoryGoesOnWithATap() {
        let broken = Story(id: "b", author: Author(name: "Bea"), items: [
            StoryItem(id: "b1", content: .video(Media(location: "bad.mp4")), duration: 2),
            StoryItem(id: "b2", content: .text("still here", background: RGB(0, 0, 0))),
        ])
        let feed = MemoryFeed(load: FeedLoad(stories: [broken], warnings: []), media: { location, _ in
            location == "bad.mp4" ? Data("this is a text file named .mp4\n".utf8) : nil
        })
        let driver = opened(feed)
        #expect(driver.snapshot().contains("cannot play this video"))
        #expect(driver.snapshot().contains("neither a photo"))
        driver.wait(2.1)
        #expect(!driver.snapshot().contains("still here"), "the bar waits under the reason")
        #expect(driver.engine.state.viewer?.playback.isRunning == false)
        #expect(driver.engine.state.seen.unseenCount(story: "b", items: ["b1", "b2"]) == 2, "nothing shown, nothing seen")
        driver.press(.key(.right))
        #expect(driver.snapshot().contains("still here"))
        #expect(driver.engine.state.seen.unseenCount(story: "b", items: ["b1", "b2"]) == 1)
    }

    @Test func videoItemsArePreloadedLikePhotosWithoutLiveDecoders() {
        let driver = AppDriver(width: 60, height: 24, source: Self.videoFeed())
        driver.settle()
        // On the row: both stories' first items are in the feed layer: posters ready, no player.
        let state = driver.engine.state
        #expect(state.media.status[Self.liftoff] == .ready && state.media.status[Self.life] == .ready)
        #expect(driver.services.players.players.isEmpty && driver.services.players.decoders.peak == 0)
        #expect(driver.services.pictures.cache.videoData(for: Self.life) != nil, "its bytes wait for its player")
    }
}
