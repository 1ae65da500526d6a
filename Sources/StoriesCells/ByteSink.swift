/// Where the one SGR encoder and the glyphs' UTF-8 put their bytes: an array (`stories
/// print`, the links), or a writer's span of bytes it made room for first (a motion's
/// frames, 4 000 cells 60 times a second, where an array's check and possible growth on
/// every byte was a third of the time).
public protocol ByteSink {
    mutating func put(_ byte: UInt8)
}

extension Array: ByteSink where Element == UInt8 {
    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) { append(byte) }
}

/// Bytes put at a pointer, with no check a byte: whoever puts makes sure first that the
/// most it can put fits (`room`). The memory is its owner's (`ByteSpan` neither allocates
/// nor frees it).
public struct ByteSpan: ByteSink {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    public let capacity: Int
    public var count = 0

    public init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// How many more bytes fit.
    @inlinable @inline(__always) public var room: Int { capacity &- count }

    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) {
        assert(count < capacity, "a ByteSpan was given more than its room")
        base[count] = byte
        count &+= 1
    }

    /// What was put, as a buffer (valid while the owner's memory is).
    public var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
}

extension ByteSink {
    @inlinable @inline(__always) public mutating func put(_ a: UInt8, _ b: UInt8) { put(a); put(b) }
    @inlinable @inline(__always) public mutating func put(_ a: UInt8, _ b: UInt8, _ c: UInt8) { put(a); put(b); put(c) }

    /// A number from 0 to 255 as ASCII digits.
    @inlinable @inline(__always) public mutating func putNumber(_ value: UInt8) {
        if value >= 100 { put(0x30 &+ value / 100) }
        if value >= 10 { put(0x30 &+ (value / 10) % 10) }
        put(0x30 &+ value % 10)
    }

    /// A count (a cursor move) as ASCII digits; at most 19 of them.
    @inlinable public mutating func putNumber(_ value: Int) {
        var value = Swift.max(0, value)
        var divisor = 1
        while divisor <= value / 10 { divisor &*= 10 }
        repeat {
            put(0x30 &+ UInt8(truncatingIfNeeded: value / divisor))
            value %= divisor
            divisor /= 10
        } while divisor > 0
    }
}
