@testable import StoriesFeedIO
import StoriesTestSupport
import Foundation
@testable import StoriesApp
import StoriesCore
import StoriesUI
import Testing

/// The server-driven home through the real engine: the demo's `home.json` (every style),
/// keys and clicks, actions, tooltips once, and documents that are wrong.
/// Counts a source's calls; touched only on the virtual clock's one thread.
private final class Attempts: @unchecked Sendable {
    var count = 0
}

@MainActor
@Suite struct HomeSectionsTests {
    /// The row and column of the first place `text` is on screen (columns in cells).
    func place(of text: String, in pilot: AppDriver) -> (column: Int, row: Int)? {
        for (row, line) in pilot.lines.enumerated() {
            guard let range = line.range(of: text) else { continue }
            let before = String(line.prefix(upTo: range.lowerBound))
            return (column: before.displayWidth, row: row)
        }
        return nil
    }

    @Test func theDemoHomeShowsItsSectionsBelowTheRingRow() {
        let pilot = AppDriver(width: 100, height: 34)
        #expect(pilot.state.home.level.sections.count == 4)
        for title in ["Featured", "Liftoff · a launch in 12 seconds", "Continue watching", "🚀 Launch Club", "Close friends"] {
            #expect(pilot.text.contains(title), "\(title) is on the home screen")
        }
        #expect(pilot.lines.last?.contains("↓ sections") == true)
        #expect(pilot.lines.last?.contains("↓ 1 more section") == true, "the list below is announced")
        // The row still has the keyboard: its selection is drawn heavy and its details show.
        #expect(pilot.text.contains("┏━━━━━━●"), "heavy, with the dot of a story not seen yet")
        #expect(pilot.text.contains("Training day at the space centre."))
    }

    @Test func arrowsMoveBetweenSectionsAndWithinOneAndEnterRunsTheCellsAction() throws {
        let pilot = AppDriver(width: 100, height: 34)
        pilot.press(.key(.down))
        #expect(pilot.state.home.level.focus == 0)
        #expect(pilot.lines.contains { $0.hasPrefix("▸ Featured") })
        #expect(pilot.text.contains("Training day at the space centre."),
                "the details stay, so the sections do not move under the pointer when one takes the keyboard")
        pilot.press(.key(.right))
        #expect(pilot.state.home.level.selected[0] == 1)
        #expect(pilot.text.contains("The deep field"))
        #expect(pilot.lines.last?.contains("Enter open Jonas Berg's story") == true, "the hint says what Enter does")
        #expect(pilot.state.row.selection == 0, "← → move within the section, not the ring row")
        pilot.press(.key(.enter))
        pilot.finishWork()
        let jonas = try #require(pilot.state.feed.store.positions["jonas"])
        #expect(pilot.position?.story == jonas, "the banner opened Jonas's story")
        pilot.press(.key(.escape))
        #expect(pilot.state.viewer == nil)
        #expect(pilot.state.home.level.focus == 0, "back on the home, the section still has the keyboard")
        pilot.press(.key(.down), .key(.down), .key(.down), .key(.down))
        #expect(pilot.state.home.level.focus == 3, "↓ stops at the last section")
        #expect(pilot.text.contains("▸ Explore"))
        pilot.press(.key(.up), .key(.up), .key(.up), .key(.up), .key(.up))
        #expect(pilot.state.home.level.focus == nil, "↑ from the first section goes back to the ring row")
        pilot.press(.key(.down), .key(.escape))
        #expect(pilot.state.home.level.focus == nil, "Esc gives the keyboard back to the row")
        #expect(pilot.lastDecision?.handler == "home.sections")
    }

    @Test func aSectionsCellOpensAScreenOfSectionsAndEscComesBack() {
        let pilot = AppDriver(width: 100, height: 34)
        pilot.press(.key(.down), .key(.down), .key(.down), .key(.down)) // Explore; Space is its first cell
        pilot.press(.key(.enter))
        #expect(pilot.state.home.levels.count == 2)
        #expect(pilot.lines[0].contains("Demo stories › Space"))
        #expect(pilot.text.contains("▸ Stories about space"))
        #expect(!pilot.text.contains("Close friends"), "the screen of sections replaces the home's")
        #expect(!pilot.text.contains("╭──────╮  ╭──────╮  ╭──────╮  ╭──────╮  ╭──────╮  ╭──────╮"), "and has no ring row")
        pilot.press(.key(.up))
        #expect(pilot.state.home.level.focus == 0, "there is no ring row to go up to")
        pilot.press(.key(.down), .key(.right))
        #expect(pilot.state.home.level.selected[1] == 1)
        pilot.press(.key(.escape))
        #expect(pilot.state.home.levels.count == 1)
        #expect(pilot.state.home.level.focus == 3, "back where the keyboard was")
        #expect(pilot.text.contains("▸ Explore"))
    }

    @Test func aLinkIsShownInFullWhereNoBrowserCanOpenIt() {
        let pilot = AppDriver(width: 60, height: 30)
        pilot.press(.key(.down), .key(.right), .key(.right)) // the third banner: a link
        pilot.press(.key(.enter))
        let url = "https://en.wikipedia.org/wiki/Hubble_Deep_Field"
        let notice = HomeGeometry.noticeLines(pilot.state).joined()
        #expect(notice.contains(url), "\(notice)")
        #expect(HomeGeometry.noticeLines(pilot.state).count > 1, "a notice wider than the screen takes more lines")
        for line in HomeGeometry.noticeLines(pilot.state) {
            #expect(pilot.lines.contains { $0.contains(line) }, "'\(line)' is on screen: the whole URL can be copied")
        }
        pilot.press(.key(.left))
        #expect(pilot.state.chrome.notice == nil, "the next key clears the notice")
    }

    @Test func aTooltipShowsOnceEverAndIsRememberedAcrossRestarts() throws {
        let pilot = AppDriver(width: 100, height: 34)
        pilot.press(.key(.down))
        #expect(pilot.state.home.tooltip == "demo-tip-banner")
        #expect(pilot.text.contains("Tip: Sections come from the server."))
        let saved = try #require(pilot.persisted.last)
        #expect(saved.hasShownTooltip("demo-tip-banner"), "remembered the moment it is shown")
        pilot.press(.key(.right), .key(.left))
        #expect(pilot.state.home.tooltip == nil)
        #expect(!pilot.text.contains("Tip:"), "moving away and back does not bring it back")

        // A restart with the seen state as saved: the banner's tooltip never shows again,
        // while one never shown (the cards') still does, once.
        let again = AppDriver(width: 100, height: 34, seen: saved)
        again.press(.key(.down))
        #expect(again.state.home.tooltip == nil)
        #expect(!again.text.contains("Tip:"))
        again.press(.key(.down))
        #expect(again.state.home.tooltip == "demo-tip-continue")
        #expect(again.text.contains("Tip: Pick up where you left off"))
    }

    @Test func aClickOnACellRunsItsActionAndOnABubbleGivesTheRowTheKeyboardBack() throws {
        let pilot = AppDriver(width: 100, height: 34)
        let card = try #require(place(of: "Olúwáseun  ", in: pilot) ?? place(of: "Olúwáseun", in: pilot))
        pilot.click(column: card.column, row: card.row)
        pilot.finishWork()
        let olu = try #require(pilot.state.feed.store.positions["olu"])
        #expect(pilot.position?.story == olu, "the card opened Olúwáseun's story")
        #expect(pilot.state.gesture.log.contains { $0.gesture == "click on cell 2 of section 2" && $0.handler == "home.sections" })
        pilot.press(.key(.escape))
        #expect(pilot.state.home.level.focus == 1, "the clicked cell's section has the keyboard")
        // A press on one cell and a release on another does nothing.
        let mika = try #require(place(of: "Mika 🌸 ", in: pilot).flatMap { $0.row > 6 ? $0 : nil } ?? place(of: "Coffee and a cat", in: pilot))
        pilot.mouse(.press(.left), column: mika.column, row: mika.row)
        pilot.mouse(.release(.left), column: 1, row: pilot.state.screenHeight - 1)
        #expect(pilot.state.viewer == nil)
        #expect(pilot.state.row.opening == nil)
        // A click on a bubble of the ring row gives it the keyboard.
        let visible = RingLayout.visibleBubbles(width: 100)
        let first = RingLayout.firstVisible(selection: pilot.state.row.selection, count: pilot.state.feed.store.count, visible: visible)
        let bubble = try #require(HomeScreen.bubbleRect(of: first, state: pilot.state, width: 100))
        #expect(first != pilot.state.row.selection)
        pilot.click(column: bubble.x + 2, row: bubble.y + 1)
        #expect(pilot.state.home.level.focus == nil)
        #expect(pilot.state.row.selection == first)
    }

    @Test func aBrokenHomeSaysWhatIsWrongAndTheRestShows() {
        let home = #"{"version":1,"sections":[{"id":"x","style":"carousel","cells":[{"id":"a","title":"A"}]},{"id":"ok","style":"list","title":"Still here","cells":[{"id":"b","title":"B"}]}]}"#
        let source = MemoryFeed(load: Fixture.demo, homeSections: { () throws(FeedError) in
            try HomeDecoder.decode(Data(home.utf8), file: "home.json")
        })
        let pilot = AppDriver(width: 100, height: 30, source: source)
        #expect(pilot.text.contains("Still here"))
        #expect(pilot.text.contains("'carousel' is not a section style this app knows"))
        #expect(pilot.state.feed.store.count > 0, "the ring row is untouched")
    }

    @Test func aHomeThatFailsIsAskedForAgainAndArrives() {
        let attempts = Attempts()
        let source = MemoryFeed(load: Fixture.demo, homeSections: { () throws(FeedError) in
            attempts.count += 1
            guard attempts.count > 2 else { throw FeedError(file: "/v1/home", reason: "the server answered 503", isTransient: true) }
            return HomeLoad(layout: HomeLayout(sections: [HomeSection(id: "late", style: .list, title: FormattedText("Arrived late"),
                                                                      cells: [HomeCell(id: "c", title: FormattedText("Cell"))])]))
        })
        let pilot = AppDriver(width: 100, height: 30, source: source)
        #expect(pilot.text.contains("home sections did not load: /v1/home: the server answered 503; trying again"))
        #expect(pilot.state.feed.warnings.count == 1)
        pilot.wait(2)
        #expect(attempts.count == 2)
        #expect(pilot.state.feed.warnings.count == 1, "one line for a run of failures")
        pilot.wait(4)
        #expect(attempts.count == 3)
        #expect(pilot.text.contains("Arrived late"))
    }

    @Test func aHomeThatIsWrongIsSaidOnceAndNotAskedForAgain() {
        let attempts = Attempts()
        let source = MemoryFeed(load: Fixture.demo, homeSections: { () throws(FeedError) in
            attempts.count += 1
            throw FeedError(file: "/v1/home", reason: "the server answered 404")
        })
        let pilot = AppDriver(width: 100, height: 30, source: source)
        #expect(pilot.text.contains("home sections did not load: /v1/home: the server answered 404"))
        #expect(!pilot.text.contains("trying again"))
        pilot.wait(120)
        #expect(attempts.count == 1, "a 404 or a document that is not a home stays so: no retries")
    }

    @Test func aStoryOpenedFromASectionSaysItIsLoadingAndWhyItFailed() {
        var source = MemoryFeed(load: Fixture.demo, homeSections: {
            HomeLoad(layout: HomeLayout(sections: [HomeSection(id: "s", style: .cards, cells: [
                HomeCell(id: "c", title: FormattedText("Sofia"), action: .openStory("sofia")),
            ])]))
        })
        source.failing = ["sofia": "no such file"]
        let pilot = AppDriver(width: 100, height: 30, source: source, network: AppDriver.network(latency: 1))
        pilot.wait(2)
        pilot.press(.key(.down), .key(.enter))
        #expect(pilot.text.contains("Loading Sofía"), "the ring row's loading ring is not what has the keyboard")
        pilot.wait(2)
        #expect(pilot.text.contains("Could not load Sofía"))
        #expect(pilot.text.contains("no such file"))
    }

    /// A cell naming a story beyond the pages loaded so far: the feed is paged on until it
    /// comes, and it opens as from its bubble; the notice says what is going on.
    @Test func aStoryFurtherAlongTheFeedIsPagedInAndOpens() throws {
        let last = try #require(Fixture.longDemo.stories.last)
        let source = MemoryFeed(load: Fixture.longDemo, homeSections: {
            HomeLoad(layout: HomeLayout(sections: [HomeSection(id: "s", style: .cards, cells: [
                HomeCell(id: "c", title: FormattedText("Last"), action: .openStory(last.id)),
            ])]))
        })
        let pilot = AppDriver(width: 100, height: 30, source: source, network: AppDriver.network(latency: 1))
        pilot.wait(2)
        #expect(pilot.state.feed.store.count == 20, "the row in view and a screen beyond: two pages")
        pilot.press(.key(.down), .key(.enter))
        #expect(pilot.text.contains("Looking for the story '\(last.id)' further along the feed (20 stories so far; Esc: stop)"))
        pilot.wait(3)
        #expect(pilot.state.viewer != nil, "the page came, then the items: the story is open")
        #expect(pilot.state.feed.store.summaries[safe: pilot.state.viewer?.storyIndex ?? -1]?.id == last.id)
        #expect(pilot.state.row.seeking == nil)
    }

    /// A search started while another story is still opening: that opening stops (its
    /// request too), and the story looked for opens when its page comes.
    @Test func aSearchTakesOverFromAStoryStillOpening() throws {
        let opening = Fixture.demo.stories[7], last = try #require(Fixture.longDemo.stories.last)
        let source = MemoryFeed(load: Fixture.longDemo, homeSections: {
            HomeLoad(layout: HomeLayout(sections: [HomeSection(id: "s", style: .cards, cells: [
                HomeCell(id: "a", title: FormattedText("Eighth"), action: .openStory(opening.id)),
                HomeCell(id: "z", title: FormattedText("Last"), action: .openStory(last.id)),
            ])]))
        })
        let pilot = AppDriver(width: 100, height: 30, source: source, network: AppDriver.network(latency: 1))
        pilot.wait(2)
        pilot.press(.key(.down), .key(.enter))
        #expect(pilot.state.row.opening == opening.id)
        pilot.press(.key(.right), .key(.enter))
        #expect(pilot.state.row.opening == nil && pilot.state.row.seeking == .story(last.id), "the search takes over")
        #expect(pilot.text.contains("Looking for the story"))
        pilot.wait(3)
        #expect(pilot.state.feed.store.summaries[safe: pilot.state.viewer?.storyIndex ?? -1]?.id == last.id)
    }

    /// A story the feed does not have: looked for to the end of the feed, then said once;
    /// and Esc stops a search, the page in flight still kept.
    @Test func aStoryNotInTheFeedIsSaidOnceTheFeedEndsAndEscStopsASearch() {
        let source = MemoryFeed(load: Fixture.longDemo, homeSections: {
            HomeLoad(layout: HomeLayout(sections: [HomeSection(id: "s", style: .cards, cells: [
                HomeCell(id: "c", title: FormattedText("Nobody"), action: .openStory("nobody")),
            ])]))
        })
        let pilot = AppDriver(width: 100, height: 30, source: source, network: AppDriver.network(latency: 1))
        pilot.wait(2)
        pilot.press(.key(.down), .key(.enter))
        pilot.press(.key(.escape))
        #expect(pilot.state.row.seeking == nil && !pilot.text.contains("Looking for"), "Esc stops it")
        #expect(pilot.state.home.level.focus != nil, "the first Esc stops the search, not the section's keyboard")
        pilot.wait(2)
        #expect(pilot.state.feed.store.count == 30, "the page already asked for was kept")
        pilot.press(.key(.enter))
        pilot.wait(2)
        #expect(pilot.state.viewer == nil)
        #expect(pilot.text.contains("The story 'nobody' is not in this feed (all \(Fixture.longDemo.stories.count) stories looked through)"))
    }

    @Test func linksReachTheOpenerAsOneArgumentWithShellCharactersEncoded() {
        #expect(LinkOpener.argument("https://en.wikipedia.org/wiki/Saturn_(planet)") == "https://en.wikipedia.org/wiki/Saturn_%28planet%29")
        #expect(LinkOpener.argument("https://x.example/$(id);'a'!") == "https://x.example/%24%28id%29%3B%27a%27%21")
        #expect(LinkOpener.argument("https://x.example/a?b=c&d=e#f") == "https://x.example/a?b=c&d=e#f", "a query keeps its meaning")
        var said: [String] = []
        LinkOpener.open("https://example.org/", environment: ["PATH": "/usr/bin:/bin"]) { said.append($0) }
        #expect(said == [LinkOpener.notOpened("https://example.org/")], "no graphical session: the URL is shown, nothing runs")
        LinkOpener.open("file:///etc/passwd", environment: ["DISPLAY": ":0", "PATH": "/usr/bin:/bin"]) { said.append($0) }
        #expect(said.last?.hasPrefix("⚠ Not a link this app opens") == true, "checked again before any process")
    }

    @Test func aResizeRebuildsTheSectionsForTheNewWidth() {
        let pilot = AppDriver(width: 100, height: 34)
        #expect(pilot.state.currentHomeModels?.width == 100)
        pilot.resize(width: 60, height: 34)
        #expect(pilot.state.currentHomeModels?.width == 60)
        #expect(pilot.text.contains("Featured"))
    }

    @Test func snapshotOfEveryStyle() {
        let pilot = AppDriver(width: 100, height: 40)
        pilot.finishWork()
        expectSnapshot(pilot.snapshot(styles: true), named: "home-sections-100x40")
        pilot.press(.key(.down), .key(.down), .key(.down), .key(.down))
        expectSnapshot(pilot.snapshot(), named: "home-sections-list-focused-100x40")
    }
}
