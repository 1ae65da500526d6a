import Foundation

/// A cell's grapheme in four bytes (issue 48, point 1): one Unicode scalar as it is — what
/// nearly every cell holds, letters and the block symbols pictures are made of — or a
/// grapheme of several scalars (an emoji sequence, a letter and its marks) by its number in
/// a table every glyph shares. Comparing, copying and hashing a cell is then comparing a few
/// integers: no string, no reference count. 0 is no grapheme (a wide one's right half).
public struct Glyph: Hashable, Sendable {
    public let raw: UInt32

    @inline(__always) public init(raw: UInt32) { self.raw = raw }

    /// Past every scalar: the table's numbers start here.
    @usableFromInline static let tableBase: UInt32 = 0x20_0000

    // Computed, not stored: no once-token to check in a frame's inner loops.
    @inline(__always) public static var none: Glyph { Glyph(raw: 0) }
    @inline(__always) public static var space: Glyph { Glyph(raw: 0x20) }
    /// ▀, the half block pictures are mostly made of.
    @inline(__always) public static var upperHalf: Glyph { Glyph(raw: 0x2580) }
    /// █.
    @inline(__always) public static var fullBlock: Glyph { Glyph(raw: 0x2588) }
    /// ▄: an upper half block with its colours swapped, where that needs fewer changes.
    @inline(__always) public static var lowerHalf: Glyph { Glyph(raw: 0x2584) }

    @inline(__always) public init(_ scalar: Unicode.Scalar) { raw = scalar.value }

    public init(_ character: Character) {
        var iterator = character.unicodeScalars.makeIterator()
        guard let first = iterator.next() else {
            self = .space
            return
        }
        guard iterator.next() != nil else {
            raw = first.value == 0 ? 0x20 : first.value
            return
        }
        raw = GlyphTable.shared.number(of: character) ?? first.value
    }

    public init(_ character: Character?) {
        guard let character else {
            self = .none
            return
        }
        self.init(character)
    }

    /// Its one scalar, when it is one (nil: none, or a grapheme of several).
    @inline(__always) public var scalar: Unicode.Scalar? {
        raw != 0 && raw < Self.tableBase ? Unicode.Scalar(raw) : nil
    }

    /// A grapheme of several scalars, kept in the table.
    @inline(__always) public var isCluster: Bool { raw >= Self.tableBase }

    public var character: Character? {
        if raw == 0 { return nil }
        if let scalar { return Character(scalar) }
        // A number that is no scalar (a surrogate, past U+10FFFF) and not in the table.
        guard raw >= Self.tableBase else { return "\u{FFFD}" }
        return GlyphTable.shared.character(raw - Self.tableBase) ?? "\u{FFFD}"
    }

    /// Its UTF-8 bytes, put in `out`: at most 4 for a single scalar (U+FFFD's 3 for a
    /// number that is no scalar), a cluster's as many as it has.
    @inlinable @inline(__always) public func appendUTF8<Sink: ByteSink>(to out: inout Sink) {
        let value = raw
        switch value {
        case 0: return
        case 0..<0x80: out.put(UInt8(value))
        case 0x80..<0x800:
            out.put(UInt8(0xC0 | (value >> 6)), UInt8(0x80 | (value & 0x3F)))
        case 0xD800..<0xE000, 0x11_0000..<Self.tableBase:
            out.put(0xEF, 0xBF, 0xBD) // U+FFFD: no scalar has this number
        case 0x800..<0x10000:
            out.put(UInt8(0xE0 | (value >> 12)), UInt8(0x80 | ((value >> 6) & 0x3F)), UInt8(0x80 | (value & 0x3F)))
        case 0x10000..<0x11_0000:
            out.put(UInt8(0xF0 | (value >> 18)), UInt8(0x80 | ((value >> 12) & 0x3F)))
            out.put(UInt8(0x80 | ((value >> 6) & 0x3F)), UInt8(0x80 | (value & 0x3F)))
        default:
            if let character { for byte in character.utf8 { out.put(byte) } }
        }
    }
}

/// The graphemes of several scalars seen so far, each with its number. Bounded: past
/// `capacity` graphemes or `byteCapacity` bytes of them a new one is drawn as its first
/// scalar (a feed cannot grow it without end, nor with clusters of a thousand marks).
final class GlyphTable: @unchecked Sendable {
    // `lock` guards both tables and the byte count; numbers are never reused, so a number
    // read stays good.
    static let shared = GlyphTable()
    let capacity: Int
    let byteCapacity: Int
    private let lock = NSLock()
    private var bytes = 0
    private var numbers: [Character: UInt32] = [:]
    private var characters: [Character] = []

    init(capacity: Int = 1 << 16, byteCapacity: Int = 4 << 20) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    func number(of character: Character) -> UInt32? {
        lock.lock()
        defer { lock.unlock() }
        if let known = numbers[character] { return known }
        let size = character.utf8.count
        guard characters.count < capacity, bytes + size <= byteCapacity else { return nil }
        bytes += size
        let number = Glyph.tableBase + UInt32(characters.count)
        characters.append(character)
        numbers[character] = number
        return number
    }

    func character(_ index: UInt32) -> Character? {
        lock.lock()
        defer { lock.unlock() }
        return Int(index) < characters.count ? characters[Int(index)] : nil
    }
}
