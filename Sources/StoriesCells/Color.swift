/// A cell colour: the terminal's default, a palette index (0–255), or RGB. The backend maps
/// each to what the terminal can show.
public enum Color: Hashable, Sendable {
    case `default`
    case palette(UInt8)
    case rgb(UInt8, UInt8, UInt8)
}
