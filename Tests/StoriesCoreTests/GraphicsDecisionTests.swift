import Foundation
import Testing
@testable import StoriesCells
@testable import StoriesCore

/// How pictures are shown is the reducer's decision, from what the runtime reports
/// (`GraphicsFacts`): the protocol said outright, the terminal's answers early or late, its
/// environment, tmux's word; the runtime only sets its picture layer up as `.showPictures` says.
@Suite struct GraphicsDecisionTests {
    func reduced(_ actions: [AppAction]) -> (state: AppState, effects: [AppEffect]) {
        let now = Moment(uptime: 1, date: Date(timeIntervalSince1970: 0))
        var state = AppState(title: "T", now: now)
        var effects: [AppEffect] = []
        for action in actions { effects += AppReducer.reduce(&state, action, at: now) }
        return (state, effects)
    }

    func shown(_ effects: [AppEffect]) -> [GraphicsChoice] {
        effects.compactMap { if case .showPictures(let choice) = $0 { choice } else { nil } }
    }

    @Test func theTerminalsAnswersDecideAndTheRuntimeIsToldOnce() {
        let kitty = GraphicsFacts(asked: true, answered: true, kittyAnswered: true, version: "kitty(0.31.0)")
        let (state, effects) = reduced([.display(Display(cellPixels: CellPixels(width: 10, height: 20))), .app(.graphics(kitty)),
                                        .display(Display(colorDepth: .direct, cellPixels: CellPixels(width: 10, height: 20)))])
        #expect(state.display.graphics == .kitty, "a new display keeps the decision")
        #expect(state.display.pixelCell == CellPixels(width: 10, height: 20))
        #expect(shown(effects).map(\.protocol) == [.kitty] && shown(effects).first?.placeholders == true)
        // xterm's XTSMGRAPHICS: its maxGraphicSize is a limit where smaller than its window;
        // its window's own size is none.
        let sixel = GraphicsFacts(asked: true, answered: true, sixelListed: true, sixelGeometry: PixelArea(width: 1000, height: 1000),
                                  windowPixels: PixelArea(width: 1600, height: 900))
        let sixelState = reduced([.app(.graphics(sixel))]).state
        #expect(sixelState.display.graphics == .sixel && sixelState.display.largestPicture == PixelArea(width: 1000, height: 1000))
        var whole = sixel
        whole.sixelGeometry = PixelArea(width: 1600, height: 900)
        #expect(reduced([.app(.graphics(whole))]).state.display.largestPicture == nil)
        var sizeless = sixel
        sizeless.cellSizeKnown = false
        #expect(sizeless.note?.contains("sixel pictures need the cell's size in pixels") == true && sixel.note == nil)
        let nothing = reduced([.app(.graphics(GraphicsFacts(asked: true)))])
        #expect(nothing.state.display.graphics == .cells && shown(nothing.effects).map(\.reason) == ["the terminal answered nothing"])
    }

    /// DA1 late (kitty starting on software OpenGL, a slow ssh link): the pictures it allows
    /// from then on; a protocol said outright stays as said.
    @Test func aLateAnswerDecidesAgainUnlessAProtocolWasSaid() {
        let early = GraphicsFacts(asked: true)
        var late = early
        late.answered = true
        late.sixelListed = true
        let (state, effects) = reduced([.app(.graphics(early)), .app(.graphics(late))])
        #expect(state.display.graphics == .sixel)
        #expect(shown(effects).map(\.protocol) == [.cells, .sixel])
        var saidEarly = early, saidLate = late
        saidEarly.said = .kitty
        saidLate.said = .kitty
        let said = reduced([.app(.graphics(saidEarly)), .app(.graphics(saidLate))])
        #expect(said.state.display.graphics == .kitty && shown(said.effects).map(\.protocol) == [.kitty], "told once, as said")
        // Pictures already in pixels (iTerm2's, by TERM_PROGRAM) are not swapped for another
        // protocol by a late answer under the pictures on screen.
        var iterm = early
        iterm.program = "WezTerm"
        var itermLate = iterm
        itermLate.answered = true
        itermLate.kittyAnswered = true
        let kept = reduced([.app(.graphics(iterm)), .app(.graphics(itermLate))])
        #expect(kept.state.display.graphics == .iterm && shown(kept.effects).map(\.protocol) == [.iterm])
    }

    @Test func insideTmuxOnlyPicturesTmuxKeeps() {
        let outside = TmuxClient(version: "3.3a", passthrough: true, terminalName: "xterm-kitty", terminalType: "kitty(0.35.2)")
        let kitty = GraphicsFacts(asked: true, answered: true, insideTmux: true, tmux: outside).decided
        #expect(kitty.protocol == .kitty && kitty.placeholders && kitty.throughTmux)
        var closed = outside
        closed.passthrough = false
        #expect(GraphicsFacts(asked: true, answered: true, insideTmux: true, tmux: closed).decided.protocol == .cells)
        #expect(GraphicsFacts(asked: true, answered: true, insideTmux: true).decided.reason.contains("did not say"))
        #expect(GraphicsFacts(said: .sixel, asked: true, stepping: true).decided.protocol == .cells, "a stepped replay is cells")
    }

    /// Video frames the terminal did not take in time: cells from then on, said once, and
    /// kept through a new display.
    @Test func framesFallingBehindAreCellsFromThenOn() {
        let kitty = GraphicsFacts(asked: true, answered: true, kittyAnswered: true)
        let (state, _) = reduced([.app(.graphics(kitty)), .app(.picturesFellBehind), .display(Display(cellPixels: CellPixels(width: 9, height: 18)))])
        #expect(!state.display.movingPixels && state.display.graphics == .kitty)
        #expect(state.chrome.notice?.contains("Video frames are drawn in cells") == true)
    }

    /// A run that reports no facts (tests, a replay's display) keeps the display's own.
    @Test func withoutFactsTheDisplaysOwnStands() {
        #expect(reduced([.display(Display(graphics: .sixel))]).state.display.graphics == .sixel)
    }
}
