import StoriesFeedIO
import Foundation
import StoriesAssets
import StoriesCore

/// The demo feed's photos and videos, as the pool a synthetic feed hands out: so
/// `--synthetic N` shows real photos and videos, fetched, decoded and played like any other,
/// at any scale. Empty when the demo feed is missing (the synthetic photos are then
/// BlurHash only).
public func demoMediaPool() -> [SyntheticFeed.Photo] {
    guard let directory = DemoFeed.directory, let feed = try? FeedFolder(directory: directory) else { return [] }
    var seen = Set<String>()
    var pool: [SyntheticFeed.Photo] = []
    for story in feed.loadAll().stories {
        for item in story.items {
            guard let media = item.content.media, seen.insert(media.location).inserted,
                  let data = try? feed.media(at: media.location, maxBytes: 16 << 20) else { continue }
            pool.append(SyntheticFeed.Photo(data: data, width: media.width, height: media.height, blurhash: media.blurhash,
                                             isVideo: { if case .video = item.content { true } else { false } }()))
        }
    }
    return pool
}
