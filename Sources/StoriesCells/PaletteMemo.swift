/// Each 24-bit colour's number on a terminal of fewer colours, remembered across frames: a
/// motion shades the same few thousand colours frame after frame, and finding the nearest
/// of 256 is a search. A table of 4 096 places, each colour in the place its bits choose (a
/// newer colour takes an older's place), so it never grows.
public struct PaletteMemo: Sendable {
    public let depth: ColorDepth
    private var keys: [UInt32]
    private var numbers: [Int16]
    private static let places = 4096

    public init(depth: ColorDepth) {
        self.depth = depth
        keys = Array(repeating: 0, count: Self.places)
        numbers = Array(repeating: 0, count: Self.places)
    }

    /// `ColorMapping.terminalColor(color, depth: depth)`, searched for once a colour.
    public mutating func number(_ color: Color) -> Int {
        guard depth != .direct, case .rgb(let r, let g, let b) = color else { return ColorMapping.terminalColor(color, depth: depth) }
        // Bit 24 marks a place as taken (an empty one holds 0).
        let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) | 1 << 24
        let place = Int(truncatingIfNeeded: (key &* 2_654_435_761) >> 20) & (Self.places - 1)
        if keys[place] == key { return Int(numbers[place]) }
        let found = ColorMapping.terminalColor(color, depth: depth)
        keys[place] = key
        numbers[place] = Int16(clamping: found)
        return found
    }
}
