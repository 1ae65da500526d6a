@testable import StoriesFeedIO
import Foundation
import StoriesApp
import StoriesCore
import StoriesUI
import Testing

/// Getting around a long feed (issue 13, point 3): End to the true last story, PgUp/PgDn,
/// `n` to the next unseen story, `/` to a person by name, the hint line's keys and the
/// row's ‹ › as buttons, and the problems list — through the real engine on the virtual
/// clock, over a network slow enough that paging on is seen.
@MainActor
@Suite struct FeedNavigationTests {
    /// 35 stories of made-up people, ten a page, each page 1 s away.
    static func long(count: Int = 35, width: Int = 100, height: Int = 30) -> AppDriver {
        let driver = AppDriver(width: width, height: height, source: SyntheticFeed(count: count),
                               network: AppDriver.network(latency: 1))
        driver.wait(1.5)
        return driver
    }

    @Test func endGoesToTheTrueLastStoryPagingOnWithTheRowFollowing() {
        let d = Self.long()
        #expect(d.state.feed.store.count == 10 && d.state.feed.store.hasMore)
        d.press(.key(.end))
        #expect(d.state.row.selection == 9, "at once: the last story loaded")
        #expect(d.text.contains("Going to the last story, loading the feed on the way (10 stories so far; Esc: stop)"))
        d.wait(1.1)
        #expect(d.state.row.selection == 19, "each page moves the row on")
        d.wait(3)
        #expect(d.state.feed.store.count == 35 && !d.state.feed.store.hasMore)
        #expect(d.state.row.selection == 34 && d.state.row.seeking == nil)
        #expect(d.text.contains("@user34") && d.text.contains("35 stories") && !d.text.contains("Going to"))
    }

    @Test func escOrAnyMoveStopsTheWayToTheEnd() {
        let d = Self.long()
        d.press(.key(.end))
        d.press(.key(.escape))
        #expect(d.state.row.seeking == nil && !d.text.contains("Going to"))
        d.wait(5)
        #expect(d.state.row.selection == 9, "the page already asked for came, and the row stayed")
        d.press(.key(.end), .key(.left))
        #expect(d.state.row.seeking == nil, "a move on the row stops it too")
        let before = d.state.row.selection
        d.wait(5)
        #expect(d.state.row.selection == before)
    }

    @Test func pageKeysMoveAScreenfulAndStopAtTheEnds() {
        let d = Self.long()
        let screenful = RingLayout.visibleBubbles(width: 100)
        d.press(.key(.pageDown))
        #expect(d.state.row.selection == screenful)
        d.press(.key(.pageDown))
        #expect(d.state.row.selection == 9, "held to the last story loaded")
        d.press(.key(.pageUp))
        #expect(d.state.row.selection == 9 - screenful)
        d.press(.key(.pageUp), .key(.pageUp))
        #expect(d.state.row.selection == 0)
    }

    @Test func nGoesToTheNextStoryWithUnseenItemsPagingOnAndRoundToTheStart() throws {
        let feed = SyntheticFeed(count: 25).loadAll()
        var seen = SeenState()
        // Everything seen but stories 2 and 22.
        for (index, story) in feed.stories.enumerated() where index != 2 && index != 22 {
            for item in story.items { seen.markSeen(story: story.id, item: item.id) }
        }
        let d = AppDriver(width: 100, height: 30, source: SyntheticFeed(count: 25), network: AppDriver.network(latency: 1), seen: seen)
        d.wait(1.5)
        d.press(.key(.character("n")))
        #expect(d.state.row.selection == 2)
        d.press(.key(.character("n")))
        #expect(d.text.contains("Looking for the next story with unseen items (10 stories so far; Esc: stop)"))
        d.wait(2.5)
        #expect(d.state.row.selection == 22 && d.state.row.seeking == nil, "found two pages on")
        d.press(.key(.character("n")))
        d.wait(2)
        #expect(d.state.row.selection == 2, "the feed ended: round to the first unseen story")
        #expect(d.text.contains("↺ Back to the first unseen story (the feed ended)"))
    }

    @Test func nSaysAllCaughtUpWhenEverythingIsSeen() {
        let feed = SyntheticFeed(count: 5).loadAll()
        var seen = SeenState()
        for story in feed.stories { for item in story.items { seen.markSeen(story: story.id, item: item.id) } }
        let d = AppDriver(width: 100, height: 30, source: SyntheticFeed(count: 5), seen: seen)
        d.press(.key(.character("n")))
        #expect(d.state.row.selection == 0)
        #expect(d.text.contains("✓ All caught up: every story in this feed is seen"))
        d.press(.key(.enter))
        #expect(d.state.viewer != nil)
        d.press(.key(.character("n")))
        #expect(d.state.viewer == nil && d.text.contains("All caught up"), "the viewer closes and says so")
    }

    @Test func nInTheViewerSkipsSeenStories() {
        let feed = SyntheticFeed(count: 8).loadAll()
        var seen = SeenState()
        for index in [1, 2, 3] { for item in feed.stories[index].items { seen.markSeen(story: feed.stories[index].id, item: item.id) } }
        let d = AppDriver(width: 100, height: 30, source: SyntheticFeed(count: 8), seen: seen)
        d.press(.key(.enter))
        #expect(d.position?.story == 0)
        d.press(.key(.character("n")))
        d.finishWork()
        #expect(d.position?.story == 4)
    }

    @Test func slashFindsAPersonAsTheNameIsTypedAndEscGoesBack() throws {
        let d = AppDriver(width: 100, height: 30)
        let stories = d.state.feed.store.summaries
        let priya = try #require(stories.firstIndex { $0.author.name.hasPrefix("Priya") })
        d.press(.key(.right), .key(.right))
        d.press(.key(.character("/")))
        #expect(d.lines.last?.contains("/ ") == true && d.text.contains("type a name or @handle"))
        d.type("PRIYA")
        #expect(d.state.row.selection == priya, "case does not matter")
        #expect(d.lines.last?.contains("1 match · Tab next · Enter done · Esc cancel") == true)
        d.press(.key(.escape))
        #expect(d.state.row.selection == 2 && d.state.row.search == nil, "Esc goes back where the search began")
        d.press(.key(.character("/")))
        d.type("@priya.c")
        d.press(.key(.enter))
        #expect(d.state.row.selection == priya && d.state.row.search == nil, "a handle with its @; Enter ends there")
        d.press(.key(.character("/")))
        d.type("sofia")
        #expect(d.state.feed.store.summaries[d.state.row.selection].author.name.hasPrefix("Sofía"), "accents do not matter")
        d.press(.key(.backspace), .key(.backspace), .key(.backspace), .key(.backspace), .key(.backspace))
        d.type("zzz")
        #expect(d.text.contains("no one by that name · Esc cancel"), "the whole feed is loaded: nothing further to look through")
        d.press(.key(.character("u"), .control))
        #expect(d.state.row.search?.text == "")
        d.press(.key(.character("\u{1B}")), .key(.character("\u{7}")))
        #expect(d.state.row.search?.text == "", "control characters are never typed in")
        d.type(String(repeating: "x", count: 300))
        #expect(d.state.row.search?.text.count == NameSearch.maxLength)
    }

    @Test func tabGoesFromMatchToMatchAndRound() {
        let d = Self.long(count: 10)
        let names = d.state.feed.store.summaries.map(\.author.handle)
        #expect(names.contains("user1"))
        d.press(.key(.character("/")))
        d.type("user")
        #expect(d.state.row.selection == 0 && d.state.row.search?.matches == 10)
        d.press(.key(.tab), .key(.tab))
        #expect(d.state.row.selection == 2)
        d.press(.key(.tab, .shift), .key(.up), .key(.up))
        #expect(d.state.row.selection == 9, "back past the first goes round to the last")
    }

    @Test func enterOnANameNotLoadedLooksFurtherAlongTheFeed() {
        let d = Self.long()
        d.press(.key(.character("/")))
        d.type("user31")
        #expect(d.state.row.search?.matches == 0)
        d.press(.key(.enter))
        #expect(d.text.contains("Looking for 'user31' further along the feed (10 stories so far; Esc: stop)"))
        d.wait(4)
        #expect(d.state.row.selection == 31 && d.state.row.seeking == nil)
        d.press(.key(.character("/")))
        d.type("nobody")
        d.press(.key(.enter))
        d.wait(1)
        #expect(d.text.contains("⚠ No one called 'nobody' in this feed (all 35 stories looked through)"))
    }

    @Test func theHintLineKeepsWhatMattersMostWhenNarrow() {
        let d = AppDriver(width: 40, height: 12)
        #expect(d.lines.last?.hasPrefix(" ←→ choose  Enter open  ? help  q quit") == true)
        d.press(.key(.enter))
        d.finishWork()
        let hint = d.lines.last ?? ""
        #expect(hint.contains("Esc close") && hint.contains("? help") && hint.contains("←→ item"), "\(hint)")
        #expect(!hint.contains("Space") && !hint.contains("unseen"))
        // The widest screen gets every hint, in the order they are written.
        let wide = HintLine.layout(HintLine.hints(d.state), width: 200).map(\.hint.meaning)
        #expect(wide == ["item", "story", "pause", "unseen", "close", "help"])
    }

    @Test func aClickOnAHintDoesWhatItsKeyDoes() throws {
        let d = AppDriver(width: 100, height: 30)
        let row = 29
        func column(of text: String) throws -> Int {
            let line = try #require(d.lines.last)
            let range = try #require(line.range(of: text))
            return line[line.startIndex..<range.lowerBound].count
        }
        d.click(column: try column(of: "? help"), row: row)
        #expect(d.state.chrome.modal == .help)
        d.click(column: 5, row: 5)
        #expect(d.state.chrome.modal == nil, "a click closes the help")
        d.click(column: try column(of: "open"), row: row)
        d.finishWork()
        #expect(d.state.viewer != nil)
        d.click(column: try column(of: "→"), row: row)
        #expect(d.position?.item == 1, "the arrow of ←→ goes on an item")
        d.click(column: try column(of: "←"), row: row)
        #expect(d.position?.item == 0)
        // Pressed on one key and released on another: nothing.
        let esc = try column(of: "Esc"), help = try column(of: "? help")
        d.mouse(.press(.left), column: esc, row: row)
        d.mouse(.release(.left), column: help, row: row)
        #expect(d.state.viewer != nil && d.state.chrome.modal == nil)
        #expect(d.lastDecision?.declined.contains { $0.reason.contains("released off the key for dismiss") } == true)
        d.click(column: esc + 1, row: row)
        #expect(d.state.viewer == nil, "Esc close closes")
    }

    @Test func theRowsArrowsAreButtons() {
        let d = Self.long()
        #expect(d.lines[RingLayout.row + 1].hasSuffix("›"))
        d.click(column: 99, row: RingLayout.row + 1)
        let screenful = RingLayout.visibleBubbles(width: 100)
        #expect(d.state.row.selection == screenful)
        #expect(d.lines[RingLayout.row + 1].hasPrefix("‹"))
        d.click(column: 0, row: RingLayout.row + 1)
        #expect(d.state.row.selection == 0)
    }

    @Test func theProblemsListShowsEveryProblemAndScrolls() throws {
        var load = Fixture.demo
        load.warnings = (1...30).map { FeedWarning("stories/s\($0).json: items[\($0)].type: unknown item type 'poll'; item skipped") }
        let d = AppDriver(width: 80, height: 24, source: MemoryFeed(load: load))
        #expect(d.text.contains("⚠ 30 feed problems (p: all); latest: stories/s30.json"))
        d.press(.key(.character("p")))
        #expect(d.state.chrome.modal == .problems)
        #expect(d.text.contains("Feed problems · 30 problems"))
        #expect(d.text.contains("• stories/s1.json: items[1].type: unknown item type 'poll'; item skipped"))
        let footer = try #require(d.lines.first { $0.contains("PgDn more") })
        #expect(footer.contains("1–"))
        for _ in 0..<10 { d.press(.key(.pageDown)) }
        #expect(d.text.contains("• stories/s30.json"), "the last page has the newest")
        #expect(!d.text.contains("PgDn more"), "and nothing more to go on to")
        d.press(.key(.pageUp))
        #expect(d.text.contains("PgDn more"), "one page back after any number of presses past the end")
        d.press(.key(.character("p")))
        #expect(d.state.chrome.modal == nil)
    }

    @Test func aLongProblemKeepsItsStartOnTheHomeScreen() throws {
        var load = Fixture.demo
        let long = "stories/mika.json: items[2].caption: " + String(repeating: "far too long a caption ", count: 40)
        load.warnings = [FeedWarning(long)]
        let d = AppDriver(width: 60, height: 20, source: MemoryFeed(load: load))
        let first = try #require(d.lines.firstIndex { $0.contains("⚠") })
        #expect(d.lines[first].hasPrefix("  ⚠ stories/mika.json: items[2].caption: far too long"), "where it is comes first")
        #expect(d.lines[first + 1].hasSuffix("…"), "the rest is cut, and says so")
        d.press(.key(.character("p")))
        let box = d.lines.filter { $0.contains("far too long") }.count
        #expect(box >= 5, "the problems list shows it whole, wrapped")
    }

    @Test func underTheHelpOrTheProblemsNothingPlaysOrIsMarkedSeen() {
        for key: Character in ["?", "p"] {
            let d = AppDriver(width: 100, height: 30)
            d.press(.key(.enter))
            d.finishWork()
            let seenBefore = d.state.seen
            d.press(.key(.character(key)))
            d.wait(30)
            #expect(d.position?.story == 0 && d.position?.item == 0, "under \(key)")
            #expect(d.state.seen == seenBefore)
            #expect(d.state.viewer?.playback.isRunning == false)
            d.press(.key(.escape))
            #expect(d.state.viewer?.playback.isRunning == true, "it plays again once closed")
        }
    }

    @Test func theHelpAtTheSmallestSizeScrollsAndSaysSo() {
        let d = AppDriver(width: 40, height: 12)
        d.press(.key(.character("?")))
        let total = ModalLayout.content(d.state)?.rows.count ?? 0
        #expect(total > 10)
        #expect(d.text.contains("PgDn more"))
        var seenRows = Set<String>()
        for _ in 0..<total {
            for line in d.lines { seenRows.insert(line) }
            d.press(.key(.pageDown))
        }
        for binding in d.state.bindings.bindings(in: .home) where binding.command != .toggleHelp {
            #expect(seenRows.contains { $0.contains(binding.keyNames) }, "\(binding.keyNames) can be reached")
        }
    }

    /// A link is opened (o), its address shown (u) or copied (y) only when asked, and what
    /// happened is said on the last line.
    @Test func aLinkIsOpenedShownOrCopiedOnlyWhenAsked() throws {
        let d = AppDriver(width: 100, height: 30)
        var copied: [String] = []
        d.engine.copyToClipboard = { copied.append($0) }
        d.press(.key(.character("/")))
        d.type("jonas")
        d.press(.key(.enter), .key(.enter))
        d.finishWork()
        d.press(.key(.character(" ")))
        #expect(d.text.contains("↗ About the Hubble Deep Field") && !d.text.contains("https://hubblesite.org/"), "Jonas's first item")
        #expect(copied.isEmpty, "nothing reaches the clipboard unasked")
        d.press(.key(.character("u")))
        #expect(d.text.contains("  https://hubblesite.org/"), "u shows the address")
        let region = try #require(d.engine.frame.links.first) // the frame the terminal was given
        #expect(region.url == "https://hubblesite.org/" && d.engine.frame.links.count == 2, "title and address are links")
        d.press(.key(.character("y")))
        #expect(copied == ["https://hubblesite.org/"])
        #expect(d.lines.last?.hasPrefix(" ⧉ Copied https://hubblesite.org/") == true)
        d.press(.key(.character("o")))
        #expect(d.lines.last?.contains("https://hubblesite.org/") == true)
        d.finishWork()
        d.press(.key(.character("u")))
        #expect(!d.text.contains("  https://hubblesite.org/"), "u hides it again")
        d.press(.key(.right))
        d.finishWork()
        d.press(.key(.character("o")))
        #expect(d.lines.last?.contains("This item has no link") == true, "the next item has none")
        d.press(.key(.character(" ")))
        #expect(d.lines.last?.hasPrefix(" ←→ item") == true, "the next key clears the notice")
    }

    /// `/` while a story still loads stops the opening (as Esc would): the viewer never opens
    /// under the field, where keys went to a field that took none of them.
    @Test func theSearchFieldStopsAStoryStillOpeningAndNeverSitsOverTheViewer() {
        let d = AppDriver(width: 100, height: 30, network: AppDriver.network(latency: 1))
        d.wait(1.5)
        d.press(.key(.enter))
        #expect(d.state.row.opening != nil)
        d.press(.key(.character("/")))
        #expect(d.state.row.opening == nil && d.state.row.search != nil)
        d.type("mika")
        d.wait(3)
        #expect(d.state.viewer == nil, "the story stopped loading: no viewer opened under the field")
        d.press(.key(.escape))
        #expect(d.state.row.search == nil)
    }

    @Test func aSpaceBetweenWordsAndCtrlLWorkInTheField() {
        let d = AppDriver(width: 100, height: 30)
        d.press(.key(.character("/")))
        d.type(" priya raman")
        #expect(d.state.row.search?.text == "priya raman", "a leading space is not typed; one between words is")
        #expect(d.state.feed.store.summaries[d.state.row.selection].author.name == "Priya Raman")
        d.press(.key(.character("l"), .control))
        #expect(d.lastDecision?.handler == "app" && d.state.row.search != nil, "Ctrl-L redraws, the field stays")
    }

    @Test func slashAndNOnAScreenOfSectionsGoBackToTheRow() throws {
        let d = AppDriver(width: 100, height: 34)
        // Explore › Space: a screen of sections with no ring row.
        d.press(.key(.down), .key(.down), .key(.down), .key(.down), .key(.enter))
        #expect(d.state.home.levels.count == 2)
        d.press(.key(.character("/")))
        #expect(d.state.home.levels.count == 1 && d.state.home.level.focus == nil, "back on the home, the row has the keyboard")
        d.press(.key(.escape), .key(.down), .key(.down), .key(.down), .key(.down), .key(.enter))
        #expect(d.state.home.levels.count == 2)
        d.press(.key(.character("n")))
        #expect(d.state.home.levels.count == 1 && d.text.contains("◉ stories"))
    }

    /// The hint line shows the keys in force: keys.conf rebinds them there too, and a click
    /// on one still does what it says.
    @Test func theHintLineShowsTheKeysInForce() throws {
        let bindings = try KeyBindings.standard.applying("home quit x\nviewer togglePause p Space\n", file: "keys.conf")
        let d = AppDriver(width: 100, height: 30, bindings: bindings)
        let home = try #require(d.lines.last)
        #expect(home.contains("x quit") && !home.contains("q quit"), "\(home)")
        d.press(.key(.enter))
        d.finishWork()
        let viewer = try #require(d.lines.last)
        #expect(viewer.contains("p pause") && !viewer.contains("Space pause"), "\(viewer)")
        let line = viewer
        let range = try #require(line.range(of: "p pause"))
        d.click(column: line[line.startIndex..<range.lowerBound].count, row: 29)
        #expect(d.state.viewer?.isPaused == true)
    }
}
