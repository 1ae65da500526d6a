/// Text from a feed is shown, never interpreted. `SafeText` removes every scalar that a
/// terminal could act on — C0 and C1 controls (ESC starts escape sequences), DEL, and the
/// bidirectional embedding/override/isolate controls that reorder what follows — so the
/// rest can be drawn as plain characters. It runs once, where feed documents are decoded.
public enum SafeText {
    /// One line of text (names, handles, titles): newlines and tabs become spaces, runs of
    /// spaces fold into one, ends are trimmed.
    public static func line(_ raw: String) -> String {
        var out = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in raw.unicodeScalars {
            if scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == " " {
                if !lastWasSpace { out.append(" ") }
                lastWasSpace = true
                continue
            }
            guard isShowable(scalar) else { continue }
            out.append(scalar)
            lastWasSpace = false
        }
        var text = String(out)
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Text that may hold paragraphs (captions, text items): newlines are kept, `\r\n`
    /// becomes `\n`, tabs become spaces, other controls are removed.
    public static func paragraphs(_ raw: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "\n": out.append("\n")
            case "\t": out.append(" ")
            case "\r": continue
            default:
                if isShowable(scalar) { out.append(scalar) }
            }
        }
        return String(out).trimmingSpacesAndNewlines()
    }

    /// False for scalars that must never reach a terminal.
    public static func isShowable(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { return false }
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return false }
        if v == 0xFEFF || (0xFFF9...0xFFFB).contains(v) { return false }
        return true
    }
}

extension String {
    func trimmingSpacesAndNewlines() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\n" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\n" { scalars.removeLast() }
        return String(scalars)
    }
}
