import Foundation
import Testing
@testable import StoriesCore

/// Issue 30, point 5: an animated GIF is played as a video item, over and over for its
/// item's duration — whether the feed says "video" or "photo" (its bytes decide).
@Suite struct AnimationItemTests {
    static let photo = Media(location: "a/cat.gif")
    static let clip = Media(location: "a/clip.mp4")

    static func harness() -> ReducerHarness {
        let story = Story(id: "a", author: Author(name: "A"), items: [
            StoryItem(id: "cat", content: .image(photo), duration: 5),
            StoryItem(id: "clip", content: .video(clip), duration: 5),
        ])
        var h = ReducerHarness(stories: [story])
        h.send(.resized(width: 80, height: 24))
        h.send(.open)
        return h
    }

    @Test func aPhotoWhoseBytesMoveIsPlayedAsAVideoThatLoops() {
        var h = Self.harness()
        h.send(.media(Self.photo.location, .ready))
        #expect(h.state.visibleVideo == nil, "a still photo: no player")
        #expect(h.state.livePlayers == [Self.clip.location] && h.state.warmPlayer == Self.clip.location,
                "no player of its own; the next item's video held ready")
        var news = PictureNews(Self.photo.location, .ready)
        news.isAnimation = true
        h.send(.mediaNews(.pictures([news])))
        #expect(h.state.visibleVideo == Self.photo, "its bytes are an animation: played as a video")
        #expect(h.state.livePlayers == [Self.photo.location, Self.clip.location])
        #expect(h.state.media.playerPlan.videos.map(\.location) == [Self.photo.location])
        #expect(h.state.media.playerPlan.videos.first?.loops == false, "not known to loop until its player says so")
        h.send(.video(Self.photo.location, .opened(duration: 1.0, frameInterval: 0.25, hasAudio: false, loops: true)))
        #expect(h.state.media.playerPlan.videos.first?.loops == true, "the plan tells the player to loop")
        let item = h.state.feed.store.story(at: 0)?.items[0]
        #expect(item.map(h.state.duration(of:)) == 5, "a 1 s animation loops for its item's 5 s")
        // Its end (a player that ran to the end before it was told to loop) ends nothing.
        h.send(.video(Self.photo.location, .ended(at: 1.0)))
        #expect(item.map(h.state.duration(of:)) == 5)
    }

    @Test func anAnimationLongerThanItsItemPlaysThroughOnceAndNoLongerThanAMinute() {
        var h = Self.harness()
        let item = h.state.feed.store.story(at: 0)?.items[1]
        h.send(.video(Self.clip.location, .opened(duration: 8, frameInterval: 0.1, hasAudio: false, loops: true)))
        #expect(item.map(h.state.duration(of:)) == 8, "once through")
        h.send(.video(Self.clip.location, .opened(duration: 500, frameInterval: 0.1, hasAudio: false, loops: true)))
        #expect(item.map(h.state.duration(of:)) == AppState.maxLoopedDuration)
        h.send(.video(Self.clip.location, .opened(duration: 8, frameInterval: 0.1, hasAudio: false, loops: false)))
        h.send(.video(Self.clip.location, .ended(at: 7.5)))
        #expect(item.map(h.state.duration(of:)) == 7.5, "a video that does not loop ends where its stream did")
    }
}
