import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

/// Whole sessions, as a person would use the app: keys in, screen text out.
@MainActor
@Suite struct ScenarioTests {
    @Test func browseOpenWatchPauseAndDismiss() {
        let pilot = AppDriver()
        #expect(pilot.lines[0].hasPrefix(" ◉ stories · Demo stories"))
        #expect(pilot.text.contains("Ayla Demir  @ayla"))

        pilot.press(.key(.right))
        #expect(pilot.text.contains("Mika 🌸  @mika.blooms"))
        pilot.press(.key(.enter))
        #expect(pilot.lines[1].contains("Mika 🌸"))
        #expect(pilot.lines[1].hasSuffix("1/3"))
        #expect(pilot.text.contains("Chelsea supervising the morning."))

        // The bar fills with time: after 2.5 of 5 seconds the first segment is half done.
        pilot.wait(2.5)
        let bar = pilot.lines[0]
        let firstSegment = bar.dropFirst().prefix { $0 != " " }
        let done = firstSegment.filter { $0 == "━" }.count
        #expect(abs(done - firstSegment.count / 2) <= 1, "\(firstSegment)")
        pilot.wait(2.6)
        #expect(pilot.lines[1].hasSuffix("2/3"), "advanced after the item's duration")
        #expect(pilot.text.contains("Productivity: 0"))

        pilot.press(.key(.character(" ")))
        #expect(pilot.lines[1].hasSuffix("❚❚ paused  2/3"))
        pilot.wait(20)
        #expect(pilot.lines[1].hasSuffix("❚❚ paused  2/3"), "paused items do not advance")
        pilot.press(.key(.character(" ")))

        pilot.press(.key(.character("]")))
        #expect(pilot.lines[1].contains("山田 花子"))
        pilot.press(.key(.escape))
        #expect(pilot.lines[0].hasPrefix(" ◉ stories"))
        #expect(pilot.text.contains("山田 花子  @hanako"), "the selection is on the story last shown")
        #expect(pilot.quitStatus == nil)
        let saved = pilot.persisted
        #expect(saved.last == pilot.state.seen, "every change of seen state is handed over for saving")
        #expect(saved.last?.isSeen(story: "mika", item: "mika-t1") == true)

        pilot.type("q")
        #expect(pilot.quitStatus == 0)
    }

    @Test func progressBarFollowsElapsedTime() {
        let pilot = AppDriver()
        pilot.press(.key(.enter))
        func filled() -> Int { pilot.lines[0].filter { $0 == "━" || $0 == "╸" }.count }
        let atStart = filled()
        pilot.wait(1)
        let afterOne = filled()
        pilot.wait(2)
        let afterThree = filled()
        #expect(atStart == 0)
        #expect(afterOne > atStart)
        #expect(afterThree > afterOne)
        // Same elapsed time, coarser ticks: the same bar.
        let coarse = AppDriver()
        coarse.press(.key(.enter))
        for _ in 0..<6 { coarse.wait(0.5) }
        #expect(coarse.lines[0] == pilot.lines[0])
    }

    @Test func watchingEveryItemTurnsTheBubbleGrey() {
        let pilot = AppDriver()
        pilot.press(.key(.enter))
        pilot.wait(15.2)  // three items of 5 s, then on to the next story
        #expect(pilot.lines[1].contains("Mika 🌸"))
        pilot.press(.key(.escape))
        #expect(pilot.text.contains("Mika 🌸  @mika.blooms"))
        pilot.press(.key(.left))
        #expect(pilot.text.contains("3 items, all seen"))
        let ringColour = pilot.canvas[3, HomeScreen.ringRow].style.foreground
        #expect(ringColour == Theme.ringSeen)
        let unseenRing = pilot.canvas[13, HomeScreen.ringRow].style.foreground
        #expect(unseenRing == Theme.ringTop)
    }

    @Test func escThenAKeyInOneReadIsTwoKeys() {
        // Esc followed at once by q arrives as Alt-q: no binding takes it, so it is Esc
        // (dismiss the viewer) and then q (quit, on the home screen).
        let pilot = AppDriver()
        pilot.press(.key(.enter))
        #expect(pilot.state.viewer != nil)
        pilot.press(.key(.character("q"), .alt))
        #expect(pilot.state.viewer == nil)
        #expect(pilot.quitStatus == 0)
    }

    @Test func theLastItemOfTheLastStoryDismisses() {
        let pilot = AppDriver()
        pilot.press(.key(.end))                 // the last loaded story; the next page comes
        pilot.press(.key(.end), .key(.enter))
        #expect(pilot.lines[1].contains("陈伟 Chen Wei"))
        pilot.press(.key(.right), .key(.right), .key(.right))
        #expect(pilot.lines[0].hasPrefix(" ◉ stories"))
        #expect(pilot.text.contains("陈伟 Chen Wei  @chenwei"))
    }

    @Test func mouseClicksOpenBubblesAndTapInTheViewer() {
        let pilot = AppDriver()
        pilot.click(column: 2 + 2 * Bubble.slotWidth + 4, row: HomeScreen.ringRow + 1) // third bubble
        #expect(pilot.lines[1].contains("山田 花子"))
        #expect(pilot.lines[1].hasSuffix("1/2"))
        pilot.click(column: 70, row: 10)
        #expect(pilot.lines[1].hasSuffix("2/2"))
        pilot.click(column: 5, row: 10)
        #expect(pilot.lines[1].hasSuffix("1/2"))
        pilot.press(.key(.escape))
        pilot.click(column: 1, row: 20) // not on a bubble
        #expect(pilot.lines[0].hasPrefix(" ◉ stories"))
    }

    @Test func hostileFeedTextIsShownNotInterpreted() throws {
        let hostile = Story(id: "eve", author: Author(name: SafeText.line("Eve\u{1B}[2J\u{1B}]0;owned\u{07}")),
                            items: [StoryItem(id: "1", content: .text(SafeText.paragraphs("\u{1B}[31mred\u{9B}"), background: RGB(0, 0, 0)))])
        let pilot = AppDriver(source: MemoryFeed(load: FeedLoad(stories: [hostile], warnings: [])))
        pilot.press(.key(.enter))
        let cells = pilot.canvas.cells.compactMap(\.grapheme)
        #expect(!cells.contains { $0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } })
        #expect(pilot.text.contains("red"))
        #expect(!pilot.text.contains("[31m") && !pilot.text.contains("owned"), "no sequence leftovers")
        #expect(pilot.lines[1].contains("Eve"))
    }
}
