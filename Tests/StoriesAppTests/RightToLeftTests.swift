@testable import StoriesFeedIO
import StoriesTestSupport
import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 33: the layout mirrored right to left, through the real engine on the virtual
/// clock — what is drawn, and what taps, keys and swipes do.
@MainActor
@Suite struct RightToLeftTests {
    static let rtl = LayoutChoice(said: .rightToLeft)

    @Test func theRowRunsFromTheRightAndTheViewerIsMirrored() {
        let pilot = AppDriver(width: 80, height: 24, layout: Self.rtl)
        expectSnapshot(pilot.snapshot(), named: "rtl-home-80x24")
        let rows = pilot.snapshot().components(separatedBy: "\n").dropFirst() // after the size line
        // The first story's bubble is at the right end of the row, selected (heavy).
        #expect(rows[4].hasSuffix("┃  AD  ┃"), "\(rows[4])")
        pilot.press(.key(.enter))
        pilot.wait(2.5)
        expectSnapshot(pilot.snapshot(), named: "rtl-viewer-photo-80x24")
        // Half the first of three segments filled, from the right.
        let bar = pilot.snapshot().components(separatedBy: "\n")[1]
        let segment = bar.suffix(26)
        #expect(segment.hasSuffix("━━━━━━━━━━━"), "the first segment fills from the right: \(bar)")
        #expect(bar.hasPrefix(" ─────"), "the segments after it are empty, at the left: \(bar)")
    }

    @Test func aTapOnTheLeftThirdGoesForwardAndOnTheRightBack() {
        let pilot = AppDriver(width: 90, height: 24, layout: Self.rtl)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.click(column: 5, row: 12) // the left third
        #expect(pilot.state.viewer?.itemIndex == 1, "forward, right to left")
        pilot.click(column: 40, row: 12) // the middle: forward too
        #expect(pilot.state.viewer?.itemIndex == 2)
        pilot.click(column: 85, row: 12) // the right third: back
        #expect(pilot.state.viewer?.itemIndex == 1)
        // Left to right, the same tap on the left goes back.
        let ltr = AppDriver(width: 90, height: 24)
        ltr.press(.key(.enter), .key(.right))
        ltr.wait(1)
        ltr.click(column: 5, row: 12)
        #expect(ltr.state.viewer?.itemIndex == 0)
    }

    @Test func sidewaysKeysGoTheWayTheyPointAndBracketsFollowTheReading() {
        let pilot = AppDriver(width: 80, height: 24, layout: Self.rtl)
        pilot.press(.key(.left))
        #expect(pilot.state.row.selection == 1, "← moves to the next bubble, which is on the left")
        pilot.press(.key(.right))
        #expect(pilot.state.row.selection == 0)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.press(.key(.left))
        #expect(pilot.state.viewer?.itemIndex == 1, "← goes forward in the viewer")
        pilot.press(.key(.character("h")))
        #expect(pilot.state.viewer?.itemIndex == 2, "h too")
        pilot.press(.key(.right))
        #expect(pilot.state.viewer?.itemIndex == 1, "→ goes back")
        pilot.press(.key(.character("]")))
        #expect(pilot.state.viewer?.storyIndex == 1, "] is the next story, whatever the direction")
        pilot.press(.key(.character("[")))
        #expect(pilot.state.viewer?.storyIndex == 0)
        pilot.press(.key(.left, [.shift]))
        #expect(pilot.state.viewer?.storyIndex == 1, "Shift-← is the next story, right to left")
        // The help says so.
        pilot.press(.key(.character("?")))
        let help = pilot.snapshot()
        #expect(help.contains("← h          tap left: next item"), "\(help)")
        #expect(help.contains("] Shift-← H  swipe: next story"))
        #expect(help.contains("right third: back · left: next"))
    }

    @Test func aSwipeToTheRightGoesToTheNextStory() {
        let pilot = AppDriver(width: 80, height: 24, layout: Self.rtl)
        pilot.press(.key(.enter))
        pilot.wait(1)
        pilot.drag(from: (20, 12), to: (60, 12))
        pilot.finishWork()
        #expect(pilot.state.viewer?.storyIndex == 1, "the finger moved right: the next story")
        pilot.drag(from: (60, 12), to: (20, 12))
        pilot.finishWork()
        #expect(pilot.state.viewer?.storyIndex == 0, "to the left: back")
    }

    @Test func theCubeTurnsTheOtherWay() {
        // Mid-turn to the next story, the arriving face (Mika's, its caption "Chelsea
        // supervising the morning.") is on the left.
        func midTurn(_ layout: LayoutChoice) -> [String] {
            let pilot = AppDriver(width: 80, height: 24, motion: true, layout: layout)
            pilot.press(.key(.enter))
            pilot.wait(1)
            pilot.press(.key(.character("]")))
            pilot.frame(after: Transition.cubeDuration / 2)
            return Array(pilot.snapshot().components(separatedBy: "\n").dropFirst())
        }
        // Where the arriving story's name is, in columns from the left (nil: not drawn).
        func column(of name: String, in lines: [String]) -> Int? {
            for line in lines {
                guard let range = line.range(of: name) else { continue }
                return String(line[..<range.lowerBound]).displayWidth
            }
            return nil
        }
        let rtl = midTurn(Self.rtl), ltr = midTurn(LayoutChoice())
        let arrivingRTL = column(of: "Chelsea", in: rtl), arrivingLTR = column(of: "Chelsea", in: ltr)
        #expect(arrivingRTL.map { $0 < 40 } == true, "right to left, the next story comes in from the left: \(String(describing: arrivingRTL))")
        #expect(arrivingLTR.map { $0 >= 40 } == true, "left to right, from the right: \(String(describing: arrivingLTR))")
    }

    @Test func aFeedThatSaysRightToLeftMirrorsTheLayout() {
        var feed = MemoryFeed(load: Fixture.demo)
        feed.direction = .rightToLeft
        let pilot = AppDriver(width: 80, height: 24, source: feed)
        #expect(pilot.state.isRightToLeft)
        // What the person said wins over the feed.
        let said = AppDriver(width: 80, height: 24, source: feed, layout: LayoutChoice(said: .leftToRight))
        #expect(!said.state.isRightToLeft)
        // The locale is asked only when the feed says nothing.
        let locale = AppDriver(width: 80, height: 24, layout: LayoutChoice(locale: .rightToLeft))
        #expect(locale.state.isRightToLeft)
    }
}
