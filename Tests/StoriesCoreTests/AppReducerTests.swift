import Foundation
import Testing
@testable import StoriesCore

/// Drives the reducer with chosen moments: no sleeping, no real clock.
struct ReducerHarness {
    var state: AppState
    var now: Moment
    var effects: [AppEffect] = []

    /// A state with every story on one page and all their items loaded. Navigation tests
    /// run with instant cuts (`motion: false`): the logical state is the same either way,
    /// and TransitionTests look at the movement.
    init(stories: [Story] = ReducerHarness.stories, motion: Bool = false) {
        now = Moment(uptime: 100, date: Date(timeIntervalSince1970: 1_795_197_600))
        state = AppState(title: "Test", now: now)
        state.reduceMotion = !motion
        send(.start)
        let started = effects
        send(.pageLoaded(FeedPage(stories: stories.map(StorySummary.init), nextCursor: nil)))
        for story in stories { send(.storyLoaded(StoryLoad(story: story))) }
        effects = started
    }

    /// What `.start` asks for: the first page (and the cache's copy of it, shown until the
    /// page comes), a wake-up that says so if it is late, and the home sections.
    static let startEffects: [AppEffect] = [.loadPage(nil), .loadCachedPage, .wake(.firstPageOverdue, after: FeedState.firstPagePatience), .loadHome]

    /// An empty state, started, with no page yet.
    init(started: Void) {
        now = Moment(uptime: 100, date: Date(timeIntervalSince1970: 1_795_197_600))
        state = AppState(title: "Test", now: now)
        state.reduceMotion = true
        send(.start)
    }

    mutating func send(_ command: Command) { send(.command(command)) }

    /// Applies an action; view models it asks for are built at once (the runtime does it a
    /// moment later, off the main queue) so screens and tests see them.
    mutating func send(_ action: AppAction) {
        var all = AppReducer.reduce(&state, action, at: now)
        var next = 0
        while next < all.count {
            if case .buildViewModels(let job) = all[next] {
                all += AppReducer.reduce(&state, .viewModelsBuilt(ViewModelFactory.build(job)), at: now)
            }
            next += 1
        }
        effects = all
    }

    /// Exhaustive, as the Composable Architecture's TestStore: reduces `action` once (no
    /// view models built behind the test's back) and checks that the state is the one
    /// before changed by `change` and by nothing else, and that the effects are exactly
    /// `expected`, in order. A difference names the properties that differ.
    mutating func expect(_ action: AppAction, effects expected: [AppEffect], sourceLocation: SourceLocation = #_sourceLocation,
                         _ change: (inout AppState) -> Void = { _ in }) {
        var wanted = state
        wanted.now = now
        change(&wanted)
        let got = AppReducer.reduce(&state, action, at: now)
        #expect(got == expected, "effects of \(action)", sourceLocation: sourceLocation)
        if state != wanted {
            Issue.record(Comment(rawValue: "state after \(action) differs:\n" + Self.difference(state, wanted)), sourceLocation: sourceLocation)
        }
        effects = got
    }

    /// Which of the state's properties (slices and the shared context) differ, each with
    /// the first lines of its dump that do.
    static func difference(_ got: AppState, _ wanted: AppState) -> String {
        let pairs = zip(Mirror(reflecting: got).children, Mirror(reflecting: wanted).children)
        return pairs.compactMap { have, want -> String? in
            var a = "", b = ""
            dump(have.value, to: &a)
            dump(want.value, to: &b)
            guard a != b else { return nil }
            let (x, y) = (a.split(separator: "\n"), b.split(separator: "\n"))
            let lines = zip(x, y).filter { $0.0 != $0.1 }.prefix(6).map { "  got \($0.0)\n  not \($0.1)" }
            return "\(have.label ?? "?"):\n" + lines.joined(separator: "\n") + (x.count != y.count ? "\n  (\(x.count) lines against \(y.count))" : "")
        }.joined(separator: "\n")
    }

    /// The effects without view-model builds and preload requests.
    var work: [AppEffect] {
        effects.filter {
            switch $0 {
            case .buildViewModels, .preload: false
            default: true
            }
        }
    }

    /// Lets time pass and delivers the frame tick the run loop would.
    mutating func wait(_ seconds: Double) {
        now = now.advanced(by: seconds)
        send(.tick)
    }

    var position: (story: Int, item: Int)? {
        state.viewer.map { ($0.storyIndex, $0.itemIndex) }
    }

    /// A mouse report, read now, as the runtime hands it to the reducer.
    mutating func mouse(_ kind: MouseEvent.Kind, _ column: Int, _ row: Int) {
        send(.input(.mouse(MouseEvent(kind: kind, column: column, row: row)), readAt: now.uptime))
    }

    /// A left-button press at `from`, a drag to `to` (not released).
    mutating func drag(from: (Int, Int), to: (Int, Int)) {
        mouse(.press(.left), from.0, from.1)
        mouse(.drag(.left), to.0, to.1)
    }

    var elapsed: Double? { state.viewer?.playback.elapsed(at: now.uptime) }

    static func story(_ id: String, items count: Int, duration: Double = 5) -> Story {
        Story(id: id, author: Author(name: id.uppercased()),
              items: (0..<count).map { StoryItem(id: "\(id)\($0)", content: .text("t", background: RGB(0, 0, 0)), duration: duration) })
    }

    static let stories = [story("a", items: 2), story("b", items: 3), story("c", items: 1)]
}

@Suite struct AppReducerTests {
    @Test func startAsksForTheFeedAndQuitAsksToExit() {
        var h = ReducerHarness()
        #expect(h.work == ReducerHarness.startEffects, "the harness started the app: the first page and the home sections")
        var fresh = AppState(title: "T", now: h.now)
        #expect(AppReducer.reduce(&fresh, .resized(width: 100, height: 30), at: h.now) == [.preload(PreloadRequest(targets: [], width: 100, height: 30, fit: true))],
                "only .start asks for the first page; the (empty) preload set is handed over once")
        #expect(AppReducer.reduce(&fresh, .start, at: h.now) == ReducerHarness.startEffects)
        #expect(AppReducer.reduce(&fresh, .start, at: h.now).isEmpty, "and only once")
        #expect(fresh.isLoading)
        h.send(.quit)
        #expect(h.effects == [.quit])
    }

    /// Ctrl-Z is a key like any other: the key map makes it `suspend` (rebindable), and the
    /// reducer asks the runtime to stop the process; what stops playing is `.app(.suspend)`'s.
    @Test func ctrlZGoesThroughTheKeyMapToAnEffect() {
        var h = ReducerHarness()
        let ctrlZ = InputEvent.key(.character("z"), .control)
        h.send(.input(ctrlZ, readAt: h.now.uptime))
        #expect(h.effects.contains(.suspendProcess), "on the home: \(h.effects)")
        #expect(!h.state.isSuspended, "the runtime says when it stops")
        h.send(.open)
        h.effects = []
        h.send(.input(ctrlZ, readAt: h.now.uptime))
        #expect(h.effects.contains(.suspendProcess), "in the viewer: \(h.effects)")
        // Rebound (keys.conf `viewer suspend s`): Ctrl-Z no longer stops, `s` does.
        h.state.bindings.bindings = h.state.bindings.bindings.map { binding in
            var binding = binding
            if binding.command == .suspend { binding.inputs = [.key(.character("s"))] }
            return binding
        }
        h.effects = []
        h.send(.input(ctrlZ, readAt: h.now.uptime))
        #expect(!h.effects.contains(.suspendProcess))
        h.send(.input(.key(.character("s")), readAt: h.now.uptime))
        #expect(h.effects.contains(.suspendProcess))
    }

    @Test func helpStopsPlaybackUntilClosedAndNavigationResumesPlay() {
        var h = ReducerHarness()
        h.send(.open)
        h.wait(1)
        h.send(.toggleHelp)
        #expect(h.state.inputContext == .box)
        h.wait(30)
        #expect(h.elapsed == 1)
        h.send(.closeBox)
        h.wait(1)
        #expect(h.elapsed == 2)
        h.send(.togglePause)
        h.send(.nextItem)
        #expect(h.state.viewer?.isPaused == false)
        #expect(h.state.viewer?.playback.isRunning == true)
    }

    @Test func aBubbleIsFullySeenOnlyWhenEveryItemWasShown() {
        var h = ReducerHarness()
        let a = ReducerHarness.stories[0]
        h.send(.open)
        #expect(!h.state.seen.isFullySeen(story: a.id, items: a.items.map(\.id)))
        h.send(.nextItem)
        #expect(h.state.seen.isFullySeen(story: a.id, items: a.items.map(\.id)))
        #expect(h.state.seen.unseenCount(story: "b", items: ReducerHarness.stories[1].items.map(\.id)) == 3)
    }

    @Test func framesAreWantedOnlyWhileAnItemPlays() {
        var h = ReducerHarness()
        #expect(!h.state.wantsFrames)
        h.send(.open)
        #expect(h.state.wantsFrames)
        h.send(.dismiss)
        #expect(!h.state.wantsFrames)
    }

}

@Suite struct KeyBindingTests {
    @Test func keysMeanWhatTheGestureTableSays() {
        let keys = KeyBindings.standard
        #expect(keys.command(for: .key(.right), in: .viewer) == .nextItem)
        #expect(keys.command(for: .key(.character("l")), in: .viewer) == .nextItem)
        #expect(keys.command(for: .key(.left), in: .viewer) == .previousItem)
        #expect(keys.command(for: .key(.character("]")), in: .viewer) == .nextStory)
        #expect(keys.command(for: .key(.right, .shift), in: .viewer) == .nextStory)
        #expect(keys.command(for: .key(.character("H")), in: .viewer) == .previousStory)
        #expect(keys.command(for: .key(.escape), in: .viewer) == .dismiss)
        #expect(keys.command(for: .key(.down), in: .viewer) == .dismiss)
        #expect(keys.command(for: .key(.character("q")), in: .viewer) == .dismiss)
        #expect(keys.command(for: .key(.character(" ")), in: .viewer) == .togglePause)
        #expect(keys.command(for: .key(.enter), in: .home) == .open)
        #expect(keys.command(for: .key(.character("q")), in: .home) == .quit)
        #expect(keys.command(for: .key(.right), in: .home) == .selectNext)
        #expect(keys.command(for: .key(.character("q")), in: .box) == .closeBox)
        #expect(keys.command(for: .key(.enter), in: .box) == nil)
        #expect(keys.command(for: .key(.character("x")), in: .home) == nil)
    }

    @Test func anUnboundAltKeyIsReadAsEscThenTheKey() {
        let keys = KeyBindings.standard
        #expect(keys.resolving(.key(.character("q"), .alt), in: .viewer) == [.key(.escape), .key(.character("q"))])
        #expect(keys.resolving(.key(.enter, .alt), in: .box) == [.key(.escape), .key(.enter)])
        #expect(keys.resolving(.key(.character("q")), in: .viewer) == [.key(.character("q"))])
        let withAlt = KeyBindings(bindings: [KeyBinding(.home, [.key(.character("x"), .alt)], .quit, "quit")])
        #expect(withAlt.resolving(.key(.character("x"), .alt), in: .home) == [.key(.character("x"), .alt)])
    }

    @Test func noInputIsBoundTwiceInOneContext() {
        for context in InputContext.allCases {
            let inputs = KeyBindings.standard.bindings(in: context).flatMap(\.inputs)
            #expect(Set(inputs).count == inputs.count, "\(context)")
        }
    }
}

/// While the help or the problems list is open it has the keyboard, and the hint line says
/// its keys (not the viewer's or the row's, which do nothing then); a click on its scroll
/// keys scrolls, as they do, and any other click closes the box.
@Suite struct BoxHintLineTests {
    @Test func theHintLineUnderTheBoxNamesTheBoxsKeysAndTheyWorkWhenClicked() throws {
        var h = ReducerHarness()
        h.send(.resized(width: 80, height: 12)) // a help longer than the box: it scrolls
        h.send(.toggleHelp)
        let hints = HintLine.hints(h.state)
        #expect(hints.map(\.meaning) == ["scroll", "close"])
        #expect(hints.flatMap(\.keys).map(\.text) == ["PgUp", " ", "PgDn", "Esc"])
        let row = h.state.screenHeight - 1
        let placed = HintLine.layout(hints, width: 80)
        let scroll = try #require(placed.first { $0.hint.meaning == "scroll" })
        h.mouse(.press(.left), scroll.x + 5, row) // on "PgDn"
        #expect(h.state.chrome.modal == .help && h.state.chrome.modalScroll > 0, "scrolled, still open")
        h.mouse(.release(.left), scroll.x + 5, row)
        h.mouse(.press(.left), 2, 2)
        #expect(h.state.chrome.modal == nil, "any other click closes it")
        #expect(HintLine.hints(h.state).map(\.meaning).contains("quit"), "the row's hints again")
    }
}
