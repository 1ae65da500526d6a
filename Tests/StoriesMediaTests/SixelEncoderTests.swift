import StoriesCells
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 31, point 2 (begun): the sixel encoder. Its stream decoded back (by the small
/// decoder below, the way a terminal reads it) is the picture, within what a palette of
/// 255 of its own colours allows.
@Suite struct SixelEncoderTests {
    /// A photo and a picture of flat colours, each drawn back from its sixels: the photo
    /// within 6 levels a channel on average, the flat one exactly; every pixel set; the
    /// size said up front.
    @Test func thePictureComesBack() throws {
        let photo = ImageScaler.scale(try ImageDecoder.decode(try VideoFixture.data("subjects/astronaut.jpg")), width: 160, height: 119)
        let back = try Self.decode(SixelEncoder.encode(photo))
        #expect(back.width == 160 && back.height == 119)
        #expect(back.unset == 0, "every pixel is painted")
        var error = 0
        for i in photo.pixels.indices { error += abs(Int(photo.pixels[i]) - Int(back.image.pixels[i])) }
        let mean = Double(error) / Double(photo.pixels.count)
        #expect(mean < 6, "mean error \(mean) levels")

        var flat = RGBImage(width: 13, height: 8, fill: RGBPixel(200, 40, 40))
        for y in 0..<8 { for x in 7..<13 { flat[x, y] = RGBPixel(10, 120, 250) } }
        let flatBack = try Self.decode(SixelEncoder.encode(flat))
        for y in 0..<8 {
            for x in 0..<13 {
                let a = flat[x, y], b = flatBack.image[x, y]
                // The palette is said in percent: within 2 levels of each channel.
                #expect(abs(Int(a.r) - Int(b.r)) <= 2 && abs(Int(a.g) - Int(b.g)) <= 2 && abs(Int(a.b) - Int(b.b)) <= 2, "\(x),\(y)")
            }
        }
        #expect(SixelEncoder.encode(RGBImage(width: 0, height: 5)).isEmpty)
        let one = try Self.decode(SixelEncoder.encode(RGBImage(width: 1, height: 1, fill: RGBPixel(9, 9, 9))))
        #expect(one.width == 1 && one.height == 1 && one.unset == 0)
        // Bands are joined by `-`, and none follows the last: a terminal that counts it as a
        // line would move (or scroll) one further than the picture.
        let stream = String(decoding: SixelEncoder.encode(photo), as: UTF8.self)
        #expect(stream.hasSuffix("\u{1B}\\") && !stream.hasSuffix("-\u{1B}\\"))
        #expect(stream.filter { $0 == "-" }.count == (119 + 5) / 6 - 1, "one between each two of the 20 bands")
    }

    /// A picture large enough to be encoded in parts at once (`parallelPixels`) comes back
    /// as whole as a small one: the parts join band after band.
    @Test func aLargePictureEncodedInPartsComesBackWhole() throws {
        let photo = ImageScaler.scale(try ImageDecoder.decode(try VideoFixture.data("subjects/astronaut.jpg")), width: 640, height: 479)
        #expect(photo.width * photo.height >= SixelEncoder.parallelPixels)
        let stream = SixelEncoder.encode(photo)
        let back = try Self.decode(stream)
        #expect(back.width == 640 && back.height == 479 && back.unset == 0)
        var error = 0
        for i in photo.pixels.indices { error += abs(Int(photo.pixels[i]) - Int(back.image.pixels[i])) }
        #expect(Double(error) / Double(photo.pixels.count) < 6)
        #expect(stream.filter { $0 == UInt8(ascii: "-") }.count == (479 + 5) / 6 - 1)
    }

    /// A sixel stream read as a terminal reads it: raster attributes, colour definitions
    /// (`#i;2;r;g;b` in percent), colour selection, sixel characters, `!n` repeats, `$`
    /// and `-`. How many pixels no colour set is counted.
    static func decode(_ bytes: [UInt8]) throws -> (image: RGBImage, width: Int, height: Int, unset: Int) {
        let text = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        try #require(text.starts(with: Array("\u{1B}P0;1;0q\"1;1;".unicodeScalars)))
        try #require(text.suffix(2) == Array("\u{1B}\\".unicodeScalars))
        var i = 13 // past ESC P 0;1;0 q " 1;1;
        func number() -> Int {
            var value = 0
            while i < text.count, let digit = text[i].properties.numericType != nil ? Int(String(text[i])) : nil { value = value * 10 + digit; i += 1 }
            return value
        }
        let width = number(); i += 1
        let height = number()
        var image = RGBImage(width: width, height: height)
        var set = [Bool](repeating: false, count: width * height)
        var palette: [Int: RGBPixel] = [:]
        var colour = 0, x = 0, band = 0
        while i < text.count - 2 {
            let c = text[i]
            switch c {
            case "#":
                i += 1
                colour = number()
                if i < text.count, text[i] == ";" {
                    i += 1; _ = number(); i += 1
                    let r = number(); i += 1
                    let g = number(); i += 1
                    let b = number()
                    palette[colour] = RGBPixel(UInt8(r * 255 / 100), UInt8(g * 255 / 100), UInt8(b * 255 / 100))
                }
            case "$": x = 0; i += 1
            case "-": x = 0; band += 1; i += 1
            case "!":
                i += 1
                let run = number()
                let value = Int(text[i].value) - 63
                for _ in 0..<run { paint(value) }
                i += 1
            default:
                try #require((63...126).contains(c.value), "a sixel character, not \(c)")
                paint(Int(c.value) - 63)
                i += 1
            }
        }
        func paint(_ value: Int) {
            for bit in 0..<6 where value & (1 << bit) != 0 {
                let y = band * 6 + bit
                guard x < width, y < height, let p = palette[colour] else { continue }
                image[x, y] = p
                set[y * width + x] = true
            }
            x += 1
        }
        return (image, width, height, set.filter { !$0 }.count)
    }
}
