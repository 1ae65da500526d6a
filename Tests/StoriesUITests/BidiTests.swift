import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 33: right-to-left text put in the order a left-to-right terminal shows it, shaped,
/// and cut at any width without breaking a grapheme cluster.
@Suite struct BidiTests {
    /// Arabic with its vowel marks and a lam-alef; Hebrew with niqqud; a name mixed with
    /// Latin, digits, brackets and an emoji sequence.
    static let names = ["ليلى حسن", "مُحَمَّد الأمين", "שָׁלוֹם עוֹלָם", "דָּנָה (Dana) 2026 👩‍👩‍👧", "علي 3.14 و(ب)"]

    @Test func hebrewIsReversedArabicIsJoinedLatinIsLeftAlone() {
        #expect(Bidi.visual("Ayla Demir") == "Ayla Demir")
        #expect(Bidi.visual("שלום") == "םולש")
        // Arabic: reversed, each letter in its joined form (lam initial, yeh medial…).
        #expect(Bidi.visual("ليلى") == "\u{FEF0}\u{FEE0}\u{FEF4}\u{FEDF}")
        // A lam-alef becomes one ligature: four letters, three cells.
        let salam = Bidi.visual("سلام")
        #expect(salam.unicodeScalars.count == 3 && salam.displayWidth == 3, "\(salam.unicodeScalars.map { String($0.value, radix: 16) })")
        // Brackets are mirrored inside a right-to-left run, numbers keep their order.
        #expect(Bidi.visual("א (ב) 12") == "12 (ב) א")
        // Latin inside Hebrew keeps its own order.
        #expect(Bidi.visual("שלום Dana") == "Dana םולש")
    }

    @Test func marksStayOnTheirLettersAndSequencesStayWhole() {
        for name in Self.names {
            let visual = Bidi.visual(name)
            for character in visual {
                let first = character.unicodeScalars.first!
                #expect(first.properties.generalCategory != .nonspacingMark, "\(name): a cluster begins with a mark")
            }
            // Every cluster of the original is still there, whole (shaping changes letters,
            // not the marks on them nor emoji sequences).
            for character in name where character.unicodeScalars.count > 1 && !Bidi.hasRightToLeft(String(character)) {
                #expect(visual.contains(character), "\(name): \(character) was split")
            }
            #expect(visual.unicodeScalars.filter { $0.properties.generalCategory == .nonspacingMark }.count
                == name.unicodeScalars.filter { $0.properties.generalCategory == .nonspacingMark }.count, "\(name): a mark was lost")
        }
        let family = Bidi.visual("דָּנָה 👩‍👩‍👧")
        #expect(family.hasPrefix("👩‍👩‍👧"))
    }

    /// Drawn at every width from 1 to past its own: never wider than asked, never half a
    /// cluster in a cell, the cut at the end of the reading (the ellipsis at the left of a
    /// right-to-left name).
    @Test(arguments: names)
    func cutAtEveryWidthWithoutBreakingACluster(_ name: String) {
        let full = name.displayWidth
        for width in 1...(full + 2) {
            var canvas = Canvas(width: 40, height: 1)
            canvas.reordersText = true
            let used = canvas.text(name, x: 2, y: 0, maxWidth: width)
            #expect(used <= width, "\(name) at \(width): \(used) columns")
            var drawn = ""
            for x in 0..<canvas.width {
                guard let grapheme = canvas[x, 0].grapheme else { continue }
                let first = grapheme.unicodeScalars.first!
                #expect(first.properties.generalCategory != .nonspacingMark, "\(name) at \(width): a cell begins with a mark")
                drawn.append(grapheme)
            }
            let shown = drawn.trimmingCharacters(in: .whitespaces)
            if width < full, name.unicodeScalars.first.map({ Bidi.hasRightToLeft(String($0)) }) == true {
                #expect(shown.hasPrefix("…"), "\(name) at \(width): the cut is at the reading's end, on the left: \(shown)")
            }
            if width >= full {
                // Whole: as the visual text is drawn cell by cell (the canvas's own rules for
                // a sequence a terminal cannot show in one cell apply to it as to any text).
                var plain = Canvas(width: 40, height: 1)
                plain.text(Bidi.visual(name), x: 2, y: 0)
                #expect(canvas == plain, "\(name) at \(width): whole")
            }
        }
    }

    @Test func aCanvasThatLeavesReorderingToTheTerminalWritesTheStoredOrder() {
        var canvas = Canvas(width: 20, height: 1)
        canvas.text("שלום", x: 0, y: 0)
        #expect(canvas[0, 0].grapheme == "ש")
        canvas.reordersText = true
        canvas.text("שלום", x: 0, y: 0)
        #expect(canvas[0, 0].grapheme == "ם")
    }
}
