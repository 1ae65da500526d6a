import Testing
@testable import StoriesCore

@Suite struct KeyBindingsFileTests {
    @Test func aLineReplacesAnActionsKeysInItsContext() throws {
        let bindings = try KeyBindings.standard.applying("""
            # comments and blank lines are fine

            viewer  nextItem  n Right   # n as well as the arrow
            home    quit      Ctrl-q
            """, file: "keys.conf")
        #expect(bindings.command(for: .key(.character("n")), in: .viewer) == .nextItem)
        #expect(bindings.command(for: .key(.right), in: .viewer) == .nextItem)
        #expect(bindings.command(for: .key(.character("l")), in: .viewer) == nil)
        #expect(bindings.command(for: .key(.character("q"), .control), in: .home) == .quit)
        #expect(bindings.command(for: .key(.character("q")), in: .home) == nil)
        #expect(bindings.command(for: .key(.right), in: .home) == .selectNext, "other contexts untouched")
    }

    @Test func aKeyTakenForAnotherActionLeavesTheOldOne() throws {
        let bindings = try KeyBindings.standard.applying("viewer togglePause l\n", file: "keys.conf")
        #expect(bindings.command(for: .key(.character("l")), in: .viewer) == .togglePause)
        #expect(bindings.command(for: .key(.right), in: .viewer) == .nextItem)
        for context in InputContext.allCases {
            let inputs = bindings.bindings(in: context).flatMap(\.inputs)
            #expect(Set(inputs).count == inputs.count, "no key has two meanings in \(context)")
        }
    }

    /// A keys.conf written before the box context and the screenful actions had their
    /// names still reads: `help` is the box, `pageNext`, `pagePrevious` and `closeHelp`
    /// are `screenfulNext`, `screenfulPrevious` and `closeBox`.
    /// `--step`'s keys are the key map's too (issue 47: they were hard-coded in the terminal
    /// runtime), and rebound like any other.
    @Test func steppingKeysAreInTheKeyMap() throws {
        let standard = KeyBindings.standard
        for key in [InputEvent.key(.right), .key(.enter), .key(.character(" ")), .key(.character("l"))] {
            #expect(standard.command(for: key, in: .stepping) == .stepNext)
        }
        #expect(standard.command(for: .key(.character(".")), in: .stepping) == .stepFrame)
        #expect(standard.command(for: .key(.character("q")), in: .stepping) == .quit)
        let rebound = try standard.applying("stepping stepNext n\n", file: "keys.conf")
        #expect(rebound.command(for: .key(.character("n")), in: .stepping) == .stepNext)
        #expect(rebound.command(for: .key(.right), in: .stepping) == nil)
    }

    @Test func formerNamesStillRead() throws {
        let bindings = try KeyBindings.standard.applying("""
            help pageNext n
            help closeHelp x
            home pagePrevious b
            """, file: "keys.conf")
        #expect(bindings.command(for: .key(.character("n")), in: .box) == .screenfulNext)
        #expect(bindings.command(for: .key(.character("x")), in: .box) == .closeBox)
        #expect(bindings.command(for: .key(.character("b")), in: .home) == .screenfulPrevious)
        #expect(bindings.command(for: .key(.pageDown), in: .box) == nil, "the line replaced the action's keys")
    }

    @Test(arguments: [
        ("viewer nextItem", "keys.conf:1: expected: context action key [key …]"),
        ("gallery nextItem n", "keys.conf:1: unknown context 'gallery' (home, viewer, box, search, stepping)"),
        ("viewer nextItm n", "keys.conf:1: unknown action 'nextItm'"),
        ("\nviewer nextItem Rigth", "keys.conf:2: unknown key 'Rigth'"),
        ("viewer nextItem Hyper-n", "keys.conf:1: unknown key 'Hyper-n'"),
    ])
    func mistakesNameTheLineAndWhatIsWrong(text: String, message: String) {
        do {
            _ = try KeyBindings.standard.applying(text, file: "keys.conf")
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test(arguments: [
        ("Space", InputEvent.key(.character(" "))), ("Esc", .key(.escape)), ("→", .key(.right)), ("PgDn", .key(.pageDown)),
        ("F5", .key(.function(5))), ("Shift-Right", .key(.right, .shift)), ("Ctrl-Alt-x", .key(.character("x"), [.control, .alt])),
        ("-", .key(.character("-"))), ("]", .key(.character("]"))),
    ])
    func keyNames(name: String, input: InputEvent) {
        #expect(KeyBindings.input(named: name) == input)
    }

    @Test func theFileLivesUnderXDGConfigHome() {
        #expect(KeyBindings.configFile(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]).path == "/c/stories/keys.conf")
        #expect(KeyBindings.configFile(environment: ["HOME": "/h"]).path == "/h/.config/stories/keys.conf")
    }
}
