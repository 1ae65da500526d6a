import Foundation
import Testing
@testable import StoriesCore

/// Each feature runs on its own slice alone, without an `AppState`: what it needs of the
/// rest comes in its context, and what it asks of the rest goes out, in order, as effects
/// and delegate values.
@Suite struct FeatureReducerTests {
    @Test func theViewerDismissesOnItsSliceAndAsksTheRestInOrder() {
        var viewing = ViewingState()
        viewing.screen = .viewer(ViewerState(storyIndex: 3, itemIndex: 1, startedAt: 0))
        var out = FeatureOutput()
        ViewerFeature.reduce(&viewing, .dismiss, context: .init(now: 5, reduceMotion: false), into: &out)
        #expect(viewing.screen == .home)
        #expect(viewing.transition != nil, "the dismiss zooms into the bubble")
        #expect(out.items.map(\.delegateValue) == [.select(3), .endGesture])
    }

    @Test func theViewerStartsProgressWhenItsAnimationEnds() throws {
        var viewing = ViewingState()
        var out = FeatureOutput()
        ViewerFeature.reduce(&viewing, .show(story: 0, item: 0), context: .init(now: 10, reduceMotion: false), into: &out)
        let end = try #require(viewing.transition?.timeline.end)
        #expect(end > 10)
        #expect(viewing.viewer?.playback.runningSince == end)
        #expect(out.items.map(\.delegateValue) == [.itemShown])
        // Without motion: a cut, and progress from now.
        var cut = ViewingState()
        ViewerFeature.reduce(&cut, .show(story: 0, item: 0), context: .init(now: 10, reduceMotion: true), into: &out)
        #expect(cut.transition == nil)
        #expect(cut.viewer?.playback.runningSince == 10)
    }

    @Test func anItemPastItsTimeMovesOnOrWaitsAtItsEnd() {
        var viewing = ViewingState()
        viewing.screen = .viewer(ViewerState(storyIndex: 0, itemIndex: 0, startedAt: 0))
        var out = FeatureOutput()
        ViewerFeature.reduce(&viewing, .checkEnd(duration: 5, waits: false), context: .init(now: 4.9, reduceMotion: false), into: &out)
        #expect(out.items.isEmpty, "not yet")
        ViewerFeature.reduce(&viewing, .checkEnd(duration: 5, waits: false), context: .init(now: 5, reduceMotion: false), into: &out)
        #expect(out.items.map(\.delegateValue) == [.command(.nextItem)])
        var waiting = FeatureOutput()
        ViewerFeature.reduce(&viewing, .checkEnd(duration: 5, waits: true), context: .init(now: 6, reduceMotion: false), into: &waiting)
        #expect(waiting.items.isEmpty)
        #expect(viewing.viewer?.isPaused == true)
        #expect(viewing.viewer?.playback.elapsed(at: 9) == 5, "held at its end")
    }

    @Test func aPreloadSetGoesOutOnlyWhenItChanged() {
        var media = MediaState()
        media.status = ["a.jpg": .ready, "b.jpg": .failed("no")]
        let request = PreloadRequest(targets: [], width: 80, height: 24, fit: true, display: Display())
        var out = FeatureOutput()
        MediaFeature.reduce(&media, .preload(request), context: 0, into: &out)
        #expect(out.items.count == 1)
        MediaFeature.reduce(&media, .preload(request), context: 0, into: &out)
        #expect(out.items.count == 1, "the same set is not handed out again")
        // Another size: renditions made so far are stale, failures are kept.
        MediaFeature.reduce(&media, .preload(PreloadRequest(targets: [], width: 100, height: 30, fit: true, display: Display())),
                            context: 0, into: &out)
        #expect(out.items.count == 2)
        #expect(media.status == ["b.jpg": .failed("no")])
    }

    /// A plan with only a sound (a voice note) goes out as a plan with a video does; one
    /// with neither, after one with neither, does not.
    @Test func aPlanWithOnlyASoundGoesOut() {
        var media = MediaState()
        var out = FeatureOutput()
        MediaFeature.reduce(&media, .players(PlayerPlan(width: 80, height: 24), clock: nil), context: 0, into: &out)
        #expect(out.items.isEmpty, "nothing before, nothing now")
        let note = PlayerPlan(sounds: [PlayerPlan.Sound(location: "n.ogg", audible: true)], width: 80, height: 24)
        MediaFeature.reduce(&media, .players(note, clock: nil), context: 0, into: &out)
        #expect(out.items.count == 1, "the voice note's sound player is asked for")
        MediaFeature.reduce(&media, .players(PlayerPlan(width: 80, height: 24), clock: nil), context: 0, into: &out)
        #expect(out.items.count == 2, "and let go")
    }

    @Test func aPhotoThatMayComeLaterIsRetriedWithBackoff() {
        var media = MediaState()
        var out = FeatureOutput()
        MediaFeature.reduce(&media, .news(.pictures([PictureNews("p.jpg", .unreachable("timed out"))])),
                            context: 100, into: &out)
        #expect(media.retries.keys == ["p.jpg"])
        #expect(out.items.map(\.delegateValue) == [.sourceFailed("timed out"), nil])
        guard case .effect(.wake(.retryMedia, let after))? = out.items.last else {
            Issue.record("no wake-up for the retry: \(out.items)")
            return
        }
        #expect(after > 0)
    }

    @Test func aFeedRetriesOnlyTheStoriesThePersonIsOn() {
        var feed = FeedState()
        feed.storyRetries.failed("a", reason: "x", at: 0)
        feed.storyRetries.failed("b", reason: "x", at: 0)
        var out = FeatureOutput()
        FeedFeature.reduce(&feed, .retryStories(["a", "b"], wanted: ["a"], recovered: true),
                           context: .init(now: 50, rowIsStill: true, selected: nil), into: &out)
        #expect(feed.storyRetries.keys == ["a"], "a is asked again and stays counted; b is let go")
        #expect(out.items.compactMap(\.delegateValue) == [.ringChanged(["a"]), .ringChanged(["b"])])
    }
}

extension FeatureOutput.Item {
    var delegateValue: Delegate? {
        if case .delegate(let value) = self { return value }
        return nil
    }
}
