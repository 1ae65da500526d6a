import Foundation
import Testing
@testable import StoriesCore

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("a", 1), ("é", 1), ("e\u{301}", 1), ("山", 2), ("花", 2), ("🌸", 2), ("🚀", 2),
        ("👩‍💻", 2), ("ل", 1), ("\u{200D}", 0), ("\u{1B}", 0), ("─", 1), ("ｱ", 1), ("Ａ", 2),
    ])
    func widthOfOneCharacter(text: String, expected: Int) {
        #expect(text.displayWidth == expected)
    }

    @Test func widthOfMixedText() {
        #expect("Mika 🌸".displayWidth == 7)
        #expect("山田 花子".displayWidth == 9)
        #expect("ليلى حسن".displayWidth == 8)
    }

    @Test func truncationAddsEllipsisAndFits() {
        #expect("Maximiliana".truncated(toWidth: 6) == "Maxim…")
        #expect("short".truncated(toWidth: 10) == "short")
        #expect("exact".truncated(toWidth: 5) == "exact")
        #expect("anything".truncated(toWidth: 0) == "")
    }

    @Test func truncationNeverSplitsAWideCharacter() {
        // 山田花子 is 8 columns; at 4 columns only one CJK character and the ellipsis fit.
        let cut = "山田花子".truncated(toWidth: 4)
        #expect(cut == "山…")
        #expect(cut.displayWidth <= 4)
        #expect("山田花子".truncated(toWidth: 3, ellipsis: false) == "山")
    }

    @Test func truncationDropsSpaceBeforeEllipsis() {
        #expect("Ayla Demir".truncated(toWidth: 6) == "Ayla…")
    }

    /// What each kind of cluster is drawn as: the cells (grapheme, width) a terminal gives
    /// them, with the parts terminals disagree on left out (measured in tmux 3.3a).
    @Test(arguments: [
        ("\u{1F1FA}\u{1F1F8}", [("\u{1F1FA}", 1), ("\u{1F1F8}", 1)]),                     // a flag: two indicators
        ("\u{1F1E6}", [("\u{1F1E6}", 1)]),                                                 // one on its own
        ("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", [("\u{1F468}", 2)]),              // a family: its first person
        ("\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}", [("\u{1F469}", 2)]),                       // tone and joiner left out
        ("\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", [("\u{1F3F3}", 1)]),                        // a text-style base stays narrow
        ("\u{2764}\u{FE0F}", [("\u{2764}", 1)]),                                           // VS16 does not widen
        ("\u{1F600}\u{FE0E}", [("\u{1F600}", 2)]),                                         // VS15 does not narrow
        ("\u{1F44D}\u{1F3FD}", [("\u{1F44D}", 2)]),                                         // skin tone left out
        ("\u{1F3FD}", [("\u{1F3FD}", 2)]),                                                 // a swatch on its own stays
        ("1\u{FE0F}\u{20E3}", [("1\u{20E3}", 1)]),                                          // keycap: the mark joins
        ("e\u{301}", [("e\u{301}", 1)]),
        ("\u{915}\u{94D}\u{937}\u{93F}", [("\u{915}\u{94D}", 1), ("\u{937}", 1), ("\u{93F}", 1)]), // क्षि: 3 columns
        ("\u{930}\u{94D}\u{200D}\u{939}", [("\u{930}\u{94D}", 1), ("\u{939}", 1)]),      // र्‍ह: the joiner only, never the letter after it
        ("\u{1100}\u{1161}\u{11A8}", [("\u{1100}\u{1161}\u{11A8}", 2)]),                   // Hangul jamo: one cell
        ("\u{6F22}", [("\u{6F22}", 2)]), ("\u{FF21}", [("\u{FF21}", 2)]), ("\u{FF71}", [("\u{FF71}", 1)]),
        ("\u{1FA77}", [("\u{FFFD}", 1)]),                                                 // newer than the table
        ("\u{378}", [("\u{FFFD}", 1)]),                                                   // unassigned
        ("\r\n", []), ("\u{301}", []), ("\u{200B}", []), ("\u{200D}", []),
    ] as [(String, [(String, Int)])])
    func eachKindOfClusterIsDrawnAsCellsTheTerminalAgreesOn(text: String, cells: [(String, Int)]) throws {
        let character = try #require(text.first)
        #expect(text.count == 1, "one grapheme cluster")
        var drawn: [(String, Int)] = []
        DisplayWidth.forEachCell(of: character) { drawn.append((String($0), $1)) }
        #expect(drawn.map(\.0) == cells.map(\.0))
        #expect(drawn.map(\.1) == cells.map(\.1))
        #expect(DisplayWidth.of(character) == cells.reduce(0) { $0 + $1.1 })
        for (cell, width) in drawn {
            // Each cell's width is its first code point's and the rest are zero width, so
            // ncurses (which measures the same way) places it in the same columns.
            let scalars = Array(cell.unicodeScalars)
            #expect(DisplayWidth.tableWidth(scalars[0].value) == width || scalars[0] == "\u{FFFD}")
            #expect(scalars.dropFirst().allSatisfy { DisplayWidth.tableWidth($0.value) == 0 })
            #expect(scalars.count <= 1 + DisplayWidth.maxJoinedPerCell)
        }
    }

    /// Cutting a long cluster never glues it to the next one: a cut ending in a joiner, a
    /// virama or a leading jamo would, and the result would be one cluster of everything.
    @Test(arguments: [
        String(repeating: "\u{1F468}\u{1F3FD}\u{200D}\u{1F469}\u{1F3FD}\u{200D}\u{1F467}\u{1F3FD}\u{200D}\u{1F466}\u{1F3FD}\u{200D}\u{1F466}\u{1F3FD}\u{200D}\u{1F466}", count: 50),
        String(repeating: String(repeating: "\u{1100}", count: 17) + "\u{1161}", count: 50),
        String(repeating: String(repeating: "\u{600}", count: 17) + "a", count: 50),
        String(repeating: "\u{915}" + String(repeating: "\u{94D}\u{200D}\u{937}", count: 6), count: 50),
        String(repeating: "e" + String(repeating: "\u{301}", count: 40), count: 50),
    ])
    func cuttingALongClusterNeverJoinsItToTheNext(text: String) {
        let cut = SafeText.line(text, maxColumns: 10_000)
        #expect(cut.allSatisfy { $0.unicodeScalars.count <= SafeText.maxScalarsPerCluster })
        #expect(cut.count >= 40, "the clusters stay apart: \(cut.count)")
    }

    @Test func aClusterOfEndlessMarksIsCutToABoundedWidth() throws {
        let spacing = try #require(("\u{915}" + String(repeating: "\u{93F}", count: 10_000)).first)
        #expect(DisplayWidth.of(spacing) == DisplayWidth.maxClusterColumns)
        let zero = try #require(("e" + String(repeating: "\u{301}", count: 10_000)).first)
        var cells: [Character] = []
        DisplayWidth.forEachCell(of: zero) { cell, _ in cells.append(cell) }
        #expect(cells.count == 1)
        #expect(cells.first?.unicodeScalars.count == 1 + DisplayWidth.maxJoinedPerCell)
    }

    /// The table is glibc's wcwidth for every code point, on the glibc it was written from
    /// (this machine's and CI's); on another glibc the table is what `scripts/gen-widths` gives.
    static var glibcVersion: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return "" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self) // "glibc 2.36"
    }

    @Test(.enabled(if: DisplayWidth.tableSource == glibcVersion))
    func theTableIsGlibcsWcwidthForEveryCodePoint() throws {
        typealias WidthFunction = @convention(c) (Int32) -> Int32
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth"))
        let wcwidth = unsafeBitCast(symbol, to: WidthFunction.self)
        let locale = try #require(newlocale(LC_CTYPE_MASK, "C.UTF-8", nil))
        defer { freelocale(locale) }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        var differences: [String] = []
        for value in UInt32(0)...0x10FFFF where !(0xD800...0xDFFF).contains(value) {
            let glibc = Int(wcwidth(Int32(bitPattern: value)))
            if DisplayWidth.tableWidth(value) != glibc, differences.count < 10 {
                differences.append(String(format: "U+%04X: table %d, glibc %d", value, DisplayWidth.tableWidth(value), glibc))
            }
        }
        #expect(differences.isEmpty, "\(differences)")
    }
}

@Suite struct SafeTextTests {
    @Test func escapeSequencesCannotReachTheTerminal() {
        let hostile = "Eve\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{7F}"
        let cleaned = SafeText.line(hostile)
        #expect(!cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(cleaned == "Eve", "whole sequences go, not just their ESC")
    }

    @Test func everyKindOfSequenceGoesWholeAndTheTextAroundItStays() {
        #expect(SafeText.line("a\u{1B}(Bb") == "ab", "ESC with an intermediate")
        #expect(SafeText.line("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b") == "alinkb", "OSC 8 ended by ST")
        #expect(SafeText.line("a\u{1B}P1$r\u{9C}b") == "ab", "DCS ended by C1 ST")
        #expect(SafeText.line("a\u{1B}[31;1mb\u{1B}[0m") == "ab")
        #expect(SafeText.line("a\u{1B}[12é") == "aé", "a CSI cut short keeps what broke it")
        #expect(SafeText.line("end\u{1B}") == "end")
        #expect(SafeText.paragraphs("a\u{1B}]0;never ended\nnext line") == "a\nnext line", "an unterminated string ends at the line")
        #expect(SafeText.line("\u{9D}0;title\u{07}山田") == "山田", "C1 OSC")
    }

    @Test func bidiOverridesAreRemovedButEmojiJoinersStay() {
        #expect(SafeText.line("abc\u{202E}def\u{2066}") == "abcdef")
        #expect(SafeText.line("👩‍💻 dev") == "👩‍💻 dev")
    }

    @Test func oneLineFoldsNewlinesAndSpaces() {
        #expect(SafeText.line("  Ayla\n\tDemir  ") == "Ayla Demir")
    }

    @Test func paragraphsKeepNewlines() {
        #expect(SafeText.paragraphs("Cats: 1\r\nDogs: 0\u{1B}\n") == "Cats: 1\nDogs: 0")
    }
}

@Suite struct TextWrapTests {
    @Test func wrapsAtSpacesByDisplayWidth() {
        #expect(TextWrap.lines("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TextWrap.lines("山田 花子 さん", width: 5) == ["山田", "花子", "さん"])
    }

    @Test func keepsExplicitLineBreaksAndBreaksLongWords() {
        #expect(TextWrap.lines("a\nb", width: 10) == ["a", "b"])
        #expect(TextWrap.lines("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func everyLineFits() {
        let text = "Maximiliana Wilhelmina Bartholomew-Featherstonehaugh 山田花子山田花子"
        for width in 1...20 {
            for line in TextWrap.lines(text, width: width) { #expect(line.displayWidth <= width) }
        }
    }
}

@Suite struct RelativeTimeTests {
    @Test func shortForms() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RelativeTime.short(from: now.addingTimeInterval(-30), to: now) == "now")
        #expect(RelativeTime.short(from: now.addingTimeInterval(-5 * 60), to: now) == "5m")
        #expect(RelativeTime.short(from: now.addingTimeInterval(-3 * 3600), to: now) == "3h")
        #expect(RelativeTime.short(from: now.addingTimeInterval(-2 * 86400), to: now) == "2d")
        // Past a week, the day itself ("22 Dec 1969" here, in this machine's time zone).
        #expect(RelativeTime.short(from: now.addingTimeInterval(-21 * 86400), to: now)
            .range(of: #"^\d{1,2} (Dec|Jan) 1969$"#, options: .regularExpression) != nil)
        #expect(RelativeTime.short(from: now.addingTimeInterval(600), to: now) == "now")
    }
}

/// Wrapping is linear in the text: a 100 000-character word (which the old cut-and-measure
/// loop took minutes over) is cut in one pass into lines that each fit and add up to it.
@Suite struct TextWrapLongWordTests {
    @Test func aHugeWordIsCutInOnePassIntoLinesThatFit() {
        let word = String(repeating: "abcdefghij山", count: 9_091) // 100 001 graphemes, some wide
        let lines = TextWrap.lines("before " + word + " after", width: 37)
        #expect(lines.allSatisfy { $0.displayWidth <= 37 })
        #expect(lines.joined().replacingOccurrences(of: " ", with: "") == "before" + word + "after", "every grapheme kept, in order")
        #expect(TextWrap.lines("🇫🇷", width: 1) == [""], "a grapheme wider than the line is left out, not looped on")
    }

    @Test func aTextCardIsWrappedInItsViewModelOnce() {
        let story = Story(id: "s", author: Author(name: "A"), items: [
            StoryItem(id: "t", content: .text(String(repeating: "word ", count: 50), background: RGB(0, 0, 0))),
        ])
        let page = ViewModelFactory.viewerItems(story, now: Date(), width: 40).first
        #expect(page?.textLines == TextWrap.lines(String(repeating: "word ", count: 50), width: 32))
    }
}
