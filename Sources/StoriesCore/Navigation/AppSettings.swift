import Foundation

/// Settings from `stories.conf`, beside keys.conf in the config folder:
///
///     # stories.conf
///     reduce-motion = on     # instant cuts instead of present, dismiss and cube animations
///
/// One `name = value` per line; `#` starts a comment. An unknown name or a bad value is an
/// error naming the file and line. Command-line flags win over the file.
public struct AppSettings: Equatable, Sendable {
    public var reduceMotion = false

    public init(reduceMotion: Bool = false) {
        self.reduceMotion = reduceMotion
    }

    /// `$XDG_CONFIG_HOME/stories/stories.conf`, or `~/.config/stories/stories.conf`.
    public static func configFile(environment: [String: String]) -> URL {
        KeyBindings.configDirectory(environment: environment).appendingPathComponent("stories.conf")
    }

    public func applying(_ text: String, file: String) throws(ConfigError) -> AppSettings {
        var result = self
        for (offset, rawLine) in TextLines.split(text).enumerated() {
            let number = offset + 1
            let line = (rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            func fail(_ reason: String) -> ConfigError { ConfigError(file: file, line: number, reason: reason) }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else { throw fail("expected: name = value") }
            switch parts[0].lowercased() {
            case "reduce-motion":
                guard let value = Self.boolean(parts[1]) else {
                    throw fail("reduce-motion takes on or off; got '\(parts[1])'")
                }
                result.reduceMotion = value
            default:
                throw fail("unknown setting '\(parts[0])' (reduce-motion)")
            }
        }
        return result
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }
}
