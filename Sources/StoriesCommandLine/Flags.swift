import ArgumentParser
import Foundation
import StoriesCells
import StoriesCore
import StoriesMedia

/// Prints one clear line to stderr and gives the exit code to leave with.
public func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("stories: \(SafeText.line(message))\n".utf8))
    return ExitCode(1)
}

extension FitMode: ExpressibleByArgument {}

/// `--size WxH`: cells, each 1 to 1000.
public func parseSize(_ text: String) throws -> (Int, Int) {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
    let side = InputLimits.maxScreenSide
    guard parts.count == 2, let width = parts[0], let height = parts[1], (1...side).contains(width), (1...side).contains(height) else {
        throw ValidationError("--size takes WxH in cells, each 1 to \(side), like 80x40; got '\(SafeText.line(text))'")
    }
    return (width, height)
}
