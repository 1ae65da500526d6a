import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 29, point 8: a photo cut short is shown as far as it decoded, marked on the item,
/// and said once in the problems list with its file; one that decoded nothing says why.
@MainActor
@Suite struct DamagedPictureTests {
    @Test func aPhotoCutShortIsShownMarkedAndListed() throws {
        let first = try #require(Fixture.demo.stories.first?.items.first?.content.media?.location)
        let feed = MemoryFeed(load: Fixture.demo, media: { location, maxBytes throws(FeedError) in
            let data = try Fixture.demoFeed?.media(at: location, maxBytes: maxBytes)
            guard location == first, let data else { return data }
            return data.prefix(data.count / 2) // cut short on its way
        })
        let pilot = AppDriver(width: 80, height: 24, source: feed)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.finishWork()
        #expect(pilot.state.media.status[first] == .ready, "shown: what decoded is a picture")
        let header = Snapshot.lines(of: pilot.canvas)[1]
        #expect(header.contains("⚠ damaged"), "\(header)")
        let line = try #require(pilot.state.feed.warnings.first { $0.message.hasPrefix(first) })
        #expect(line.message.contains("cut short") && line.message.contains("showing what decoded"), "\(line.message)")
        #expect(pilot.state.viewer?.playback.isRunning == true, "it plays as a photo does")
        // Said once, however often it is shown again.
        pilot.press(.key(.escape), .key(.enter))
        pilot.wait(1)
        pilot.finishWork()
        #expect(pilot.state.feed.warnings.filter { $0.message.hasPrefix(first) }.count == 1)
        // Decoded whole later (the file had been still copying): the mark and the line go.
        pilot.deliver(.mediaNews(.pictures([PictureNews(first, .ready)])))
        #expect(pilot.state.media.damaged[first] == nil)
        #expect(!pilot.state.feed.warnings.contains { $0.message.hasPrefix(first) })
        #expect(!Snapshot.lines(of: pilot.canvas)[1].contains("damaged"))
    }

    @Test func aPhotoWithNoPictureDataSaysWhyInItsPlace() throws {
        let first = try #require(Fixture.demo.stories.first?.items.first?.content.media?.location)
        let feed = MemoryFeed(load: Fixture.demo, media: { location, maxBytes throws(FeedError) in
            let data = try Fixture.demoFeed?.media(at: location, maxBytes: maxBytes)
            guard location == first, let data, let scan = data.range(of: Data([0xFF, 0xDA])) else { return data }
            return data.prefix(scan.lowerBound + 1)
        })
        let pilot = AppDriver(width: 80, height: 24, source: feed)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.finishWork()
        #expect(pilot.text.contains("cannot show this photo"), "\(pilot.text)")
        #expect(pilot.text.contains("corrupt JPEG"))
    }
}

/// Issue 30, point 4: the BlurHash that stands in for a photo has the photo's shape (from
/// the feed's width and height), laid out as the photo will be: nothing moves when it comes.
@MainActor
@Suite struct PlaceholderShapeTests {
    /// The columns where the picture itself is (brighter than the darkened backdrop beside it).
    static func subjectColumns(_ canvas: Canvas) -> ClosedRange<Int>? {
        func luma(_ color: Color) -> Double {
            let (r, g, b) = Contrast.shown(color, depth: .direct, fallback: (0, 0, 0))
            return 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
        }
        let rows = 4..<(canvas.height - 5)
        let columns = (0..<canvas.width).map { x in
            rows.map { y in (luma(canvas[x, y].style.foreground) + luma(canvas[x, y].style.background)) / 2 }.reduce(0, +) / Double(rows.count)
        }
        guard let high = columns.max(), let low = columns.min(), high - low > 20 else { return nil }
        let threshold = (high + low) / 2
        guard let first = columns.firstIndex(where: { $0 > threshold }), let last = columns.lastIndex(where: { $0 > threshold }) else { return nil }
        return first...last
    }

    @Test func theBlurHashTakesThePhotosPlace() throws {
        let pilot = AppDriver(width: 80, height: 24, network: AppDriver.network(latency: 2), preload: .off, depth: .direct)
        pilot.wait(2)
        pilot.press(.key(.enter))
        pilot.wait(2.1)
        let location = try #require(pilot.state.visibleMedia?.location)
        #expect(pilot.state.media.status[location] != .ready, "the photo is still on its way")
        let placeholder = try #require(Self.subjectColumns(pilot.canvas), "the BlurHash has a shape: \(Snapshot.lines(of: pilot.canvas)[10])")
        pilot.wait(3)
        pilot.finishWork()
        #expect(pilot.state.media.status[location] == .ready)
        let photo = try #require(Self.subjectColumns(pilot.canvas))
        #expect(placeholder.count < 50, "a portrait photo, not the whole width: \(placeholder)")
        #expect(abs(placeholder.lowerBound - photo.lowerBound) <= 2 && abs(placeholder.upperBound - photo.upperBound) <= 2,
                "the same place: placeholder \(placeholder), photo \(photo)")
    }
}
