import StoriesCells
import Foundation
import StoriesAssets
import StoriesCore
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
        cache.recordFailure("not a JPEG, PNG or WebP image", for: "x.jpg")
        #expect(cache.state(for: RenditionKey(location: "x.jpg", width: 5, height: 5, depth: .direct)) == .failed("not a JPEG, PNG or WebP image"))
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
        cache.pinned = ["media/chelsea.jpg"] // the visible item, as the app pins it
        await pipeline.prepare(small)
        guard case .ready(let cells) = cache.state(for: small) else { Issue.record("not ready"); return }
        #expect(cells.width == 20 && cells.height == 10)
        #expect(cache.decodedImage(for: "media/chelsea.jpg") != nil)

        // A resize: the pixels in memory are enough; nothing is fetched again.
        let big = RenditionKey(location: "media/chelsea.jpg", width: 40, height: 20, depth: .palette256)
        await pipeline.prepare(big)
        guard case .ready(let larger) = cache.state(for: big) else { Issue.record("not re-rendered"); return }
        #expect(larger.width == 40)
        #expect(fetches.value == 1)
    }

    @Test func decodedPixelsAreKeptOnlyWhilePinnedAndAnUnpinnedFileIsFetchedAgainForAnotherSize() async throws {
        let fetches = Counter()
        let files = readingFiles(in: try #require(DemoFeed.directory))
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache) { location, maxBytes, done in
            fetches.add()
            return files(location, maxBytes, done)
        }
        let location = "media/coffee.jpg"
        let small = RenditionKey(location: location, width: 20, height: 10, depth: .palette256)
        await pipeline.prepare(small)
        #expect(cache.state(peek: small) != .loading, "the rendition is kept")
        #expect(cache.decodedImage(for: location) == nil, "not pinned: its pixels are let go once its rendition exists")
        let big = RenditionKey(location: location, width: 40, height: 20, depth: .palette256)
        await pipeline.prepare(big)
        #expect(cache.state(peek: big) != .loading)
        #expect(fetches.value == 2, "another size of a file not pinned is made from the file again")

        cache.pinned = [location]
        let third = RenditionKey(location: location, width: 30, height: 12, depth: .palette256)
        await pipeline.prepare(third)
        #expect(cache.decodedImage(for: location) != nil, "pinned: its pixels stay for a resize")
        cache.pinned = []
        #expect(cache.decodedImage(for: location) == nil, "unpinned: let go at once")
        #expect(cache.state(peek: third) != .loading, "its renditions stay")
    }

    @Test func theBudgetIsSizedFromTheScreenAndLiveVideoCountsAgainstIt() {
        let small = RenditionCache.budget(width: 100, height: 30)
        let large = RenditionCache.budget(width: 300, height: 90)
        #expect(small == RenditionCache.minimumBudget || small < 24 << 20, "\(small)")
        #expect(small < 64 << 20, "not the old fixed 64 MB at 100×30")
        #expect(large > small, "a bigger screen needs more: \(large) vs \(small)")
        #expect(large >= 9 * (300 * 90 * MemoryLayout<ImageCell>.stride), "at least the screen's renditions")
        #expect(RenditionCache.budget(width: 1, height: 1) >= RenditionCache.minimumBudget, "never under the floor")

        let one = cells(10, 10)
        let cache = RenditionCache(budget: one.byteCount * 4)
        let keys = (0..<4).map { RenditionKey(location: "\($0).jpg", width: 10, height: 10, depth: .direct) }
        for key in keys { cache.insert(one, for: key) }
        #expect(keys.allSatisfy { cache.state(peek: $0) != .loading })
        // A video player takes two renditions' worth: the two least recently used go.
        cache.reserved = { one.byteCount * 2 }
        cache.insert(one, for: keys[3])
        #expect(cache.bytesInUse <= one.byteCount * 2)
        #expect(cache.state(peek: keys[0]) == .loading && cache.state(peek: keys[1]) == .loading)
        #expect(cache.state(peek: keys[3]) != .loading)
        // A smaller screen: the budget shrinks and the cache with it, at once.
        cache.reserved = { 0 }
        cache.setBudget(one.byteCount)
        #expect(cache.bytesInUse <= one.byteCount)
    }

    @Test func aResizeStormDecodesTheFileOnceAndRendersTheNewestSize() async throws {
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache, fetch: readingFiles(in: try #require(DemoFeed.directory)))
        let sizes = [(20, 10), (30, 12), (40, 14), (50, 16)]
        let keys = sizes.map { RenditionKey(location: "media/hubble.jpg", width: $0.0, height: $0.1, depth: .palette256) }
        var reports: [MediaStatus] = []
        await pipeline.prepare(keys) { reports.append($0) }
        #expect(reports.filter { $0 == .ready }.count == 1, "ready once: when the newest size is there, not the first")
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
        var reports: [MediaStatus] = []
        pipeline.onEachStatus { location, status in if location == key.location { reports.append(status) } }
        pipeline.prefetch([(key: key, priority: .visible, blurhash: hash)])
        // The stand-in is made with the request, before any byte arrives.
        guard case .ready(let blur) = cache.state(peek: key.placeholder(hash)) else {
            Issue.record("no blur made with the request"); return
        }
        #expect(blur.width == 12 && blur.height == 8)
        // In 256 colours the stand-in goes through the symbol picker, as a photo does.
        let key256 = RenditionKey(location: "media/coffee.jpg", width: 12, height: 8, depth: .palette256)
        pipeline.prefetch([(key: key256, priority: .visible, blurhash: hash)])
        if case .ready(let blur256) = cache.state(peek: key256.placeholder(hash)), let pixels = try? BlurHash.decode(hash, width: 12, height: 16) {
            #expect(blur256 == CellImage(pixels: pixels, symbols: .half, depth: .palette256))
            #expect(Set(blur256.cells.flatMap { [$0.foreground, $0.background] }).allSatisfy { if case .palette = $0 { true } else { false } })
        } else {
            Issue.record("no 256-colour blur made with the request")
        }
        #expect(cache.state(peek: key) == .loading)
        #expect(reports.first == .queued || reports.first == .fetching, "\(reports)")
        await pipeline.prepare(key)
        guard case .ready(let photo) = cache.state(peek: key) else { Issue.record("the photo did not arrive"); return }
        #expect(photo.width == 12)
        // No bytes (a synthetic feed): the fetch says so, the file counts as ready (its blur
        // is all there is), and the blur stays.
        let orphan = RenditionKey(location: "synthetic:x", width: 4, height: 4, depth: .direct)
        nonisolated(unsafe) var orphanReports: [MediaStatus] = [] // main actor only
        pipeline.onEachStatus { location, status in if location == orphan.location { orphanReports.append(status) } }
        pipeline.prefetch([(key: orphan, priority: .visible, blurhash: hash)])
        await pipeline.prepare([orphan]) { orphanReports.append($0) }
        #expect(orphanReports.last == .ready, "\(orphanReports)")
        if case .ready = cache.state(peek: orphan.placeholder(hash)) {} else { Issue.record("no blur for the orphan") }
        #expect(pipeline.status(of: orphan) == .ready)
        #expect(cache.state(peek: orphan) == .loading, "no photo: drawing shows the blur")
    }

    @Test func aBrokenFileBecomesAFailureWithItsReason() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID()).jpg")
        try Data("BM, a bitmap? not really".utf8).write(to: url)
        let cache = RenditionCache()
        let pipeline = PicturePipeline(cache: cache, fetch: readingFiles(in: url.deletingLastPathComponent()))
        let key = RenditionKey(location: url.lastPathComponent, width: 10, height: 10, depth: .direct)
        await pipeline.prepare(key)
        #expect(cache.state(for: key) == .failed("neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read"))
        // A GIF header over nonsense: FFmpeg reads it as a GIF, and its size is refused.
        let gif = url.deletingLastPathComponent().appendingPathComponent("broken-\(UUID()).gif")
        try Data("GIF89a, not really".utf8).write(to: gif)
        let gifKey = RenditionKey(location: gif.lastPathComponent, width: 10, height: 10, depth: .direct)
        await pipeline.prepare(gifKey)
        guard case .failed(let reason) = cache.state(for: gifKey) else { Issue.record("a broken GIF was shown"); return }
        #expect(!reason.isEmpty, "\(reason)")
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

extension PicturePipeline {
    /// Asks for renditions and waits until the pipeline reports their file settled (ready
    /// or failed) — through `onStatus`, as the app hears it. `report` sees every status.
    func prepare(_ keys: [RenditionKey], report: @escaping @MainActor (MediaStatus) -> Void = { _ in }) async {
        guard let location = keys.first?.location else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            var resumed = false
            onEachStatus { reported, status in
                guard reported == location else { return }
                report(status)
                if status.isSettled, !resumed {
                    resumed = true
                    done.resume()
                }
            }
            for key in keys { request(key) }
            if !resumed, let last = keys.last, status(of: last)?.isSettled == true, jobCount == 0 {
                resumed = true
                done.resume()
            }
        }
        onNews = nil
    }

    func prepare(_ key: RenditionKey) async { await prepare([key]) }
}
