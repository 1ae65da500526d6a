import Testing
@testable import StoriesCore

/// The router over the real reducer: inputs in, actions and decisions out.
struct RouterHarness {
    var h: ReducerHarness
    var router = GestureRouter()
    var width = 90
    var height = 30

    init(motion: Bool = false) { h = ReducerHarness(motion: motion) }

    /// Bubbles as the ring row lays them out: rows 2–5, ten columns each from column 2.
    var surface: GestureSurface {
        let count = h.state.store.count
        return GestureSurface(width: width, height: height, isUsable: width >= 40 && height >= 12, bubbleAt: { column, row in
            guard (2..<6).contains(row), column >= 2 else { return nil }
            let index = (column - 2) / 10
            return index < count ? index : nil
        })
    }

    mutating func input(_ event: InputEvent) {
        var harness = h
        router.route(event, at: h.now.uptime, surface: surface, state: { harness.state }, send: { harness.send($0) })
        h = harness
    }

    mutating func key(_ key: Key, _ modifiers: Modifiers = []) { input(.key(key, modifiers)) }

    mutating func mouse(_ kind: MouseEvent.Kind, _ column: Int, _ row: Int) {
        input(.mouse(MouseEvent(kind: kind, column: column, row: row)))
    }

    /// Time passes; the hold check and frame ticks come when they are due.
    mutating func wait(_ seconds: Double) {
        h.now = h.now.advanced(by: seconds)
        if let wake = router.wakeAt, wake <= h.now.uptime {
            var harness = h
            router.wake(at: h.now.uptime) { harness.send($0) }
            h = harness
        }
        h.send(.tick)
    }

    var last: GestureDecision? { h.state.gestureLog.last }
    var position: (story: Int, item: Int)? { h.position }
}

@Suite struct GestureRouterTests {
    func opened(motion: Bool = false) -> RouterHarness {
        var r = RouterHarness(motion: motion)
        r.key(.enter)
        r.h.send(.completeTransition)
        return r
    }

    @Test func aClickInTheLeftThirdGoesBackAndTheRestGoesOn() {
        var r = opened()
        r.mouse(.press(.left), 60, 12)
        #expect(r.last?.gesture == "press")
        r.wait(0.05)
        r.mouse(.release(.left), 60, 12)
        #expect(r.position! == (0, 1))
        let tap = r.last
        #expect(tap?.gesture == "tap right")
        #expect(tap?.handler == "viewer.tapZones")
        #expect(tap?.result == ["nextItem"])
        #expect(tap?.declined.map(\.recognizer) == ["hold", "swipe"])
        #expect(tap?.declined.first?.reason == "released after 50 ms, under 250 ms")
        r.mouse(.press(.left), 5, 12)
        r.mouse(.release(.left), 5, 12)
        #expect(r.position! == (0, 0))
        #expect(r.last?.gesture == "tap left")
    }

    @Test func aClickExactlyOnTheZoneEdgeBelongsToTheRight() {
        var r = opened()
        r.h.send(.nextItem)                     // item 1, so "back" is visible
        r.mouse(.press(.left), 29, 12)          // 90 / 3 = 30: columns 0–29 are the left third
        r.mouse(.release(.left), 29, 12)
        #expect(r.position! == (0, 0))
        r.mouse(.press(.left), 30, 12)
        r.mouse(.release(.left), 30, 12)
        #expect(r.position! == (0, 1))
        #expect(r.last?.notes.first == "column 30 is in the right two thirds (30–89)")
    }

    @Test func holdPausesAndItsReleaseResumesWithoutATap() {
        var r = opened()
        r.wait(1)
        r.mouse(.press(.left), 60, 12)
        #expect(r.router.wakeAt == r.h.now.uptime + 0.25)
        r.wait(0.3)
        #expect(r.last?.gesture == "hold")
        #expect(r.h.state.viewer?.isHeld == true)
        let held = r.h.elapsed
        r.wait(2)
        #expect(r.h.elapsed == held, "no progress while held")
        r.mouse(.release(.left), 60, 12)
        #expect(r.last?.gesture == "hold ended")
        #expect(r.last?.declined.first?.reason == "released after a hold")
        #expect(r.position! == (0, 0), "the release did not also tap")
        #expect(r.h.state.viewer?.isHeld == false)
        r.wait(1)
        #expect(abs(r.h.elapsed! - held! - 1) < 1e-9)
    }

    @Test func aDragLocksToItsFirstAxis() {
        var r = opened()
        r.mouse(.press(.left), 60, 12)
        r.mouse(.drag(.left), 58, 12)           // 2 columns: horizontal
        #expect(r.h.state.drag == .swipe(offset: -2.0 / 90))
        #expect(r.last?.declined.first?.recognizer == "pullDown")
        r.mouse(.drag(.left), 50, 25)           // now mostly down: still a swipe
        #expect(r.h.state.drag == .swipe(offset: -10.0 / 90))
        r.mouse(.release(.left), 50, 25)
        #expect(r.last?.gesture == "swipe cancelled (snaps back)")
        #expect(r.position! == (0, 0))

        r.mouse(.press(.left), 60, 5)
        r.mouse(.drag(.left), 60, 6)            // 1 row down: vertical
        #expect(r.h.state.drag == .dismiss(offset: 1.0 / 30))
        r.mouse(.drag(.left), 20, 7)            // then far left: still a pull-down
        #expect(r.h.state.drag == .dismiss(offset: 2.0 / 30))
        #expect(r.last?.handler == "viewer.pullDown")
    }

    @Test func aSmallWobbleIsNotYetADrag() {
        var r = opened()
        r.mouse(.press(.left), 60, 12)
        r.mouse(.drag(.left), 61, 12)
        #expect(r.h.state.drag == nil)
        #expect(r.last?.gesture == "drag (still under the slop)")
        r.mouse(.release(.left), 61, 12)
        #expect(r.last?.gesture == "tap right", "a wobble under the slop still taps")
    }

    /// 90 columns: a quarter is 22.5, so 22 columns (22 × 4 = 88 < 90) is short, 23 is enough.
    @Test(arguments: [(21, false), (22, false), (23, true)])
    func aSwipeCompletesFromAQuarterOfTheWidth(distance: Int, completes: Bool) {
        var r = opened()
        r.mouse(.press(.left), 80, 12)
        r.mouse(.drag(.left), 70, 12)
        r.mouse(.drag(.left), 80 - distance, 12)
        r.mouse(.release(.left), 80 - distance, 12)
        #expect((r.position!.story == 1) == completes)
        #expect(r.last?.gesture == (completes ? "swipe to the next story" : "swipe cancelled (snaps back)"))
    }

    @Test func aSwipeRightGoesToThePreviousStory() {
        var r = opened()
        r.h.send(.nextStory)
        r.mouse(.press(.left), 10, 12)
        r.mouse(.drag(.left), 40, 12)
        r.mouse(.release(.left), 40, 12)
        #expect(r.position!.story == 0)
        #expect(r.last?.gesture == "swipe to the previous story")
    }

    @Test(arguments: [(5, false), (6, true)])
    func aPullDownDismissesFromAFifthOfTheHeight(rows: Int, dismisses: Bool) {
        var r = opened()
        r.mouse(.press(.left), 45, 3)
        r.mouse(.drag(.left), 45, 3 + rows)
        r.mouse(.release(.left), 45, 3 + rows)
        #expect((r.h.state.viewer == nil) == dismisses)
        #expect(r.last?.notes.first == "\(rows) rows down, \(dismisses ? "at least" : "under") 6")
    }

    @Test func dragLeftThenDownThenReleaseIsOneSwipe() {
        var r = opened(motion: true)
        r.mouse(.press(.left), 70, 10)
        r.mouse(.drag(.left), 50, 10)
        r.mouse(.drag(.left), 40, 20)
        r.mouse(.release(.left), 40, 20)
        #expect(r.position!.story == 1, "30 columns left: the next story")
        #expect(r.h.state.viewer != nil, "the downward part never dismissed")
        guard case .cube? = r.h.state.transition?.kind else {
            Issue.record("expected a cube turning on from the drag")
            return
        }
    }

    @Test func aClickDuringThePresentCompletesItThenTaps() {
        var r = RouterHarness(motion: true)
        r.key(.enter)
        #expect(GesturePhase(r.h.state) == .presenting)
        r.wait(0.05)
        r.mouse(.press(.left), 70, 12)
        #expect(r.h.state.transition == nil, "the press completed the present")
        #expect(r.last?.result == ["completeTransition"])
        r.mouse(.release(.left), 70, 12)
        #expect(r.position! == (0, 1))
    }

    @Test func fiveKeyTapsWithin100MillisecondsDuringACube() {
        var r = opened(motion: true)
        r.key(.character("]"))
        #expect(GesturePhase(r.h.state) == .transitioning)
        for _ in 0..<5 {
            r.h.now = r.h.now.advanced(by: 0.02)
            r.key(.right)
        }
        // b0 b1 b2 c0, then past the last story the viewer is dismissed; none was lost, and
        // the fifth → (after the dismiss ended at once) moves along the row.
        #expect(r.h.state.viewer == nil)
        let taps = r.h.state.gestureLog.suffix(5)
        #expect(taps.map(\.gesture) == ["tap right", "tap right", "tap right", "tap right", "choose a story"])
        #expect(taps.last?.result == ["completeTransition", "selectNext"])
        #expect(taps.first?.result == ["completeTransition", "nextItem"])
    }

    @Test func onTheRowAClickOnABubbleOpensItOnRelease() {
        var r = RouterHarness()
        r.mouse(.press(.left), 13, 3)           // bubble 2
        #expect(r.h.state.viewer == nil, "nothing opens on the press")
        r.mouse(.release(.left), 14, 4)
        #expect(r.position! == (1, 0))
        #expect(r.last?.gesture == "click on bubble 2")
        #expect(r.last?.result == ["select 2", "open"])
    }

    @Test func aPressThatLeavesItsBubbleOpensNothing() {
        var r = RouterHarness()
        r.mouse(.press(.left), 13, 3)
        r.mouse(.release(.left), 25, 3)
        #expect(r.h.state.viewer == nil)
        #expect(r.last?.declined.first?.reason == "released off bubble 2")
        r.mouse(.press(.left), 60, 20)
        #expect(r.last?.declined.first?.reason == "no bubble at 60,20")
    }

    @Test func keysBecomeGesturesWithTheirHandlers() {
        var r = RouterHarness()
        r.key(.right)
        #expect(r.last?.handler == "home.ring")
        r.key(.enter)
        r.key(.character("]"))
        #expect(r.last?.gesture == "swipe to the next story")
        #expect(r.last?.handler == "viewer.cube")
        r.key(.character(" "))
        #expect(r.last?.handler == "viewer.playback")
        r.key(.character("x"))
        #expect(r.last?.gesture == "none")
        #expect(r.last?.declined == [.init("keys.viewer", "no binding for x")])
        r.key(.down)
        #expect(r.last?.gesture == "pull down (dismiss)")
        #expect(r.h.state.viewer == nil)
    }

    @Test func anUnboundAltKeyIsReadAsEscThenTheKey() {
        var r = opened()
        r.key(.character("q"), .alt)
        #expect(r.h.state.viewer == nil, "Esc dismissed")
        #expect(r.h.state.gestureLog.suffix(3).map(\.gesture) == ["Esc then key q", "pull down (dismiss)", "quit"])
    }

    @Test func theHelpTakesAClickAndTooSmallATerminalTakesNone() {
        var r = opened()
        r.key(.character("?"))
        r.mouse(.press(.left), 60, 12)
        #expect(!r.h.state.showsHelp)
        #expect(r.last?.handler == "overlay.help")
        r.width = 30
        r.mouse(.press(.left), 20, 12)
        r.mouse(.release(.left), 20, 12)
        #expect(r.position! == (0, 0))
        #expect(r.last?.declined.first?.recognizer == "all")
    }

    @Test func theWheelChoosesOnTheRowAndIsDeclinedInTheViewer() {
        var r = RouterHarness()
        r.mouse(.wheelDown, 10, 3)
        #expect(r.h.state.selection == 1)
        r.mouse(.wheelUp, 10, 3)
        #expect(r.h.state.selection == 0)
        r.key(.enter)
        r.mouse(.wheelDown, 10, 3)
        #expect(r.last?.declined.first?.reason == "the wheel means nothing in the viewer")
    }

    @Test func theLogKeepsTheLatestDecisions() {
        var r = RouterHarness()
        for _ in 0..<(AppState.gestureLogLimit + 5) { r.key(.right) }
        #expect(r.h.state.gestureLog.count == AppState.gestureLogLimit)
    }
}
