import ArgumentParser
import CStoriesSupport
import StoriesCore
import Foundation

/// `stories`: a terminal stories viewer. With no subcommand it opens the viewer (`view`).
struct StoriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stories",
        abstract: "A terminal stories viewer: a ring row of stories and a full-screen viewer.",
        version: "stories 0.1.0",
        subcommands: [ViewCommand.self, ServeCommand.self, InitCommand.self, PrintCommand.self, PlayCommand.self, BenchCommand.self, AssetsCommand.self],
        defaultSubcommand: ViewCommand.self
    )
}

/// Prints one clear line to stderr and gives the exit code to leave with.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("stories: \(SafeText.line(message))\n".utf8))
    return ExitCode(1)
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
// The viewer in a terminal takes Ctrl-Z through a Dispatch signal source, which reads
// SIGTSTP with signalfd: the signal must be blocked in every thread, or a thread that does
// not block it (one started before the source) can take it and it is lost — Ctrl-Z then
// did nothing, now and then, under load. Blocked here, before any thread, every thread
// inherits it. Other commands keep the shell's Ctrl-Z.
let otherCommands: Set<String> = ["serve", "init", "print", "play", "bench", "assets", "help", "-h", "--help", "--version",
                                  "--generate-completion-script"]
if isatty(STDIN_FILENO) == 1, !otherCommands.contains(arguments.first ?? "") {
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_BLOCK, &stop, nil)
}
if FastPath.run(arguments) {
    // `print` or `play`, done without ArgumentParser (FastPath).
} else if [["--help"], ["-h"], ["help"]].contains(arguments) {
    print(rootHelp().trimmingCharacters(in: .newlines))
} else {
    StoriesCommand.main()
}
