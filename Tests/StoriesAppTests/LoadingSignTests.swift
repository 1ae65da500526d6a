import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 29, point 4: a photo that is slow to come shows the loading ring's spinner over
/// its placeholder after 300 ms, says why after 3 s, and nothing else moves meanwhile.
@MainActor
@Suite struct LoadingSignTests {
    /// The viewer open on Ayla's first photo, its bytes 4 s away.
    func openOnASlowPhoto() -> AppDriver {
        let pilot = AppDriver(width: 80, height: 24, network: AppDriver.network(latency: 4), preload: .off)
        pilot.wait(4) // the first page
        pilot.press(.key(.enter))
        pilot.wait(4) // the story's items: the viewer opens, the photo is asked for
        return pilot
    }

    func signRows(_ pilot: AppDriver) -> [String] {
        Snapshot.lines(of: pilot.canvas).filter { $0.contains("loading…") || $0.contains("┄") || $0.contains("┆") }
    }

    @Test func theSignComesAfterAMomentAndSaysWhyAfterThreeSeconds() throws {
        let pilot = openOnASlowPhoto()
        #expect(pilot.state.viewer != nil && pilot.state.awaitsMedia)
        let since = try #require(pilot.state.media.waiting).since
        #expect(signRows(pilot).isEmpty, "no sign at once: a photo that comes soon never flashes one")
        #expect(pilot.state.wantsFrames, "the sign is due: a frame is")
        pilot.wait(0.35)
        var text = pilot.text
        #expect(text.contains("loading…") && !text.contains("slow network"), "\(text)")
        #expect(text.contains("┆"), "the loading ring's dotted sides")
        // The spinner turns: its head moves from one frame to the next.
        let before = pilot.snapshot(styles: true)
        pilot.wait(0.2)
        #expect(pilot.snapshot(styles: true) != before, "the head has moved on")
        pilot.wait(3 - 0.55 - (pilot.now.uptime - since - 0.55) + 0.1)
        text = pilot.text
        #expect(text.contains("loading… (slow network)"), "\(text)")
        // Nothing else moves: the item's clock waits, and the item is not seen.
        #expect(pilot.state.viewer?.playback.elapsed(at: pilot.now.uptime) == 0)
        #expect(!pilot.state.seen.isSeen(story: "ayla", item: pilot.state.feed.store.story(at: 0)?.items.first?.id ?? ""))
        // The photo comes: the sign goes, the clock runs, and no frame is wanted for the sign.
        pilot.wait(1)
        #expect(pilot.state.media.waiting == nil)
        #expect(signRows(pilot).isEmpty, "\(pilot.text)")
        #expect(pilot.state.viewer?.playback.isRunning == true)
    }

    @Test func aPictureThatFailedShowsItsReasonNotTheSign() throws {
        let pilot = openOnASlowPhoto()
        let location = try #require(pilot.state.visibleMedia?.location)
        pilot.deliver(.mediaNews(.pictures([PictureNews(location, .failed("not a JPEG: the file is damaged"))])))
        pilot.wait(0.5)
        #expect(pilot.state.media.waiting == nil)
        #expect(!pilot.text.contains("loading…"))
        #expect(pilot.text.contains("not a JPEG"))
    }

    @Test func whileWaitingTheAppSleepsBetweenSpinnerSteps() throws {
        let pilot = openOnASlowPhoto()
        let first = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(first > 0.25 && first <= 0.31, "the first frame is the sign's: \(first)")
        pilot.wait(0.4)
        let step = try #require(AppView.secondsUntilNextChange(pilot.state, width: 80, height: 24))
        #expect(step > 0 && step <= 1 / Bubble.spinnerStepsPerSecond + 1e-6, "one spinner step at a time: \(step)")
    }
}

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
