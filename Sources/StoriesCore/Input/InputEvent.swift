/// Every input the app reacts to, whatever the terminal sent: the input decoder in
/// StoriesTerminal makes these, and key bindings, tests and recordings speak them.
public enum InputEvent: Equatable, Hashable, Sendable {
    case key(Key, Modifiers = [])
    case mouse(MouseEvent)
}

/// A key, named the way a person says it.
public enum Key: Equatable, Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case enter, escape, tab, backspace, delete, insert
    case home, end, pageUp, pageDown
    case function(Int)
}

public struct Modifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = Modifiers(rawValue: 1)
    public static let alt = Modifiers(rawValue: 2)
    public static let control = Modifiers(rawValue: 4)
}

/// A mouse report in cell coordinates (0-based column and row).
public struct MouseEvent: Equatable, Hashable, Sendable {
    public enum Kind: Equatable, Hashable, Sendable {
        case press(MouseButton)
        case release(MouseButton)
        case drag(MouseButton)
        case move
        case wheelUp, wheelDown, wheelLeft, wheelRight
    }

    public var kind: Kind
    public var column: Int
    public var row: Int
    public var modifiers: Modifiers

    /// Coordinates are held to 0…`InputLimits.maxCoordinate` here, the one place every
    /// mouse event is made (terminal, recording, tests): nothing past it can overflow.
    public init(kind: Kind, column: Int, row: Int, modifiers: Modifiers = []) {
        self.kind = kind
        self.column = InputLimits.coordinate(column)
        self.row = InputLimits.coordinate(row)
        self.modifiers = modifiers
    }
}

public enum MouseButton: Equatable, Hashable, Sendable {
    case left, middle, right
}

extension InputEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .key(let key, let modifiers):
            var parts: [String] = []
            if modifiers.contains(.control) { parts.append("Ctrl") }
            if modifiers.contains(.alt) { parts.append("Alt") }
            if modifiers.contains(.shift) { parts.append("Shift") }
            parts.append(key.name)
            return parts.joined(separator: "-")
        case .mouse(let mouse):
            return "mouse \(mouse.kind) at \(mouse.column),\(mouse.row)"
        }
    }
}

extension Key {
    /// The name used in help text and (later) in the key-binding config.
    public var name: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .insert: "Insert"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .function(let n): "F\(n)"
        }
    }
}
