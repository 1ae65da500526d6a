import StoriesBench
import ArgumentParser
import CStoriesSupport
import StoriesCore
import StoriesTerminal
import Foundation

/// `stories`: a terminal stories viewer. With no subcommand it opens the viewer (`view`).
struct StoriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stories",
        abstract: "A terminal stories viewer: a ring row of stories and a full-screen viewer.",
        version: "stories 0.1.0",
        subcommands: [ViewCommand.self, ServeCommand.self, InitCommand.self, PrintCommand.self, PlayCommand.self, RecordCommand.self, RenderCommand.self, CheckCommand.self, BenchCommand.self, AssetsCommand.self, DoctorCommand.self],
        defaultSubcommand: ViewCommand.self
    )
}

/// `stories --help`: the commands, then the viewer's own flags — `stories` with no
/// subcommand is the viewer, so its flags are what most people are looking for (they are
/// also under `stories help view`, with the keys).
func rootHelp() -> String {
    let view = StoriesCommand.helpMessage(for: ViewCommand.self)
    let flags = view.components(separatedBy: "\n").drop { !$0.hasPrefix("ARGUMENTS:") && !$0.hasPrefix("OPTIONS:") }
        .filter { !$0.contains("--version") && !$0.contains("-h, --help") }
    return StoriesCommand.helpMessage() + "\n\nVIEWER: stories [view] [<options>] [<folder>] takes these"
        + " (keys and more: stories help view)\n\n" + flags.joined(separator: "\n")
}

// Before any thread: glibc's allocator kept from fragmenting (docs/performance.md, "Memory").
// STORIES_MALLOC=default leaves it as it is, for measuring the difference.
if getenv("STORIES_MALLOC").map({ String(cString: $0) }) != "default" { stories_tune_allocator() }

let arguments = Array(CommandLine.arguments.dropFirst())
// The viewer in a terminal takes its signals through Dispatch sources, which need them
// blocked in every thread (TerminalSignals): blocked here, before any thread starts. Other
// commands, and a headless run, keep the shell's Ctrl-C and Ctrl-Z.
let otherCommands = Set(StoriesCommand.configuration.subcommands.compactMap { $0.configuration.commandName }
    + ["help", "-h", "--help", "--version"]).subtracting(["view", "record"])
if isatty(STDIN_FILENO) == 1, !otherCommands.contains(arguments.first ?? ""), !arguments.contains("--headless"),
   !arguments.contains(where: { $0.hasPrefix("--generate-completion-script") }) {
    TerminalSignals.blockInEveryThread()
} else if arguments.first == "serve" {
    // With a viewers file, SIGHUP reads it again (ServeCommand); without one it keeps its
    // default action (a server in a terminal that closes ends with it).
    let readsViewersAgain = arguments.contains { $0 == "--viewers" || $0.hasPrefix("--viewers=") }
    TerminalSignals.blockInEveryThread(TerminalSignals.takenByServer + (readsViewersAgain ? [SIGHUP] : []))
}
if arguments.starts(with: ["serve", "add-viewer"]) {
    AddViewerCommand.main(Array(arguments.dropFirst(2)))
} else if FastPath.run(arguments) {
    // `print` or `play`, done without ArgumentParser (FastPath).
} else if arguments.isEmpty {
    // `stories` alone: the viewer with no flags, without ArgumentParser (`ViewFlags`).
    do { try ViewFlags().runViewer() } catch { StoriesCommand.exit(withError: error) }
} else if [["--help"], ["-h"], ["help"]].contains(arguments) {
    print(rootHelp().trimmingCharacters(in: .newlines))
} else {
    StoriesCommand.main()
}
