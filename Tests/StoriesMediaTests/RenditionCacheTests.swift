import Foundation
import StoriesAssets
import Testing
@testable import StoriesMedia

@Suite @MainActor struct RenditionCacheTests {
    func cells(_ width: Int, _ height: Int) -> CellImage {
        CellImage(pixels: RGBImage(width: width, height: height * 2), symbols: .half, depth: .direct)
    }

    @Test func keepsRenditionsPerSizeAndDepthAndEvictsTheLeastRecentlyUsed() {
        let one = cells(10, 10)
        let cache = RenditionCache(budget: one.byteCount * 2)
        let a = RenditionKey(location: "a.jpg", width: 10, height: 10, depth: .direct)
        let b = RenditionKey(location: "b.jpg", width: 10, height: 10, depth: .direct)
        let c = RenditionKey(location: "c.jpg", width: 10, height: 10, depth: .direct)
        #expect(cache.state(for: a) == .loading)
        cache.insert(one, for: a)
        cache.insert(one, for: b)
        #expect(cache.state(for: a) == .ready(one)) // a is now the most recently used
        cache.insert(one, for: c)
        #expect(cache.state(for: b) == .loading, "b was least recently used")
        #expect(cache.state(for: a) == .ready(one))
        #expect(cache.state(for: c) == .ready(one))
        #expect(cache.bytesInUse <= cache.budget)
        var other = a
        other.depth = .palette256
        #expect(cache.state(for: other) == .loading, "another depth is another rendition")
    }

    @Test func aFailureIsRememberedForTheFile() {
        let cache = RenditionCache()
        cache.recordFailure("not a JPEG or PNG image", for: "x.jpg")
        #expect(cache.state(for: RenditionKey(location: "x.jpg", width: 5, height: 5, depth: .direct)) == .failed("not a JPEG or PNG image"))
    }

    @Test func thePipelineDecodesOnceAndRerendersFromMemoryOnResize() async throws {
        let demo = try #require(DemoFeed.directory)
        let fetches = Counter()
        let files = readingFiles(in: demo)
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache) { location, maxBytes, done in
            fetches.add()
            return files(location, maxBytes, done)
        }
        let small = RenditionKey(location: "media/chelsea.jpg", width: 20, height: 10, depth: .palette256)
        await withCheckedContinuation { done in pipeline.request(small) { done.resume() } }
        guard case .ready(let cells) = cache.state(for: small) else { Issue.record("not ready"); return }
        #expect(cells.width == 20 && cells.height == 10)
        #expect(cache.decodedImage(for: "media/chelsea.jpg") != nil)

        // A resize: the pixels in memory are enough; nothing is fetched again.
        let big = RenditionKey(location: "media/chelsea.jpg", width: 40, height: 20, depth: .palette256)
        await withCheckedContinuation { done in pipeline.request(big) { done.resume() } }
        guard case .ready(let larger) = cache.state(for: big) else { Issue.record("not re-rendered"); return }
        #expect(larger.width == 40)
        #expect(fetches.value == 1)
    }

    @Test func aResizeStormDecodesTheFileOnceAndRendersTheNewestSize() async throws {
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache, fetch: readingFiles(in: try #require(DemoFeed.directory)))
        let sizes = [(20, 10), (30, 12), (40, 14), (50, 16)]
        let keys = sizes.map { RenditionKey(location: "media/hubble.jpg", width: $0.0, height: $0.1, depth: .palette256) }
        await withCheckedContinuation { done in
            var remaining = 2 // the first size, then the newest one that waited
            for key in keys {
                pipeline.request(key) {
                    remaining -= 1
                    if remaining == 0 { done.resume() }
                }
            }
        }
        #expect(pipeline.decodeCount == 1)
        #expect(cache.state(for: keys[0]) != .loading)
        #expect(cache.state(for: keys[3]) != .loading, "the newest size is rendered")
        #expect(cache.state(for: keys[1]) == .loading, "sizes overtaken while waiting are not")
    }

    @Test func theBlurHashStandsInWhileThePhotoDecodesThenThePhotoShows() async throws {
        let demo = try #require(DemoFeed.directory)
        let files = readingFiles(in: demo)
        let cache = RenditionCache()
        // Synthetic photos have no bytes: the fetch answers nil for them.
        let pipeline = PicturePipeline(cache: cache) { location, maxBytes, done in
            guard location.hasPrefix("synthetic:") else { return files(location, maxBytes, done) }
            done(.success(nil))
            return {}
        }
        let key = RenditionKey(location: "media/coffee.jpg", width: 12, height: 8, depth: .direct)
        let hash = BlurHash.encode(SamplePhoto.make(width: 64, height: 64))
        let arrived: Void = await withCheckedContinuation { done in
            let first = pipeline.picture(key, blurhash: hash) { done.resume() }
            guard case .placeholder(let blur) = first else { Issue.record("expected the blur first, got \(first)"); return }
            #expect(blur.width == 12 && blur.height == 8)
        }
        _ = arrived
        guard case .ready(let photo) = pipeline.picture(key, blurhash: hash, ready: {}) else {
            Issue.record("the photo did not arrive"); return
        }
        #expect(photo.width == 12)
        // No bytes (a synthetic feed): the blur stays, also after the fetch said so; with
        // no hash either there is nothing to show.
        let orphan = RenditionKey(location: "synthetic:x", width: 4, height: 4, depth: .direct)
        await withCheckedContinuation { done in
            if case .placeholder = pipeline.picture(orphan, blurhash: hash, ready: { done.resume() }) {} else { Issue.record("no blur") }
        }
        if case .placeholder = pipeline.picture(orphan, blurhash: hash, ready: {}) {} else { Issue.record("the blur went away") }
        #expect(pipeline.picture(orphan, blurhash: nil, ready: {}) == .loading)
    }

    @Test func aBrokenFileBecomesAFailureWithItsReason() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID()).jpg")
        try Data("GIF89a, not really".utf8).write(to: url)
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache, fetch: readingFiles(in: url.deletingLastPathComponent()))
        let key = RenditionKey(location: url.lastPathComponent, width: 10, height: 10, depth: .direct)
        await withCheckedContinuation { done in pipeline.request(key) { done.resume() } }
        #expect(cache.state(for: key) == .failed("not a JPEG or PNG image"))
    }
}

/// A thread-safe count for fetch closures; `lock` guards `count`.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// A fetch that reads files: a location is a path inside `directory`.
func readingFiles(in directory: URL) -> MediaFetch {
    { location, maxBytes, done in
        let url = directory.appendingPathComponent(location)
        done(Result { () throws(MediaError) -> Data? in try ImageDecoder.readFile(at: url, limits: MediaLimits(maxBytes: maxBytes)) })
        return {}
    }
}
