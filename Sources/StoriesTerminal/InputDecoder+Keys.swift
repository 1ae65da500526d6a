import StoriesCore

/// The key and mouse sequences the decoder reads.
extension InputDecoder {
    static func modifiers(fromParameter value: Int) -> Modifiers {
        guard value >= 2 else { return [] }
        let bits = value - 1
        var modifiers: Modifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        return modifiers
    }

    static func csi(_ body: [Unicode.Scalar]) -> InputEvent? {
        // No key or mouse report is longer (answers, which can be, are read before this).
        guard let final = body.last, body.count <= 32 else { return nil }
        var parameterText = String(String.UnicodeScalarView(body.dropLast()))
        if parameterText.hasPrefix("<") {
            parameterText.removeFirst()
            return sgrMouse(parameterText, pressed: final == "M")
        }
        let numbers = parameterText.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
        let modifiers = numbers.count >= 2 ? Self.modifiers(fromParameter: numbers[1]) : []
        let key: Key
        switch final {
        case "A": key = .up
        case "B": key = .down
        case "C": key = .right
        case "D": key = .left
        case "H": key = .home
        case "F": key = .end
        case "Z": return .key(.tab, .shift)
        case "~":
            switch numbers.first ?? 0 {
            case 1, 7: key = .home
            case 4, 8: key = .end
            case 2: key = .insert
            case 3: key = .delete
            case 5: key = .pageUp
            case 6: key = .pageDown
            case 11...15: key = .function((numbers.first ?? 11) - 10)
            case 17...21: key = .function((numbers.first ?? 17) - 11)
            case 23, 24: key = .function((numbers.first ?? 23) - 12)
            default: return nil
            }
        default:
            return nil
        }
        return .key(key, modifiers)
    }

    static func ss3(_ final: Unicode.Scalar) -> InputEvent? {
        switch final {
        case "A": .key(.up)
        case "B": .key(.down)
        case "C": .key(.right)
        case "D": .key(.left)
        case "H": .key(.home)
        case "F": .key(.end)
        case "M": .key(.enter)
        case "P": .key(.function(1))
        case "Q": .key(.function(2))
        case "R": .key(.function(3))
        case "S": .key(.function(4))
        default: nil
        }
    }

    /// `b;x;y` with 1-based cell coordinates; `pressed` is false for the `m` (release) form.
    static func sgrMouse(_ parameters: String, pressed: Bool) -> InputEvent? {
        let parts = parameters.split(separator: ";").compactMap { Int($0) }
        guard parts.count == 3, parts[1] >= 1, parts[2] >= 1 else { return nil }
        let code = parts[0]
        var modifiers: Modifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let isMotion = code & 32 != 0
        let buttonBits = code & 3
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            switch buttonBits {
            case 0: kind = .wheelUp
            case 1: kind = .wheelDown
            case 2: kind = .wheelLeft
            default: kind = .wheelRight
            }
        } else {
            let button: MouseButton? = switch buttonBits {
            case 0: .left
            case 1: .middle
            case 2: .right
            default: nil
            }
            if isMotion {
                kind = button.map { .drag($0) } ?? .move
            } else if let button {
                kind = pressed ? .press(button) : .release(button)
            } else {
                return nil
            }
        }
        return .mouse(MouseEvent(kind: kind, column: parts[1] - 1, row: parts[2] - 1, modifiers: modifiers))
    }

    /// Maps ncurses key names to events. Extended names carry modifiers in a digit suffix
    /// (xterm convention: 2 Shift, 3 Alt, 5 Ctrl, …; no digit on kUP/kDN/… means Shift).
    static func event(forKeyName name: String) -> InputEvent? {
        let fixed: [String: InputEvent] = [
            "KEY_UP": .key(.up), "KEY_DOWN": .key(.down), "KEY_LEFT": .key(.left), "KEY_RIGHT": .key(.right),
            "KEY_SR": .key(.up, .shift), "KEY_SF": .key(.down, .shift),
            "KEY_SLEFT": .key(.left, .shift), "KEY_SRIGHT": .key(.right, .shift),
            "KEY_HOME": .key(.home), "KEY_END": .key(.end), "KEY_SHOME": .key(.home, .shift), "KEY_SEND": .key(.end, .shift),
            "KEY_NPAGE": .key(.pageDown), "KEY_PPAGE": .key(.pageUp),
            "KEY_ENTER": .key(.enter), "KEY_BACKSPACE": .key(.backspace), "KEY_DC": .key(.delete),
            "KEY_SDC": .key(.delete, .shift), "KEY_IC": .key(.insert), "KEY_BTAB": .key(.tab, .shift),
            "KEY_A1": .key(.home), "KEY_C1": .key(.end), "KEY_A3": .key(.pageUp), "KEY_C3": .key(.pageDown),
        ]
        if let event = fixed[name] { return event }
        if name.hasPrefix("KEY_F("), name.hasSuffix(")"), let n = Int(name.dropFirst(6).dropLast()) {
            return .key(.function(n))
        }
        let bases: [String: Key] = ["kUP": .up, "kDN": .down, "kLFT": .left, "kRIT": .right, "kHOM": .home,
                                    "kEND": .end, "kDC": .delete, "kIC": .insert, "kNXT": .pageDown, "kPRV": .pageUp]
        for (base, key) in bases where name.hasPrefix(base) {
            let suffix = name.dropFirst(base.count)
            if suffix.isEmpty { return .key(key, .shift) }
            if let digit = Int(suffix) { return .key(key, modifiers(fromParameter: digit)) }
        }
        return nil
    }
}
