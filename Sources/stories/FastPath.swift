import StoriesCells
import ArgumentParser
import Foundation
import StoriesMedia
import StoriesCommandLine

/// `stories print` and `stories play` with nothing but their own options, parsed here:
/// they are one-shot commands measured against chafa and timg from exec to exit, and
/// ArgumentParser's start-up (reflecting over every command, the completion-script check)
/// was a quarter of `print`'s instructions. Anything this does not recognise — `--help`, an
/// unknown or repeated option, a value it would refuse — is left to ArgumentParser, which
/// parses the same line and says what is wrong, so both paths accept exactly the same.
enum FastPath {
    /// Runs `arguments` (without the program name) when it is a plain `print` or `play`;
    /// false when ArgumentParser should take it.
    static func run(_ arguments: [String]) -> Bool {
        guard let command = arguments.first, command == "print" || command == "play" else { return false }
        var settings = CellSettings()
        settings.symbols = CellSymbols.drawn(by: ProcessInfo.processInfo.environment).symbols // auto, unless --symbols says
        var file: String?
        var loop = false
        var tolerance = TerminalPlayback.defaultTolerance
        var graphics = GraphicsProtocol.cells
        var given = Set<String>()
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                guard file == nil, !argument.isEmpty else { return false }
                file = argument
                continue
            }
            var name = argument, value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard given.insert(name).inserted else { return false }
            if name == "--loop", command == "play", value == nil {
                loop = true
                continue
            }
            guard ["--size", "--colors", "--symbols", "--fit", "--graphics"].contains(name) || (command == "play" && name == "--tolerance"),
                  let text = value ?? rest.popFirst(), !text.hasPrefix("-") || name == "--tolerance" else { return false }
            switch name {
            case "--size":
                guard (try? parseSize(text)) != nil else { return false }
                settings.size = text
            case "--colors":
                guard ColorDepth(name: text) != nil else { return false }
                settings.colors = text
            case "--symbols":
                guard let symbols = CellSymbols.named(text, environment: ProcessInfo.processInfo.environment) else { return false }
                settings.symbols = symbols
            case "--fit":
                guard let fit = FitMode(rawValue: text) else { return false }
                settings.fit = fit
            case "--graphics":
                guard let kind = GraphicsProtocol(name: text) else { return false }
                graphics = kind
            default:
                guard let number = Int(text), (0...255).contains(number) else { return false }
                tolerance = number
            }
        }
        guard let file else { return false }
        do {
            if command == "print" {
                try PrintCommand.run(file: file, options: settings, graphics: graphics)
            } else {
                try PlayCommand.run(file: file, options: settings, loop: loop, tolerance: tolerance, graphics: graphics)
            }
        } catch {
            StoriesCommand.exit(withError: error)
        }
        return true
    }
}
