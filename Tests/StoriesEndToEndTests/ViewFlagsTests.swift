import Testing
@testable import stories

/// `stories` alone skips ArgumentParser (`ViewFlags()`): what it runs with must be what
/// ArgumentParser makes of an empty command line, flag for flag.
@Suite struct ViewFlagsTests {
    static func values(_ flags: ViewFlags) -> [String: String] {
        func text(_ value: Any?) -> String { value.map { "\($0)" } ?? "nil" }
        return [
            "folder": text(flags.folder), "feed": text(flags.feed), "server": text(flags.server), "tokenFile": text(flags.tokenFile),
            "synthetic": text(flags.synthetic), "network": text(flags.networkFlags.map { $0.isGiven }),
            "reduceMotion": text(flags.reduceMotion), "preload": text(flags.preload), "colors": text(flags.colors),
            "theme": text(flags.theme), "symbols": text(flags.symbols), "graphics": text(flags.graphics), "seed": text(flags.seed),
            "metrics": text(flags.metrics), "record": text(flags.record), "replay": text(flags.replay), "until": text(flags.until),
            "gestureLog": text(flags.gestureLog), "step": text(flags.step), "headless": text(flags.headless), "mute": text(flags.mute),
            "sound": text(flags.sound), "screenReader": text(flags.screenReader), "direction": text(flags.direction),
            "cursor": text(flags.cursor), "size": text(flags.size), "virtualClock": text(flags.virtualClock),
            "recordsFlow": text(flags.recordsFlow),
        ]
    }

    /// Every option of the command is a field of the flags (an option added to one and not
    /// the other is a different count), and every field is compared below. `recordsFlow` is
    /// the one field no option of `view` sets: `stories record --flow` does.
    @Test func theFlagsHaveAFieldForEveryOption() throws {
        let options = Mirror(reflecting: try ViewCommand.parse([])).children.count
        let fields = Mirror(reflecting: ViewFlags()).children.map { $0.label ?? "" }
        #expect(fields.count == options + 1 && fields.contains("recordsFlow"))
        #expect(Set(Self.values(ViewFlags()).keys).count == fields.count, "values() names every field")
    }

    @Test func noFlagsAreWhatArgumentParserMakesOfNone() throws {
        var parsed = Self.values(try ViewCommand.parse([]).flags)
        // No network flag given: ArgumentParser's group says so; the defaults have none.
        #expect(parsed["network"] == "false")
        parsed["network"] = "nil"
        #expect(parsed == Self.values(ViewFlags()))
        // And the comparison sees a difference where there is one.
        #expect(Self.values(try ViewCommand.parse(["--mute", "--seed", "3"]).flags) != Self.values(ViewFlags()))
    }
}
