/// How many terminal columns text takes. Pure Swift, so it gives the same answer in tests
/// (C locale) as in the app; it follows what glibc's `wcwidth` and tmux say in a UTF-8
/// locale: East Asian Wide/Fullwidth and emoji-presentation characters take two columns,
/// combining marks and format characters none, everything else one. A grapheme cluster takes
/// the width of its first scalar that has a width, so a ZWJ sequence or a letter with
/// combining accents is measured as the terminal places it.
public enum DisplayWidth {
    /// Columns taken by one grapheme cluster (0, 1 or 2).
    public static func of(_ character: Character) -> Int {
        for scalar in character.unicodeScalars {
            let width = of(scalar)
            if width > 0 { return width }
        }
        return 0
    }

    /// Columns taken by a whole string.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// Columns taken by one scalar on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) || value == 0x200B { return 0 }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        // East Asian Wide and Fullwidth blocks (Unicode 15, EastAsianWidth.txt, condensed).
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF,
             0x1B000...0x1B2FF, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    /// Terminal columns this string takes; see `DisplayWidth`.
    public var displayWidth: Int { DisplayWidth.of(self) }

    /// The longest prefix that fits in `width` columns; with `ellipsis`, a cut string ends
    /// in "…" (and the whole still fits). Never splits a grapheme.
    public func truncated(toWidth width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if displayWidth <= width { return self }
        let budget = ellipsis ? width - 1 : width
        var result = ""
        var used = 0
        for character in self {
            let w = DisplayWidth.of(character)
            if used + w > budget { break }
            result.append(character)
            used += w
        }
        if ellipsis {
            while let last = result.last, last == " " { result.removeLast() }
            result.append("…")
        }
        return result
    }
}
