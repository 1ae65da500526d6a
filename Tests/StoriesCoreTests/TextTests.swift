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
        #expect(RelativeTime.short(from: now.addingTimeInterval(-21 * 86400), to: now) == "3w")
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
        let page = ViewModelFactory.viewerPages(story, now: Date(), width: 40).first
        #expect(page?.textLines == TextWrap.lines(String(repeating: "word ", count: 50), width: 32))
    }
}
