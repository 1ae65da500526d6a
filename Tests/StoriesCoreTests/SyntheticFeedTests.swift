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

    @Test func photosAreBlurHashOnlyAndNameNoFile() throws {
        let feed = SyntheticFeed(count: 30)
        var photos = 0
        for story in feed.loadAll().stories {
            for item in story.items {
                guard case .image(let media) = item.content else { continue }
                photos += 1
                #expect(media.location.hasPrefix(SyntheticFeed.scheme))
                #expect(media.blurhash?.count == 28)
                #expect(try feed.media(at: media.location, maxBytes: 1 << 20) == nil)
            }
        }
        #expect(photos > 10)
    }

    @Test func pagesOfTenChainByCursorToTheEnd() throws {
        let feed = SyntheticFeed(count: 1012)
        var cursor: FeedCursor?
        var ids: [StoryID] = []
        var pages = 0
        repeat {
            let page = try feed.page(after: cursor, limit: 10)
            pages += 1
            #expect(page.stories.count == (page.nextCursor == nil ? 2 : 10))
            for summary in page.stories {
                // The summary agrees with the story its items come from.
                let load = try feed.story(id: summary.id)
                #expect(StorySummary(load.story) == summary)
                #expect(load.bytes > 0)
            }
            ids += page.stories.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(pages == 102)
        #expect(ids.count == 1012 && Set(ids).count == 1012)
        #expect(throws: FeedError.self) { try feed.page(after: "nonsense", limit: 10) }
        #expect(throws: FeedError.self) { try feed.page(after: "5000", limit: 10) }
        #expect(throws: FeedError.self) { try feed.story(id: "s99999") }
    }

    @Test func aVideoInThePoolIsHandedOutAsVideoItems() throws {
        let pool = [SyntheticFeed.Photo(data: Data([1, 2, 3]), width: 10, height: 20, blurhash: "h0"),
                    SyntheticFeed.Photo(data: Data([9, 9]), width: 288, height: 512, blurhash: "h1", isVideo: true)]
        let feed = SyntheticFeed(count: 40, photos: pool)
        var photos = 0, videos = 0
        for index in 0..<40 {
            for item in feed.story(index).items {
                switch item.content {
                case .image(let media):
                    photos += 1
                    #expect(try feed.media(at: media.location, maxBytes: 100) == Data([1, 2, 3]))
                case .video(let media):
                    videos += 1
                    #expect(try feed.media(at: media.location, maxBytes: 100) == Data([9, 9]))
                    #expect(media.width == 288 && media.height == 512)
                case .audio: Issue.record("the synthetic feed has no voice notes")
                case .text: break
                }
            }
        }
        #expect(photos > 10 && videos > 10, "\(photos) photos, \(videos) videos")
    }

    @Test func givenAPoolEveryPhotoItemHasItsOwnLocationAndThePoolsBytes() throws {
        let pool = [SyntheticFeed.Photo(data: Data([1, 2, 3]), width: 10, height: 20, blurhash: "h0"),
                    SyntheticFeed.Photo(data: Data([4, 5]), width: 30, height: 40, blurhash: "h1")]
        let feed = SyntheticFeed(count: 40, photos: pool)
        var locations = Set<String>()
        for index in 0..<40 {
            for item in feed.story(index).items {
                guard case .image(let media) = item.content else { continue }
                #expect(locations.insert(media.location).inserted, "one location per item")
                let data = try #require(try feed.media(at: media.location, maxBytes: 100))
                let photo = try #require(pool.first { $0.data == data })
                #expect(media.blurhash == photo.blurhash && media.width == photo.width)
            }
        }
        #expect(locations.count > 40)
        #expect(throws: FeedError.self) { try feed.media(at: "synthetic:7/x", maxBytes: 100) }
        #expect(throws: FeedError.self) { try feed.media(at: "synthetic:0/x", maxBytes: 2) }
        #expect(try SyntheticFeed(count: 3).media(at: "synthetic:s00000-1", maxBytes: 100) == nil, "no pool: BlurHash only")
    }
}
