import Foundation
import Testing
@testable import StoriesCore

/// The background text is kept readable on is the reducer's decision, from what the
/// runtime reports (`BackgroundFacts`): the theme, the terminal's OSC 11 answer, early or
/// late, COLORFGBG, and whether it is XTerm.
@Suite struct BackgroundDecisionTests {
    func reduced(_ actions: [AppAction]) -> AppState {
        let now = Moment(uptime: 1, date: Date(timeIntervalSince1970: 0))
        var state = AppState(title: "T", now: now)
        for action in actions { _ = AppReducer.reduce(&state, action, at: now) }
        return state
    }

    @Test func theTerminalsAnswerDecidesUnlessAThemeWasSaid() {
        let white = "11;rgb:ffff/ffff/ffff"
        var state = reduced([.display(Display()), .app(.background(BackgroundFacts(theme: .auto, answer: white)))])
        #expect(state.display.background == RGB(255, 255, 255) && state.display.backgroundKnown)
        state = reduced([.app(.background(BackgroundFacts(theme: .dark, answer: white)))])
        #expect(state.display.background == Display.dark && state.display.backgroundKnown, "a theme said outright wins")
        state = reduced([.app(.background(BackgroundFacts(theme: .auto, colorfgbg: "0;15")))])
        #expect(state.display.background == Display.light && state.display.backgroundKnown, "COLORFGBG's hint")
    }

    @Test func nothingSaidIsAGuessForDarkeningOnly() {
        var state = reduced([.app(.background(BackgroundFacts(theme: .auto, isXTerm: true)))])
        #expect(state.display.background == Display.light && !state.display.backgroundKnown, "XTerm's default white, unknown")
        state = reduced([.app(.background(BackgroundFacts(theme: .auto)))])
        #expect(state.display.background == Display.dark && !state.display.backgroundKnown)
    }

    /// A late answer is news; a new display (a resize, a font) keeps what was decided.
    @Test func aLateAnswerDecidesAgainAndANewDisplayKeepsTheDecision() {
        var facts = BackgroundFacts(theme: .auto)
        var late = facts
        late.answer = "11;rgb:00/2b/36"
        var display = Display(colorDepth: .direct)
        display.background = RGB(9, 9, 9) // what the runtime's display says is not the decision
        let state = reduced([.app(.background(facts)), .display(display), .app(.background(late)), .display(Display(colorDepth: .sixteen))])
        #expect(state.display.background == RGB(0, 43, 54) && state.display.backgroundKnown)
        #expect(state.display.colorDepth == .sixteen)
        facts.theme = .light
        #expect(reduced([.app(.background(facts)), .app(.background(late))]).display.background == RGB(0, 43, 54),
                "the latest facts are those in force")
    }

    /// A run that reports no facts (tests, a replay's display) keeps the display's own.
    @Test func withoutFactsTheDisplaysOwnStands() {
        #expect(reduced([.display(Display(background: Display.light))]).display.background == Display.light)
    }
}
