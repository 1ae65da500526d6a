import Foundation
import Testing
@testable import StoriesCore

@Suite struct SyntheticFeedTests {
    @Test func theSameCountAndSeedMakeTheSameFeed() {
        #expect(SyntheticFeed(count: 50).loadAll() == SyntheticFeed(count: 50).loadAll())
        #expect(SyntheticFeed(count: 50, seed: 2).loadAll() != SyntheticFeed(count: 50).loadAll())
    }

    @Test func storiesHaveUniqueIdsAndTwoToSixItems() {
        let load = SyntheticFeed(count: 1012).loadAll()
        #expect(load.stories.count == 1012)
        #expect(load.warnings.isEmpty)
        #expect(Set(load.stories.map(\.id)).count == 1012)
        for story in load.stories {
            #expect((2...6).contains(story.items.count))
            #expect(Set(story.items.map(\.id)).count == story.items.count)
            #expect(!story.author.name.isEmpty)
        }
        let names = load.stories.map(\.author.name)
        #expect(names.contains { $0.unicodeScalars.contains { (0x0600...0x06FF).contains($0.value) } })
        #expect(names.contains { $0.unicodeScalars.contains { $0.properties.isEmojiPresentation } })
    }

    @Test func photosAreBlurHashOnlyAndNameNoFile() {
        let feed = SyntheticFeed(count: 30)
        var photos = 0
        for story in feed.loadAll().stories {
            for item in story.items {
                guard case .image(let media) = item.content else { continue }
                photos += 1
                #expect(media.location.hasPrefix(SyntheticFeed.scheme))
                #expect(media.blurhash?.count == 28)
                #expect(feed.mediaURL(for: media) == nil)
            }
        }
        #expect(photos > 10)
    }

    @Test func aThousandStoriesLoadAndNavigateLikeTen() {
        var state = AppState(title: "T", now: Moment(uptime: 0, date: Date(timeIntervalSince1970: 1_795_240_800)))
        _ = AppReducer.reduce(&state, .feedLoaded(SyntheticFeed(count: 1012).loadAll()), at: state.now)
        _ = AppReducer.reduce(&state, .command(.selectLast), at: state.now)
        #expect(state.selection == 1011)
        _ = AppReducer.reduce(&state, .command(.open), at: state.now)
        #expect(state.viewer?.storyIndex == 1011)
    }
}
