import Foundation
import Testing
@testable import StoriesCore

/// The `/` field's keys are bindings of context `search`, in keys.conf like every other
/// context (issue 28, point 4: one key map).
@Suite struct SearchKeysTests {
    @Test func theSearchFieldsKeysCanBeRebound() throws {
        let bindings = try KeyBindings.standard.applying("search searchCancel Ctrl-g\nsearch searchNext Ctrl-n\n", file: "keys.conf")
        var h = ReducerHarness()
        h.state.bindings = bindings
        h.send(.input(.key(.character("/")), readAt: h.now.uptime))
        #expect(h.state.inputContext == .search)
        for c in "pr" { h.send(.input(.key(.character(c)), readAt: h.now.uptime)) }
        #expect(h.state.row.search?.text == "pr")
        h.send(.input(.key(.character("n"), .control), readAt: h.now.uptime))
        #expect(h.state.row.search?.text == "pr", "Ctrl-n moves to the next match, it does not type")
        h.send(.input(.key(.escape), readAt: h.now.uptime))
        #expect(h.state.row.search != nil, "Esc no longer gives up: it was rebound")
        h.send(.input(.key(.character("g"), .control), readAt: h.now.uptime))
        #expect(h.state.row.search == nil, "Ctrl-g does")
        #expect(h.state.gesture.log.last?.handler == "keys.search")
    }
}
