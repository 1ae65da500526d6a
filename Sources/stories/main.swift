import ArgumentParser
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

StoriesCommand.main()
