import StoriesCore
import StoriesMedia
import Testing
@testable import StoriesUI

/// Screens as text, committed under __Snapshots__ and reviewed like code.
@Suite struct SnapshotTests {
    @Test(arguments: [(80, 24), (120, 40)])
    func home(width: Int, height: Int) {
        let pilot = Pilot(width: width, height: height)
        expectSnapshot(pilot.backend.snapshot(styles: true), named: "home-\(width)x\(height)")
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func viewerOnAPhoto(width: Int, height: Int) {
        var pilot = Pilot(width: width, height: height)
        pilot.press(.key(.enter))
        pilot.wait(2)
        expectSnapshot(pilot.backend.snapshot(styles: true), named: "viewer-photo-\(width)x\(height)")
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func viewerOnATextItemPaused(width: Int, height: Int) {
        var pilot = Pilot(width: width, height: height)
        pilot.press(.key(.right), .key(.enter), .key(.right)) // Mika's text card
        pilot.wait(1)
        pilot.press(.key(.character(" ")))
        expectSnapshot(pilot.backend.snapshot(styles: true), named: "viewer-text-paused-\(width)x\(height)")
    }

    @Test func homeAfterSeeingAStoryThenScrolledToTheEnd() {
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.enter), .key(.right), .key(.right), .key(.right), .key(.escape))
        expectSnapshot(pilot.backend.snapshot(styles: true), named: "home-after-viewing-80x24")
        pilot.press(.key(.end))
        expectSnapshot(pilot.backend.snapshot(), named: "home-scrolled-to-end-80x24")
    }

    @Test func viewerOnARenderedPhoto() throws {
        let url = try #require(Fixture.demoDirectory?.appendingPathComponent("media/astronaut.jpg"))
        let image = try ImageDecoder.decodeFile(at: url)
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.enter))
        pilot.wait(2)
        pilot.backend.draw(pilot.state) { _, width, height, _ in
            .ready(CellImage(image, width: width, height: height, symbols: .half, depth: .palette256))
        }
        let lines = pilot.lines
        #expect(lines[2].allSatisfy { $0 == "▀" } && lines[2].count == 80, "the photo fills the width")
        #expect(lines[1].hasPrefix(" AD Ayla Demir  @ayla"), "the header lies on the photo")
        #expect(lines[22].hasPrefix("  Training day at the space centre."), "the caption lies on the photo's foot")
        let band = pilot.backend.canvas[40, 22].style.background
        #expect(band != .default, "the caption band is a darkened part of the photo, not a hole")
        expectSnapshot(pilot.backend.snapshot(), named: "viewer-rendered-photo-80x24")
    }

    @Test func theBlurHashStandsInUntilThePhotoIsReady() throws {
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.enter))
        let blur = try BlurHash.decode("LEHV6nWB2yk8pyo0adR*.7kCMdnj", width: 80, height: 44)
        pilot.backend.draw(pilot.state) { _, _, _, _ in .placeholder(CellImage(pixels: blur, symbols: .half, depth: .direct)) }
        #expect(pilot.lines[5].allSatisfy { $0 == "▀" } && pilot.lines[5].count == 80)
        #expect(pilot.lines[1].hasPrefix(" AD Ayla Demir"))
        #expect(!pilot.screen.contains("▣ photo"), "no empty frame while a blur can be shown")
    }

    @Test func fToggleAsksForThePhotoWholeOrFilling() {
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.enter))
        var asked: [FitMode] = []
        pilot.backend.draw(pilot.state) { _, _, _, fit in asked.append(fit); return .loading }
        pilot.type("f")
        pilot.backend.draw(pilot.state) { _, _, _, fit in asked.append(fit); return .loading }
        pilot.type("f")
        pilot.backend.draw(pilot.state) { _, _, _, fit in asked.append(fit); return .loading }
        #expect(asked == [.fill, .fit, .fill])
    }

    @Test func aPhotoThatCannotBeShownSaysWhy() {
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.enter))
        pilot.backend.draw(pilot.state) { _, _, _, _ in .failed("the image is 30000×30000, more than the 40 megapixels a photo may be") }
        let words = pilot.lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(words.contains("⚠ cannot show this photo"))
        #expect(words.contains("the image is 30000×30000, more than the 40 megapixels a photo may be"))
        #expect(words.contains("Training day at the space centre."), "the caption still shows")
    }

    @Test func helpOverlays() {
        var pilot = Pilot(width: 80, height: 24)
        pilot.type("?")
        expectSnapshot(pilot.backend.snapshot(), named: "help-home-80x24")
        pilot.type("?")
        pilot.press(.key(.enter))
        pilot.type("?")
        expectSnapshot(pilot.backend.snapshot(), named: "help-viewer-80x24")
    }

    @Test func feedProblemsAreShownOnHome() {
        var load = Fixture.demo
        load.warnings = [
            FeedWarning("skipped story 'broken': /feeds/x/stories/broken.json: items[0].duration: expected seconds between 0 and 60, found -3.0"),
            FeedWarning("/feeds/x/stories/mika.json: items[2].type: unknown item type 'poll'; item skipped"),
        ]
        let pilot = Pilot(width: 80, height: 24, state: Fixture.loadedState(load))
        expectSnapshot(pilot.backend.snapshot(), named: "home-warnings-80x24")
    }

    @Test func loadingAndEmptyFeeds() {
        var loading = AppState(title: "Demo stories", now: Fixture.moment)
        _ = AppReducer.reduce(&loading, .start, at: Fixture.moment)
        #expect(Pilot(width: 60, height: 14, state: loading).lines[3] == "  Loading stories…")
        let empty = Pilot(width: 60, height: 14, state: Fixture.loadedState(FeedLoad(stories: [], warnings: [])))
        #expect(empty.lines[3] == "  No stories to show in this feed.")
    }

    /// The demo's first page only, as a paged feed has it: nothing loaded but summaries.
    static func firstPageOnly() -> AppState {
        var state = AppState(title: "Demo stories", now: Fixture.moment)
        state.reduceMotion = true
        let summaries = Fixture.demo.stories.prefix(10).map(StorySummary.init)
        for action: AppAction in [.resized(width: 80), .start, .pageLoaded(FeedPage(stories: Array(summaries), nextCursor: "10"))] {
            Pilot.apply(action, to: &state, at: Fixture.moment)
        }
        return state
    }

    @Test func homeWhileAStoryOpensOneFailedAndAPageRetries() {
        var pilot = Pilot(width: 80, height: 24, state: Self.firstPageOnly())
        pilot.press(.key(.right), .key(.enter))              // Mika: loading
        Pilot.apply(.storyFailed(Fixture.demo.stories[2].id, "stories/hanako.json: timed out after 15 s"), to: &pilot.state, at: pilot.now)
        pilot.press(.key(.end))                              // the next page is asked for…
        Pilot.apply(.pageFailed("the connection failed (simulated: 3g)"), to: &pilot.state, at: pilot.now) // …and fails
        pilot.press(.key(.home), .key(.right), .key(.right)) // on the failed story
        expectSnapshot(pilot.backend.snapshot(styles: true), named: "home-paging-80x24")
        #expect(pilot.state.opening == Fixture.demo.stories[1].id, "still opening while browsing")
    }

    @Test func viewerWaitingForTheNextPageAndOnAStoryThatFailed() {
        var state = Self.firstPageOnly()
        let last = Fixture.demo.stories[9]
        Pilot.apply(.select(9), to: &state, at: Fixture.moment) // asks for page 2
        Pilot.apply(.storyLoaded(StoryLoad(story: last)), to: &state, at: Fixture.moment)
        Pilot.apply(.command(.open), to: &state, at: Fixture.moment)
        var pilot = Pilot(width: 80, height: 24, state: state)
        pilot.press(.key(.character("]")))
        expectSnapshot(pilot.backend.snapshot(), named: "viewer-waiting-for-page-80x24")
        Pilot.apply(.pageLoaded(FeedPage(stories: [StorySummary(Fixture.demo.stories[10])], nextCursor: nil)), to: &pilot.state, at: pilot.now)
        Pilot.apply(.storyFailed(Fixture.demo.stories[10].id, "stories/chenwei.json: items[0].media: needs a \"path\" or a \"url\""), to: &pilot.state, at: pilot.now)
        pilot.wait(0)
        expectSnapshot(pilot.backend.snapshot(), named: "viewer-story-failed-80x24")
    }

    @Test(arguments: [(39, 24), (80, 11), (20, 5)])
    func tooSmallShowsOneClearMessage(width: Int, height: Int) {
        let pilot = Pilot(width: width, height: height)
        let words = pilot.lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(words == "Terminal too small: \(width)×\(height). stories needs at least 40×12.")
    }

    @Test func aOneCellTerminalDoesNotCrash() {
        #expect(Pilot(width: 1, height: 1).lines == ["T"])
        #expect(Pilot(width: 0, height: 0).lines == [])
    }

    @Test func resizingReLaysOutTheSameState() {
        var pilot = Pilot(width: 80, height: 24)
        pilot.press(.key(.end))
        pilot.resize(width: 30, height: 10)
        #expect(pilot.screen.contains("Terminal too small"))
        pilot.resize(width: 120, height: 40)
        #expect(pilot.lines[0].hasSuffix("11 stories"))
        #expect(pilot.screen.contains("陈伟 Chen Wei"))
    }
}
