import StoriesCells
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 48, point 4: the band encoder goes down each column once and writes each colour's
/// line from its own entries. Its stream is the same, byte for byte, as the plain one it
/// replaced (below: every colour's bits marked across the band, then each colour's span
/// scanned), on pictures of many colours, few, noise and odd sizes.
@Suite struct SixelBandsTests {
    @Test func theBandsAreWrittenAsThePlainEncoderWroteThem() throws {
        var random = SystemRandomNumberGenerator()
        var cases: [(indices: [UInt8], width: Int, height: Int, colours: Int)] = []
        for (width, height, colours) in [(1, 1, 2), (7, 5, 3), (13, 8, 2), (64, 37, 255), (100, 60, 40), (3, 13, 255)] {
            cases.append(((0..<(width * height)).map { _ in UInt8.random(in: 0..<UInt8(colours), using: &random) }, width, height, colours))
        }
        // Runs: long stretches of one colour with others in spots (empty columns, `!n`).
        var runs = [UInt8](repeating: 0, count: 200 * 18)
        for i in runs.indices where i % 37 < 5 || i % 91 == 0 { runs[i] = UInt8(1 + i % 7) }
        cases.append((runs, 200, 18, 8))
        // A photo's own palette indices.
        let photo = ImageScaler.scale(try ImageDecoder.decode(try VideoFixture.data("subjects/astronaut.jpg")), width: 160, height: 119)
        let (palette, lookup) = SixelEncoder.medianCut(photo, colours: 255)
        var indices: [UInt8] = []
        for i in 0..<(160 * 119) {
            let r = Int(photo.pixels[3 * i]) >> 3, g = Int(photo.pixels[3 * i + 1]) >> 3, b = Int(photo.pixels[3 * i + 2]) >> 3
            indices.append(lookup[r << 10 | g << 5 | b])
        }
        cases.append((indices, 160, 119, palette.count))
        for c in cases {
            let bands = (c.height + 5) / 6
            c.indices.withUnsafeBufferPointer { buffer in
                for range in [0..<bands, 0..<(bands / 2), (bands / 2)..<bands] {
                    let made = SixelEncoder.encodeBands(range, indices: buffer, width: c.width, height: c.height, colours: c.colours)
                    let plain = Self.plainBands(range, indices: buffer, width: c.width, height: c.height, colours: c.colours)
                    #expect(made == plain, "\(c.width)×\(c.height), \(c.colours) colours, bands \(range)")
                }
            }
        }
    }

    /// The encoder as it was: each colour's bits marked across the whole band, then its span
    /// scanned column by column.
    static func plainBands(_ bands: Range<Int>, indices: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                           colours: Int) -> [UInt8] {
        var out: [UInt8] = []
        var rows = [UInt8](repeating: 0, count: colours * width)
        var first = [Int](repeating: Int.max, count: colours), last = [Int](repeating: -1, count: colours)
        var used: [Int] = []
        func run(_ value: UInt8, _ length: Int) {
            if length > 3 {
                out.append(UInt8(ascii: "!")); SixelEncoder.appendNumber(&out, length); out.append(63 + value)
            } else {
                for _ in 0..<length { out.append(63 + value) }
            }
        }
        for band in bands {
            let top = band * 6
            for dy in 0..<min(6, height - top) {
                for x in 0..<width {
                    let colour = Int(indices[(top + dy) * width + x])
                    if last[colour] < 0 { used.append(colour) }
                    first[colour] = min(first[colour], x)
                    last[colour] = max(last[colour], x)
                    rows[colour * width + x] |= UInt8(1 << dy)
                }
            }
            for (n, colour) in used.enumerated() {
                if n > 0 { out.append(UInt8(ascii: "$")) }
                out.append(UInt8(ascii: "#")); SixelEncoder.appendNumber(&out, colour)
                var x = 0
                while x <= last[colour] {
                    let value = rows[colour * width + x]
                    var length = 1
                    while x + length <= last[colour], rows[colour * width + x + length] == value { length += 1 }
                    run(value, length)
                    x += length
                }
                for x in 0..<width { rows[colour * width + x] = 0 }
                first[colour] = Int.max
                last[colour] = -1
            }
            used.removeAll()
            if top + 6 < height { out.append(UInt8(ascii: "-")) }
        }
        return out
    }
}
