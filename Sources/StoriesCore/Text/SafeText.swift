/// Text from a feed is shown, never interpreted. `SafeText` removes whole escape sequences
/// (ESC or C1 CSI with their parameters, OSC/DCS/APC strings up to their terminator) and
/// every other scalar that a terminal could act on — C0 and C1 controls, DEL, and the
/// bidirectional embedding/override/isolate controls that reorder what follows — so the
/// rest can be drawn as plain characters. It runs once, where feed documents are decoded.
public enum SafeText {
    /// How long text from outside may be, in columns (a line) or characters (paragraphs).
    /// Screens measure and wrap some text every frame: a bound here keeps any one frame's
    /// work small however large the document that held it.
    public enum Limit {
        public static let title = 200
        public static let name = 100
        public static let linkTitle = 200
        /// Instagram's own caption limit.
        public static let caption = 2_200
        /// A text card: about three screens of 120×40 full.
        public static let textCard = 10_000
        /// A message about something wrong (a warning or an error), quoted values included.
        public static let message = 2_400
        /// A value quoted back in a message ("unknown item type '…'").
        public static let quoted = 40
    }

    /// `line(raw)` cut to `maxColumns` (ending in "…" when cut). The input is cut first, so
    /// a megabyte of text, or one character under a million combining marks, costs no more
    /// than a short line.
    public static func line(_ raw: String, maxColumns: Int) -> String {
        // The cut leaves room for escape sequences, which are removed after it.
        limitingClusters(line(String(String.UnicodeScalarView(raw.unicodeScalars.prefix(max(0, maxColumns) * 8 + 4096)))))
            .truncated(toWidth: maxColumns)
    }

    /// `paragraphs(raw)` cut to `maxCharacters` grapheme clusters (ending in "…" when cut).
    public static func paragraphs(_ raw: String, maxCharacters: Int) -> String {
        let text = limitingClusters(paragraphs(String(String.UnicodeScalarView(raw.unicodeScalars.prefix(max(0, maxCharacters) * 8 + 4096)))))
        guard text.count > maxCharacters else { return text }
        return String(text.prefix(max(0, maxCharacters - 1))) + "…"
    }

    /// The most code points kept in one grapheme cluster: the longest real ones (a family
    /// emoji with skin tones, a Tibetan stack) have about a dozen; "Zalgo" text has hundreds
    /// of marks on one letter, which every measurement would walk.
    public static let maxScalarsPerCluster = 16

    /// Each grapheme cluster cut to its first `maxScalarsPerCluster` code points. A cut one
    /// keeps one fewer and is followed by a space (unless a space or a line end follows
    /// anyway, or nothing does): a cut could end in a joiner, a virama or a leading jamo and
    /// glue itself to the cluster after it, and a space always stands between two clusters.
    /// Linear, and no cluster of the result is longer than the limit.
    static func limitingClusters(_ text: String) -> String {
        guard text.unicodeScalars.count > maxScalarsPerCluster else { return text }
        var out = String.UnicodeScalarView()
        var characters = text.makeIterator()
        var current = characters.next()
        while let character = current {
            let next = characters.next()
            var count = 0
            for _ in character.unicodeScalars {
                count += 1
                if count > maxScalarsPerCluster { break }
            }
            if count <= maxScalarsPerCluster {
                out.append(contentsOf: character.unicodeScalars)
            } else {
                out.append(contentsOf: character.unicodeScalars.prefix(maxScalarsPerCluster - 1))
                if let next, next != " ", next != "\n" { out.append(" ") }
            }
            current = next
        }
        return String(out)
    }

    /// One line of text (names, handles, titles): newlines and tabs become spaces, runs of
    /// spaces fold into one, ends are trimmed.
    public static func line(_ raw: String) -> String {
        // Printable ASCII with single spaces between words (an address, a log line, most
        // names) is already what this makes: given back as it is, without a copy.
        var plain = true, previousSpace = true
        for byte in raw.utf8 {
            if byte == 0x20 {
                if previousSpace { plain = false; break }
                previousSpace = true
            } else if byte < 0x21 || byte > 0x7E {
                plain = false
                break
            } else {
                previousSpace = false
            }
        }
        if plain, !previousSpace || raw.isEmpty { return raw }
        var out = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in withoutEscapeSequences(raw) {
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
        for scalar in withoutEscapeSequences(raw) {
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

    /// The scalars with escape sequences cut out whole, so "\u{1B}[2J" or "\u{1B}]0;title\u{7}"
    /// leave nothing behind (removing only the ESC would show "[2J"). A string sequence
    /// (OSC, DCS, SOS, PM, APC) ends at BEL, ST or a newline; a CSI at its final byte or at
    /// anything that cannot be part of it, which is then kept.
    static func withoutEscapeSequences(_ raw: String) -> [Unicode.Scalar] {
        enum Mode { case text, escape, csi, string, stringEscape }
        var mode = Mode.text
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(raw.unicodeScalars.count)
        for scalar in raw.unicodeScalars {
            let v = scalar.value
            switch mode {
            case .text:
                break
            case .escape:
                switch v {
                case 0x5B: mode = .csi                                          // [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: mode = .string               // ] P X ^ _
                case 0x20...0x2F: continue                                      // intermediates: ESC ( B
                default: mode = .text; if v >= 0x20 && v < 0x7F { continue }    // the final byte
                }
                if mode != .text { continue }
            case .csi:
                if (0x20...0x3F).contains(v) { continue }
                mode = .text
                if (0x40...0x7E).contains(v) { continue }
            case .string:
                if v == 0x07 || v == 0x9C { mode = .text; continue }
                if v == 0x1B { mode = .stringEscape; continue }
                if v == 0x0A { mode = .text; break }
                continue
            case .stringEscape:
                mode = v == 0x5C ? .text : .string // ESC \ ends it
                continue
            }
            switch v {
            case 0x1B: mode = .escape
            case 0x9B: mode = .csi
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: mode = .string
            default: out.append(scalar)
            }
        }
        return out
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
