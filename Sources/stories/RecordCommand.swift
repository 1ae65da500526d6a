import ArgumentParser
import StoriesCore

/// `stories record --flow FILE`: the viewer, as `stories` runs it, its session written as a
/// flow — every input with its time, and between them the screen's checkpoints (each gesture
/// with who took it and who declined it, each item shown) as expectations to edit by hand and
/// run with `stories check`.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Use the viewer and write the session as a flow, its checkpoints as expectations (for stories check).",
        discussion: """
            Everything after --flow FILE is the viewer's: a folder, --synthetic 20, --network 3g, \
            --seed 7 … (stories help view). q ends the session and the flow.
            """
    )

    @Option(help: ArgumentHelp("Where to write the flow (JSON lines, docs/gestures.md).", valueName: "file"))
    var flow: String

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The viewer's folder and flags, as stories takes them.", valueName: "viewer"))
    var viewer: [String] = []

    mutating func run() throws {
        var command = try ViewCommand.parse(viewer)
        guard command.record == nil, command.replay == nil, !command.headless, !command.screenReader else {
            throw ValidationError("stories record --flow is a session in the terminal: --record, --replay, --headless and --screen-reader are not for it")
        }
        command.record = flow
        var flags = command.flags
        flags.recordsFlow = true
        try flags.runViewer()
    }
}
