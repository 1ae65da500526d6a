/// Each 24-bit colour's number on a terminal of fewer colours (`ColorMapping.terminalColor`),
/// remembered across frames in the project's one palette memo (`Nearest256Memo`): a motion
/// shades the same few thousand colours frame after frame, and finding the nearest of 256
/// is a search.
public struct PaletteMemo: Sendable {
    public let depth: ColorDepth
    private var memo = ColorMapping.Nearest256Memo()

    public init(depth: ColorDepth) {
        self.depth = depth
    }

    /// `ColorMapping.terminalColor(color, depth: depth)`, searched for once a colour.
    public mutating func number(_ color: Color) -> Int {
        guard depth != .direct, depth != .none, case .rgb(let r, let g, let b) = color else {
            return ColorMapping.terminalColor(color, depth: depth)
        }
        let depth = depth
        return memo.remembered(r, g, b) { ColorMapping.terminalColor(.rgb($0, $1, $2), depth: depth) }
    }
}
