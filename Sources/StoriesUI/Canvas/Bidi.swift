import CFriBiDi

/// Right-to-left text in the order a terminal that shows cells left to right must be given
/// it (issue 33): Hebrew and Arabic runs reversed, Arabic letters joined (their
/// presentation forms), brackets mirrored — GNU FriBiDi's analysis, with the reordering
/// done here on grapheme clusters, so a letter keeps its marks and an emoji sequence stays
/// whole. Text with no right-to-left letter comes back as it is, at no cost.
public enum Bidi {
    /// The most code points a line is analysed for (a screen line is far shorter; a longer
    /// one is given back as it is rather than analysed at length).
    static let maxScalars = 4_096

    /// Whether `text` holds a right-to-left letter or mark (Hebrew, Arabic, Syriac, Thaana,
    /// N'Ko and the rest of the right-to-left blocks, their presentation forms, and the
    /// right-to-left controls).
    public static func hasRightToLeft(_ text: String) -> Bool {
        text.unicodeScalars.contains { isRightToLeft($0.value) }
    }

    static func isRightToLeft(_ value: UInt32) -> Bool {
        switch value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFE, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
        case 0x200F, 0x202B, 0x202E, 0x2067: true // RLM, RLE, RLO, RLI
        default: false
        }
    }

    /// `text` (one line, logical order) in visual order, shaped. `rightToLeft` is the
    /// paragraph's direction; nil: as its first strong letter says.
    public static func visual(_ text: String, rightToLeft: Bool? = nil) -> String {
        guard hasRightToLeft(text) else { return text }
        var scalars = text.unicodeScalars.map { FriBidiChar($0.value) }
        guard scalars.count <= maxScalars else { return text }
        var levels = [FriBidiLevel](repeating: 0, count: scalars.count)
        let direction: Int32 = rightToLeft.map { $0 ? 1 : 0 } ?? -1
        let done = scalars.withUnsafeMutableBufferPointer { chars in
            levels.withUnsafeMutableBufferPointer { stories_bidi_analyse(chars.baseAddress, Int32(chars.count), $0.baseAddress, direction) }
        }
        guard done == 1 else { return text }
        // The clusters in logical order, each shaped and with the level of its first scalar.
        var clusters: [(text: String, level: Int)] = []
        var offset = 0
        for character in text {
            let count = character.unicodeScalars.count
            var shaped = String.UnicodeScalarView()
            for index in offset..<(offset + count) {
                // U+FEFF is what a lam-alef ligature leaves of its second letter.
                if let scalar = Unicode.Scalar(UInt32(scalars[index])), scalar.value != 0xFEFF { shaped.append(scalar) }
            }
            if !shaped.isEmpty { clusters.append((String(shaped), Int(levels[offset]))) }
            offset += count
        }
        // Unicode's rule L2: from the highest level down to the lowest odd one, every run of
        // clusters at that level or higher is reversed.
        let highest = clusters.map(\.level).max() ?? 0
        let lowestOdd = clusters.map(\.level).filter { $0 % 2 == 1 }.min() ?? (highest + 1)
        var level = highest
        while level >= lowestOdd {
            var start = 0
            while start < clusters.count {
                guard clusters[start].level >= level else {
                    start += 1
                    continue
                }
                var end = start
                while end < clusters.count, clusters[end].level >= level { end += 1 }
                clusters[start..<end].reverse()
                start = end
            }
            level -= 1
        }
        return clusters.map(\.text).joined()
    }
}
