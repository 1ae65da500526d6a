/// A cell colour: the terminal's default, a palette index (0–255), or RGB. The backend maps
/// each to what the terminal can show.
public enum Color: Hashable, Sendable {
    case `default`
    case palette(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    /// Equal colours (written out and inlinable: every cell of every frame is compared).
    @inlinable
    public static func == (a: Color, b: Color) -> Bool {
        switch (a, b) {
        case (.default, .default): return true
        case (.palette(let x), .palette(let y)): return x == y
        case (.rgb(let r1, let g1, let b1), .rgb(let r2, let g2, let b2)): return r1 == r2 && g1 == g2 && b1 == b2
        default: return false
        }
    }
}

extension Color {
    /// Within `tolerance` levels on every channel; palette and default colours only when equal.
    @inlinable
    public func isClose(to other: Color, within tolerance: Int) -> Bool {
        guard tolerance > 0, case .rgb(let r1, let g1, let b1) = self, case .rgb(let r2, let g2, let b2) = other else {
            return self == other
        }
        return abs(Int(r1) - Int(r2)) <= tolerance && abs(Int(g1) - Int(g2)) <= tolerance && abs(Int(b1) - Int(b2)) <= tolerance
    }
}
