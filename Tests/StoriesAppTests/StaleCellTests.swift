import StoriesCells
import StoriesApp
import StoriesMedia
import StoriesCore
import StoriesUI
import Testing

/// No stale cell survives a frame (issue 13, point 2): after every kind of transition, and
/// at every frame of it, what the terminal shows (the test screen, fed the same canvas
/// diffs as ncurses) is exactly a fresh full drawing of the state.
@MainActor
@Suite struct StaleCellTests {
    /// Runs frames until the animation ends, checking the screen at each.
    func settle(_ d: AppDriver, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var frames = 0
        repeat {
            d.frame(after: 1.0 / 30)
            expectFresh(d, "\(what), frame \(frames)", sourceLocation: sourceLocation)
            frames += 1
        } while d.state.viewing.transition != nil && frames < 60
        d.finishWork()
        d.frame(after: 0.05)
        expectFresh(d, "\(what), at rest", sourceLocation: sourceLocation)
    }

    func expectFresh(_ d: AppDriver, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let shown = d.screen.canvas
        let fresh = d.engine.render()
        guard shown != fresh else { return }
        let a = Snapshot.lines(of: shown), b = Snapshot.lines(of: fresh)
        let rows = a.indices.filter { a[$0] != b[$0] }
        let styled = rows.isEmpty ? " (colours or attributes differ)" : ""
        let detail = rows.prefix(3).map { "shown: \(a[$0])\nfresh: \(b[$0])" }.joined(separator: "\n")
        Issue.record(Comment(rawValue: "\(what): the screen is not a fresh drawing\(styled); rows \(Array(rows.prefix(5))):\n\(detail)"),
                     sourceLocation: sourceLocation)
    }

    @Test(arguments: [(100, 30), (80, 24), (40, 12)])
    func everyKindOfTransitionEndsOnAFreshScreen(width: Int, height: Int) {
        let d = AppDriver(width: width, height: height, motion: true)
        d.finishWork()
        expectFresh(d, "the row")
        // Onto a text card (山田 花子's first item), the zoom the issue saw cells left from.
        d.press(.key(.right), .key(.right), .key(.enter))
        settle(d, "present onto a text card")
        d.press(.key(.character("]")))
        settle(d, "cube by key")
        d.press(.key(.character("[")))
        settle(d, "cube back")
        d.drag(from: (width * 2 / 3, height / 2), to: (width / 6, height / 2), steps: 6)
        settle(d, "cube by drag")
        d.drag(from: (width / 2, height / 2), to: (width / 2 - 1, height / 2), steps: 1)
        settle(d, "a drag short of its threshold snaps back")
        d.press(.key(.right))
        settle(d, "tap on")
        for key: Character in ["?", "p", "g", "i"] {
            d.press(.key(.character(key)))
            settle(d, "overlay \(key) opens")
            d.press(.key(key == "?" || key == "p" ? .escape : .character(key)))
            settle(d, "overlay \(key) closes")
        }
        d.press(.key(.character("f")))
        settle(d, "fit toggled")
        d.press(.key(.character("]")))
        d.resize(width: width - 7, height: height - 3)
        settle(d, "a resize during a cube")
        d.resize(width: width, height: height)
        settle(d, "back to the first size")
        d.press(.key(.escape))
        settle(d, "dismiss into the bubble")
        d.press(.key(.enter))
        d.frame(after: 0.1)
        d.drag(from: (width / 2, 4), to: (width / 2, height - 2), steps: 5)
        settle(d, "pull-down dismiss")
        d.press(.key(.character("/")))
        d.type("ayla")
        settle(d, "the / field")
        d.press(.key(.escape), .key(.down))
        settle(d, "into the sections")
        d.resize(width: 30, height: 8)
        settle(d, "too small")
        d.resize(width: width, height: height)
        settle(d, "usable again")
    }
}

/// Seen and unseen rings differ in their cells, not only in colour (NO_COLOR, 8 colours).
@MainActor
@Suite struct RingsWithoutColourTests {
    @Test func seenAndUnseenBubblesDifferWithoutColour() {
        var watched = SeenState()
        let ayla = Fixture.demo.stories[0]
        for item in ayla.items { watched.markSeen(story: ayla.id, item: item.id) }
        let d = AppDriver(width: 100, height: 30, seen: watched)
        d.press(.key(.right))
        let row = d.lines[RingLayout.row]
        let seen = Bubble(name: "a", initials: "A", ring: .seen, isSelected: false)
        let unseen = Bubble(name: "a", initials: "A", ring: .unseen, isSelected: false)
        var a = Canvas(width: 12, height: 4), b = Canvas(width: 12, height: 4)
        seen.draw(into: &a, x: 0, y: 0)
        unseen.draw(into: &b, x: 0, y: 0)
        #expect(Snapshot.lines(of: a) != Snapshot.lines(of: b), "the text alone tells them apart")
        // On the screen: Ayla's story is all seen and has no dot; every other bubble has one.
        #expect(row.hasPrefix("   ╭──────╮"), "\(row)")
        #expect(row.components(separatedBy: "●").count - 1 == RingLayout.visibleBubbles(width: 100) - 1, "\(row)")
    }
}

/// `f` asks for the other fit: the photo as it was stays until that one is ready, never
/// its BlurHash in between (issue 13: pressing f flashed a full-screen BlurHash).
@MainActor
@Suite struct FitToggleTests {
    @Test func untilTheOtherFitIsReadyThePhotoAsItWasIsDrawn() {
        let cache = RenditionCache(budget: 1 << 24)
        let media = Media(location: "media/astronaut.jpg", blurhash: "TQKcbE+b-py?AC%NX-xuEM+bt7V?")
        let fit = RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: Display(), fit: true)
        let fill = RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: Display(), fit: false)
        let photo = CellImage(width: fit.width, height: fit.height,
                              cells: Array(repeating: ImageCell(glyph: "▀", foreground: .palette(208), background: .palette(16)), count: fit.width * fit.height))
        let blur = CellImage(width: fit.width, height: fit.height,
                             cells: Array(repeating: ImageCell(glyph: "▀", foreground: .palette(95), background: .palette(95)), count: fit.width * fit.height))
        cache.insert(photo, for: fit)
        cache.insert(blur, for: fill.placeholder(media.blurhash ?? ""))
        let lookup = PictureLookups.cached(cache, screenWidth: 80, screenHeight: 24, display: Display(), fit: false)
        #expect(lookup(media) == .ready(photo), "the fitted photo, not the BlurHash, while the filled one is made")
        let filled = CellImage(width: fill.width, height: fill.height,
                               cells: Array(repeating: ImageCell(glyph: "▀", foreground: .palette(1), background: .palette(2)), count: fill.width * fill.height))
        cache.insert(filled, for: fill)
        #expect(lookup(media) == .ready(filled), "then the filled one")
        let fresh = PictureLookups.cached(RenditionCache(budget: 1 << 24), screenWidth: 80, screenHeight: 24, display: Display(), fit: true)
        #expect(fresh(media) == .loading, "with nothing made yet, nothing is invented")
    }

    @Test func wholePhotosAreTheDefault() {
        let d = AppDriver(width: 80, height: 24)
        #expect(d.state.media.photosFit)
        d.press(.key(.enter), .key(.character("f")))
        #expect(!d.state.media.photosFit)
    }
}
