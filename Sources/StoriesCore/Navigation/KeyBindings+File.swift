import Foundation

/// A problem in the key-binding file, said with its line.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    /// Printable whatever the file or a value quoted in the reason held.
    public var description: String { SafeText.line("\(file):\(line): \(reason)") }
}

/// Reads `keys.conf`: each line rebinds one action in one context, replacing its keys.
///
///     # context  action      keys (space separated)
///     viewer     nextItem    n Right
///     home       quit        q Ctrl-c
///
/// Contexts: home, viewer, box, search, stepping (`help` still reads as `box`). Actions: the `Command` names. Keys: one character, or
/// Space Enter Esc Tab Backspace Delete Insert Up Down Left Right (or ↑ ↓ ← →) Home End PgUp
/// PgDn F1…F12, with Shift- Alt- Ctrl- in front. `#` starts a comment.
extension KeyBindings {
    /// `$XDG_CONFIG_HOME/stories/keys.conf`, or `~/.config/stories/keys.conf`.
    public static func configFile(environment: [String: String]) -> URL {
        configDirectory(environment: environment).appendingPathComponent("keys.conf")
    }

    /// `$XDG_CONFIG_HOME/stories`, or `~/.config/stories`.
    public static func configDirectory(environment: [String: String]) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("stories")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/stories")
    }

    /// These bindings with the file's lines applied.
    public func applying(_ text: String, file: String) throws(ConfigError) -> KeyBindings {
        var result = self
        for (offset, rawLine) in TextLines.split(text).enumerated() {
            let number = offset + 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard !words.isEmpty else { continue }
            func fail(_ reason: String) -> ConfigError { ConfigError(file: file, line: number, reason: reason) }
            guard words.count >= 3 else { throw fail("expected: context action key [key …]") }
            guard let context = InputContext(rawValue: words[0]) ?? InputContext.formerNames[words[0]] else {
                throw fail("unknown context '\(words[0])' (\(InputContext.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let command = Command(rawValue: words[1]) ?? Command.formerNames[words[1]] else {
                throw fail("unknown action '\(words[1])' (\(Command.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var inputs: [InputEvent] = []
            for name in words[2...] {
                guard let input = Self.input(named: name) else { throw fail("unknown key '\(name)'") }
                inputs.append(input)
            }
            if let index = result.bindings.firstIndex(where: { $0.context == context && $0.command == command }) {
                result.bindings[index].inputs = inputs
            } else {
                result.bindings.append(KeyBinding(context, inputs, command, command.rawValue))
            }
            // Another action in this context loses these keys: one key, one meaning.
            for index in result.bindings.indices where result.bindings[index].context == context && result.bindings[index].command != command {
                result.bindings[index].inputs.removeAll { inputs.contains($0) }
            }
        }
        return result
    }

    static func input(named name: String) -> InputEvent? {
        var rest = Substring(name)
        var modifiers: Modifiers = []
        while let dash = rest.firstIndex(of: "-"), dash != rest.startIndex, rest.index(after: dash) != rest.endIndex {
            switch rest[..<dash].lowercased() {
            case "shift": modifiers.insert(.shift)
            case "alt", "meta": modifiers.insert(.alt)
            case "ctrl", "control": modifiers.insert(.control)
            default: return nil
            }
            rest = rest[rest.index(after: dash)...]
        }
        let named: [String: Key] = [
            "space": .character(" "), "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape,
            "tab": .tab, "backspace": .backspace, "delete": .delete, "insert": .insert,
            "up": .up, "down": .down, "left": .left, "right": .right, "↑": .up, "↓": .down, "←": .left, "→": .right,
            "home": .home, "end": .end, "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown,
        ]
        if let key = named[rest.lowercased()] { return .key(key, modifiers) }
        if rest.count > 1, rest.first == "F" || rest.first == "f", let n = Int(rest.dropFirst()), (1...12).contains(n) {
            return .key(.function(n), modifiers)
        }
        guard rest.count == 1, let character = rest.first, !character.isWhitespace,
              character.unicodeScalars.allSatisfy(SafeText.isShowable) else { return nil }
        return .key(.character(character), modifiers)
    }
}
