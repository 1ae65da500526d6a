/// The sixteen colours a terminal shows for palette numbers 0–15: what it answered to OSC 4
/// where it did, otherwise the defaults of its kind (xterm's, or the Linux console's). The
/// picture picker chooses among them at 8 and 16 colours (issue 45, point 6): a terminal
/// with a theme of its own (Solarized, a desktop's) shows number 4 as its own blue.
public struct TerminalPalette: Hashable, Sendable {
    /// Red, green and blue of each of the 16, in order (48 bytes).
    public private(set) var channels: [UInt8]

    /// xterm's defaults (and what `ColorMapping` assumes).
    public static let xterm = TerminalPalette(colors: (0..<16).map { ColorMapping.rgb(ofPaletteIndex: UInt8($0)) })

    /// The Linux console's defaults (VGA's: dark colours at two thirds, bright with a third added).
    public static let linuxConsole = TerminalPalette(colors: [
        (0, 0, 0), (170, 0, 0), (0, 170, 0), (170, 85, 0), (0, 0, 170), (170, 0, 170), (0, 170, 170), (170, 170, 170),
        (85, 85, 85), (255, 85, 85), (85, 255, 85), (255, 255, 85), (85, 85, 255), (255, 85, 255), (85, 255, 255), (255, 255, 255),
    ])

    /// From 16 colours (more are left out; fewer leave xterm's in the rest).
    public init(colors: [(UInt8, UInt8, UInt8)]) {
        var channels: [UInt8] = []
        channels.reserveCapacity(48)
        for index in 0..<16 {
            let (r, g, b) = index < colors.count ? colors[index] : ColorMapping.rgb(ofPaletteIndex: UInt8(index))
            channels += [r, g, b]
        }
        self.channels = channels
    }

    /// The defaults for a terminal of this `TERM` (the Linux console's for `linux*`).
    public static func defaults(term: String) -> TerminalPalette {
        term.hasPrefix("linux") ? .linuxConsole : .xterm
    }

    /// Colour `index` (0–15; others wrap into range).
    public subscript(index: Int) -> (UInt8, UInt8, UInt8) {
        let at = 3 * (index & 15)
        return (channels[at], channels[at + 1], channels[at + 2])
    }

    /// The same palette with colour `index` (0–15) set; out of range leaves it as it is.
    public func setting(_ index: Int, to color: (UInt8, UInt8, UInt8)) -> TerminalPalette {
        guard (0..<16).contains(index) else { return self }
        var copy = self
        copy.channels[3 * index] = color.0
        copy.channels[3 * index + 1] = color.1
        copy.channels[3 * index + 2] = color.2
        return copy
    }

    /// An OSC 4 answer's body ("4;1;rgb:cdcd/0000/0000", 1 to 4 hex digits a channel): the
    /// number and its colour; nil for anything else (a number past 15 included).
    public static func color(fromOSC body: String) -> (index: Int, color: (UInt8, UInt8, UInt8))? {
        let parts = body.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "4", parts[1].count <= 2, let index = Int(parts[1]), (0..<16).contains(index),
              let color = rgb(fromSpec: parts[2]) else { return nil }
        return (index, color)
    }

    /// "rgb:RRRR/GGGG/BBBB" (1 to 4 hex digits a channel, as X11 writes it): the colour.
    public static func rgb(fromSpec spec: Substring) -> (UInt8, UInt8, UInt8)? {
        guard spec.hasPrefix("rgb:") else { return nil }
        let parts = spec.dropFirst(4).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var channels: [UInt8] = []
        for part in parts {
            guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), let value = Int(part, radix: 16) else { return nil }
            let top = (1 << (4 * part.count)) - 1
            channels.append(UInt8((value * 255 + top / 2) / top))
        }
        return (channels[0], channels[1], channels[2])
    }
}
