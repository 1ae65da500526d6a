/// How many terminal columns text takes, and what the terminal is given so that it agrees.
///
/// The width of a code point is glibc's `wcwidth` (the table in `DisplayWidth+Table.swift`,
/// written by `scripts/gen-widths`): ncurses places characters by that function and tmux measures with it
/// too, so the app, ncurses and the terminal agree. It is pure Swift, so tests (C locale) get
/// the same answers as the app.
///
/// A grapheme cluster is drawn as the cells a terminal gives its code points: each code point
/// of width 1 or 2 starts a cell and the zero-width ones after it join that cell (at most
/// four; ncurses keeps no more). Where terminals disagree about a cluster, the parts they
/// disagree on are left out, so every terminal puts the next character in the same column
/// (measured in tmux 3.3a; xterm 410 and tmux 3.5 read from their source):
/// - a zero width joiner and everything after it: tmux draws "👨‍👩‍👧" in the width of its first
///   person, xterm as three people side by side, so it is shown as "👨";
/// - an emoji modifier after its base ("👍🏽" is 4 columns in tmux 3.3a and xterm, 2 in tmux 3.5);
/// - variation selectors (tmux 3.5 widens a VS16 character to 2 columns, xterm and tmux 3.3a
///   do not), so "❤️" is the one-column "❤".
/// A flag is its two regional indicators, one column each: two cells in xterm and tmux 3.3a,
/// one two-column cell in tmux 3.5, two columns either way. A code point glibc does not know
/// (newer than its Unicode, or unassigned) would be dropped by tmux and moved past by ncurses,
/// so it is drawn as "�". A cluster is cut after `maxClusterColumns` columns.
public enum DisplayWidth {
    /// The most columns one grapheme cluster takes ("स्त्री" takes 4).
    public static let maxClusterColumns = 8
    /// The most zero-width code points kept after a cell's first (ncurses' `CCHARW_MAX` is 5).
    public static let maxJoinedPerCell = 4
    /// What is drawn for a code point the width table does not know.
    public static let unknown: Character = "\u{FFFD}"

    /// Columns taken by one grapheme cluster (0 to `maxClusterColumns`).
    public static func of(_ character: Character) -> Int {
        if let scalar = single(character) { return of(scalar) }
        var total = 0
        walk(character, cell: { _, width in total += width }, joined: { _ in }, dropped: {})
        return total
    }

    /// Columns taken by a whole string.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// Columns taken by one code point on its own: 0 for controls and zero-width marks, 1 for
    /// one the table does not know (drawn as "�"), else glibc's width.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        if isControl(scalar.value) { return 0 }
        let width = tableWidth(scalar.value)
        return width >= 0 ? width : 1
    }

    /// The cells a cluster is drawn as, in order, each a one-cell grapheme with its width
    /// (1 or 2). A control or a lone zero-width mark gives none.
    public static func forEachCell(of character: Character, _ body: (Character, Int) -> Void) {
        if let scalar = single(character) {
            guard !isControl(scalar.value) else { return }
            let width = tableWidth(scalar.value)
            if width > 0 {
                body(character, width)
            } else if width < 0 {
                body(unknown, 1)
            }
            return
        }
        var cells: [(scalars: [Unicode.Scalar], width: Int)] = []
        var changed = false
        walk(character,
             cell: { scalar, width in cells.append(([scalar], width)) },
             joined: { scalar in cells[cells.count - 1].scalars.append(scalar) },
             dropped: { changed = true })
        // The whole cluster in one cell, nothing left out: the grapheme as it came.
        if cells.count == 1, !changed {
            body(character, cells[0].width)
            return
        }
        for (scalars, width) in cells {
            let text = String(String.UnicodeScalarView(scalars))
            // A first code point with its marks is one grapheme; should a rule of Unicode's
            // ever split one, the first code point alone is drawn in the same columns.
            if text.count == 1, let whole = text.first {
                body(whole, width)
            } else {
                body(Character(scalars[0]), width)
            }
        }
    }

    /// The one walk over a cluster's code points that both measuring and drawing use:
    /// `cell` for a code point that starts a cell (with its width), `joined` for a
    /// zero-width one kept in the cell before, `dropped` when anything is left out or
    /// replaced. Allocates nothing itself.
    private static func walk(_ character: Character, cell: (Unicode.Scalar, Int) -> Void,
                             joined: (Unicode.Scalar) -> Void, dropped: () -> Void) {
        var total = 0
        var inCell = 0           // code points in the current cell, 0 before the first
        var cellIsEmoji = false
        // Past this many code points nothing more can be kept (8 cells of 5), so a letter
        // under a million combining marks costs what a short cluster does.
        let limit = maxClusterColumns * (1 + maxJoinedPerCell)
        var seen = 0
        for scalar in character.unicodeScalars {
            seen += 1
            if seen > limit { dropped(); break }
            let value = scalar.value
            if value == 0x200D {
                // A joiner ends an emoji sequence here (terminals disagree on the rest); in
                // other scripts ("र्‍ह") it only picks a letter's form, so the letters after
                // it are kept, each in its own cell.
                dropped()
                if cellIsEmoji { break }
                continue
            }
            if value == 0xFE0E || value == 0xFE0F { dropped(); continue } // variation selectors
            if (0x1F3FB...0x1F3FF).contains(value), total > 0 { dropped(); continue } // skin tone after its base
            if isControl(value) { dropped(); continue }
            let width = tableWidth(value)
            if width == 0 {
                if inCell > 0, inCell <= maxJoinedPerCell {
                    joined(scalar)
                    inCell += 1
                } else {
                    dropped()
                }
                continue
            }
            let columns = max(1, width)
            guard total + columns <= maxClusterColumns else { dropped(); break }
            if width < 0 {
                dropped()
                cell("\u{FFFD}", 1)
            } else {
                cell(scalar, columns)
            }
            cellIsEmoji = scalar.properties.isEmoji && value >= 0x100 // "�" for one too new too
            inCell = 1
            total += columns
        }
    }

    /// The code point of a cluster that has only one (most do), without counting them all.
    private static func single(_ character: Character) -> Unicode.Scalar? {
        var iterator = character.unicodeScalars.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }

    /// glibc's width of a code point: -1 (not printable), 0, 1 or 2.
    static func tableWidth(_ value: UInt32) -> Int {
        if value >= 0x20 && value < 0x7F { return 1 }
        if isControl(value) { return value == 0 ? 0 : -1 }
        // Latin, Greek and the like, and the box, block and shape characters the screens and
        // pictures are drawn with: one column (the table has no run there).
        if value < 0x300 || (0x2500...0x25FC).contains(value) { return 1 }
        // Binary search over the runs (triples of first, last, width + 1).
        let table = runs
        var low = 0, high = table.count / 3
        while low < high {
            let middle = (low + high) / 2
            if table[middle * 3 + 1] < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < table.count / 3, table[low * 3] <= value else { return 1 }
        return Int(table[low * 3 + 2]) - 1
    }

    private static func isControl(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F..<0xA0).contains(value)
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

extension String {
    /// Fits `width` columns by cutting the middle ("stories/very-lo…photo.jpg"): a file name
    /// or an address keeps its start and its end, which tell it apart. Never splits a
    /// grapheme.
    public func truncatedInMiddle(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        if displayWidth <= width { return self }
        guard width > 2 else { return truncated(toWidth: width) }
        let characters = Array(self)
        let tailBudget = (width - 1) / 2, headBudget = width - 1 - tailBudget
        var head = "", used = 0
        for character in characters {
            let w = DisplayWidth.of(character)
            if used + w > headBudget { break }
            head.append(character)
            used += w
        }
        var tail: [Character] = []
        used = 0
        for character in characters.reversed() {
            let w = DisplayWidth.of(character)
            if used + w > tailBudget { break }
            tail.append(character)
            used += w
        }
        return head + "…" + String(tail.reversed())
    }
}
