import StoriesApp
import StoriesCore
import StoriesTestSupport
import Testing

/// Issue 34, point 2: what the viewer saw on another terminal comes in as news and is merged
/// by the reducer — the ring turns grey, nothing seen here is lost, and it is saved here too.
@MainActor @Suite struct SeenElsewhereTests {
    /// The top line of the ring row's bubbles: `●` on a bubble not fully seen.
    static func ringTops(_ driver: AppDriver) -> String {
        driver.snapshot().split(separator: "\n").first { $0.contains("┏") || $0.contains("╭") }.map(String.init) ?? ""
    }

    @Test func seenElsewhereTurnsTheRingGreyAndKeepsWhatWasSeenHere() {
        var local = SeenState()
        local.markSeen(story: "mika", item: "chelsea")
        local.markTooltipShown("here")
        let driver = AppDriver(seen: local)
        driver.finishWork()
        let before = Self.ringTops(driver)
        #expect(before.hasPrefix("   ┏━━━━━━●"), "Ayla's ring unseen: \(before)")

        var elsewhere = SeenState()
        for item in ["astronaut", "ayla-t1", "rocket"] { elsewhere.markSeen(story: "ayla", item: item) }
        elsewhere.markSeen(story: "mika", item: "coffee")
        elsewhere.markTooltipShown("there")
        driver.deliver(.seenElsewhere(elsewhere))
        driver.finishWork()
        let after = Self.ringTops(driver)
        #expect(after.hasPrefix("   ┏━━━━━━┓"), "Ayla's ring grey: \(after)")

        let seen = driver.engine.state.seen
        #expect(seen.isSeen(story: "mika", item: "chelsea") && seen.isSeen(story: "mika", item: "coffee"))
        #expect(seen.isFullySeen(story: "ayla", items: ["astronaut", "ayla-t1", "rocket"]))
        #expect(seen.hasShownTooltip("here") && seen.hasShownTooltip("there"))
        #expect(driver.persisted.last == seen, "what came from elsewhere is saved here too")

        // The same news again changes nothing and saves nothing.
        let saves = driver.persisted.count
        driver.deliver(.seenElsewhere(elsewhere))
        driver.finishWork()
        #expect(driver.persisted.count == saves)
        #expect(Self.ringTops(driver) == after)
    }
}
