import StoriesCells
@testable import StoriesFeedIO
import StoriesTestSupport
import StoriesApp
import StoriesCore
import StoriesMedia
import Testing
@testable import StoriesUI

/// Screens as text, committed under __Snapshots__ and reviewed like code.
@MainActor
@Suite struct SnapshotTests {
    @Test(arguments: [(80, 24), (120, 40)])
    func home(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height)
        expectSnapshot(pilot.snapshot(styles: true), named: "home-\(width)x\(height)")
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func viewerOnAPhoto(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height)
        pilot.press(.key(.enter))
        pilot.wait(2)
        expectSnapshot(pilot.snapshot(styles: true), named: "viewer-photo-\(width)x\(height)")
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func viewerOnATextItemPaused(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height)
        pilot.press(.key(.right), .key(.enter), .key(.right)) // Mika's text card
        pilot.wait(1)
        pilot.press(.key(.character(" ")))
        expectSnapshot(pilot.snapshot(styles: true), named: "viewer-text-paused-\(width)x\(height)")
    }

    @Test func homeAfterSeeingAStoryThenScrolledToTheEnd() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter), .key(.right), .key(.right), .key(.right), .key(.escape))
        expectSnapshot(pilot.snapshot(styles: true), named: "home-after-viewing-80x24")
        pilot.press(.key(.end))
        expectSnapshot(pilot.snapshot(), named: "home-scrolled-to-end-80x24")
    }

    @Test func viewerOnARenderedPhoto() throws {
        let url = try #require(Fixture.demoDirectory?.appendingPathComponent("media/astronaut.jpg"))
        let image = try ImageDecoder.decodeFile(at: url)
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter))
        pilot.wait(2)
        let size = ScreenLayout.photoSize(width: 80, height: 24)
        let canvas = pilot.render { _ in
            .ready(CellImage(image, width: size.width, height: size.height, symbols: .half, depth: .palette256, fit: .fit))
        }
        let lines = Snapshot.lines(of: canvas)
        #expect(lines[2].allSatisfy { $0 == "▀" } && lines[2].count == 80, "the photo, whole, over its backdrop across the width")
        #expect(lines[1].hasPrefix(" AD Ayla Demir  @ayla"), "the header lies on the photo")
        #expect(lines[22].hasPrefix("  Training day at the space centre."), "the caption lies on the photo's foot")
        let band = canvas[40, 22].style.background
        #expect(band != .default, "the caption band is a darkened part of the photo, not a hole")
        expectSnapshot(Snapshot.text(of: canvas), named: "viewer-rendered-photo-80x24")
        #expect(pilot.canvas == canvas, "the engine drew the same photo from its cache")
    }

    @Test func theBlurHashStandsInUntilThePhotoIsReady() throws {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter))
        let blur = try BlurHash.decode("LEHV6nWB2yk8pyo0adR*.7kCMdnj", width: 80, height: 44)
        let lines = Snapshot.lines(of: pilot.render { _ in .placeholder(CellImage(pixels: blur, symbols: .half, depth: .direct)) })
        #expect(lines[5].allSatisfy { $0 == "▀" } && lines[5].count == 80)
        #expect(lines[1].hasPrefix(" AD Ayla Demir"))
        #expect(!lines.joined().contains("▣ photo"), "no empty frame while a blur can be shown")
    }

    @Test func fToggleAsksForThePhotoWholeOrFilling() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter))
        var asked: [Bool] = []
        for _ in 0..<3 {
            asked.append(pilot.state.media.preloadRequest?.fit ?? false)
            pilot.type("f")
        }
        #expect(asked == [true, false, true], "whole first (the default), then filling, then whole")
        #expect(!pilot.state.awaitsMedia, "the rendition for the new fit was made and reported")
    }

    @Test func aPhotoThatCannotBeShownSaysWhy() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.enter))
        let canvas = pilot.render { _ in .failed("the image is 30000×30000, more than the 40 megapixels a photo may be") }
        let words = Snapshot.lines(of: canvas).joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(words.contains("⚠ cannot show this photo"))
        #expect(words.contains("the image is 30000×30000, more than the 40 megapixels a photo may be"))
        #expect(words.contains("Training day at the space centre."), "the caption still shows")
    }

    @Test func helpOverlays() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.type("?")
        expectSnapshot(pilot.snapshot(), named: "help-home-80x24")
        pilot.type("?")
        pilot.press(.key(.enter))
        pilot.type("?")
        expectSnapshot(pilot.snapshot(), named: "help-viewer-80x24")
    }

    @Test func feedProblemsAreShownOnHome() {
        var load = Fixture.demo
        load.warnings = [
            FeedWarning("skipped story 'broken': /feeds/x/stories/broken.json: items[0].duration: expected seconds between 0 and 60, found -3.0"),
            FeedWarning("/feeds/x/stories/mika.json: items[2].type: unknown item type 'poll'; item skipped"),
        ]
        let pilot = AppDriver(width: 80, height: 24, source: MemoryFeed(load: load))
        expectSnapshot(pilot.snapshot(), named: "home-warnings-80x24")
    }

    @Test func loadingAndEmptyFeeds() {
        let loading = AppDriver(width: 60, height: 14, network: AppDriver.network(latency: 1))
        #expect(loading.lines[3] == "  Loading stories…")
        let empty = AppDriver(width: 60, height: 14, source: MemoryFeed(load: FeedLoad(stories: [], warnings: [])))
        #expect(empty.lines[3] == "  No stories to show in this feed.")
    }

    @Test func homeWhileAStoryOpensOneFailedAndAPageRetries() {
        let pilot = AppDriver.firstPageOnly()
        pilot.press(.key(.right), .key(.enter))              // Mika: loading
        pilot.deliver(.storyFailed(Fixture.demo.stories[2].id, "stories/hanako.json: timed out after 15 s"))
        pilot.press(.key(.end))                              // the next page is asked for…
        pilot.deliver(.pageFailed("the connection failed (simulated: 3g)")) // …and fails
        pilot.press(.key(.home), .key(.right), .key(.right)) // on the failed story
        expectSnapshot(pilot.snapshot(styles: true), named: "home-paging-80x24")
        #expect(pilot.state.row.opening == Fixture.demo.stories[1].id, "still opening while browsing")
    }

    @Test func viewerWaitingForTheNextPageAndOnAStoryThatFailed() {
        let failing = Fixture.demo.stories[10].id
        let source = MemoryFeed(load: Fixture.demo, failing: [failing: "items[0].media: needs a \"path\" or a \"url\""])
        let pilot = AppDriver(width: 80, height: 24, source: source, network: AppDriver.network(latency: 1))
        pilot.wait(1)                                        // the first page
        pilot.press(.key(.end), .key(.enter))                // the tenth story; page 2 is asked for
        pilot.wait(1)                                        // its items arrive, the viewer opens
        #expect(pilot.position?.story == 9)
        pilot.press(.key(.character("]")))                   // the next story: its items are on their way
        expectSnapshot(pilot.snapshot(), named: "viewer-waiting-for-page-80x24")
        pilot.wait(1)                                        // they fail
        expectSnapshot(pilot.snapshot(), named: "viewer-story-failed-80x24")
    }

    @Test(arguments: [(39, 24), (80, 11), (20, 5)])
    func tooSmallShowsOneClearMessage(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height)
        let words = pilot.lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(words == "Terminal too small: \(width)×\(height). stories needs at least 40×12.")
    }

    @Test func aOneCellTerminalDoesNotCrash() {
        #expect(AppDriver(width: 1, height: 1).lines == ["T"])
        #expect(AppDriver(width: 0, height: 0).lines == [])
    }

    @Test func resizingReLaysOutTheSameState() {
        let pilot = AppDriver(width: 80, height: 24)
        pilot.press(.key(.end), .key(.end))     // the second page came with the first End
        pilot.resize(width: 30, height: 10)
        #expect(pilot.text.contains("Terminal too small"))
        pilot.resize(width: 120, height: 40)
        #expect(pilot.lines[0].hasSuffix("11 stories"))
        #expect(pilot.text.contains("陈伟 Chen Wei"))
    }
}

/// Issue 29, point 12: the viewer's header keeps the name and how long ago; the handle is
/// what goes when they do not fit.
@MainActor
@Suite struct ViewerHeaderTests {
    @Test(arguments: [40, 44, 48, 60, 80])
    func narrowHeadersDropTheHandleBeforeTheTime(width: Int) throws {
        let pilot = AppDriver(width: width, height: 20)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.press(.key(.character(" "))) // "❚❚ paused  1/3" on the right takes 14 columns
        let header = Snapshot.lines(of: pilot.canvas)[1]
        #expect(header.contains("paused"))
        let full = header.contains("@ayla")
        #expect(header.contains("Ayla"), "\(header)")
        // The item's age ("· 3h") is there at every width the name fits.
        #expect(header.range(of: #"· \d+[smhdw]"#, options: .regularExpression) != nil, "width \(width): \(header)")
        if width >= 60 { #expect(full, "room for everything at \(width): \(header)") }
        if width <= 40 { #expect(!full, "at \(width) the handle makes room: \(header)") }
    }

    @Test func aFeedThatSaysItsSizeIsCountedAgainstIt() {
        let pilot = AppDriver(width: 80, height: 24, source: SyntheticFeed(count: 1012))
        pilot.finishWork()
        let title = Snapshot.lines(of: pilot.canvas)[0]
        #expect(title.contains("Synthetic feed"))
        #expect(!title.contains("1012 stories)"))
        #expect(title.range(of: #"\b\d+ of 1012 stories"#, options: .regularExpression) != nil, "\(title)")
    }
}
