import StoriesCells

/// The characters that draw each set's sub-pixel patterns.
extension SymbolPicker {
    /// The symbol drawing sub-pixels `mask` (bit i: sub-pixel i, row by row) in the
    /// foreground.
    static func glyph(_ mask: Int, _ symbols: CellSymbols) -> Character {
        switch symbols {
        case .half: [" ", "▀", "▄", "█"][mask & 3]
        case .quad: CellImage.quadrantGlyphs[mask & 15]
        case .sextant: sextantGlyphs[mask & 63]
        case .octant: octantGlyphs[mask & 255]
        }
    }

    /// Sextants, 2×3 (bit i: sub-pixel i, row by row): U+1FB00… in the order of their bits,
    /// leaving out the four drawn by older block elements (empty, full, left and right half).
    static let sextantGlyphs: [Character] = (0..<64).map { mask in
        switch mask {
        case 0: " "
        case 63: "█"
        case 21: "▌"
        case 42: "▐"
        default: Unicode.Scalar(UInt32(0x1FB00 + mask - 1 - (mask > 21 ? 1 : 0) - (mask > 42 ? 1 : 0))).map(Character.init) ?? " "
        }
    }

    /// Octants, 2×4 (bit i: sub-pixel i, row by row): U+1CD00… in the order of their bits,
    /// leaving out the 26 patterns older characters draw (halves, quadrants, quarters).
    static let octantGlyphs: [Character] = {
        let older: [Int: UInt32] = [
            0x00: 0x20, 0xFF: 0x2588, 0x0F: 0x2580, 0xF0: 0x2584, 0x55: 0x258C, 0xAA: 0x2590,
            0x05: 0x2598, 0x0A: 0x259D, 0x50: 0x2596, 0xA0: 0x2597, 0xA5: 0x259A, 0x5A: 0x259E,
            0x5F: 0x259B, 0xAF: 0x259C, 0xF5: 0x2599, 0xFA: 0x259F,
            0x03: 0x1FB82, 0xC0: 0x2582, 0x3F: 0x1FB85, 0xFC: 0x2586, 0x14: 0x1FBE6, 0x28: 0x1FBE7,
            0x01: 0x1CEA8, 0x02: 0x1CEAB, 0x40: 0x1CEA3, 0x80: 0x1CEA0,
        ]
        var next: UInt32 = 0x1CD00
        return (0..<256).map { mask in
            if let scalar = older[mask] { return Unicode.Scalar(scalar).map(Character.init) ?? " " }
            defer { next += 1 }
            return Unicode.Scalar(next).map(Character.init) ?? " "
        }
    }()
}
