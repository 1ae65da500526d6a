import StoriesCells
import Foundation
import StoriesAssets
import Testing
@testable import StoriesMedia

/// A PNG larger than the screen needs is box-averaged as its rows are read (issue 48, point
/// 5): every layout without alpha, a whole factor that still covers the size
/// asked for, the edge's partial boxes averaged over what they hold.
@Suite struct ScaledPNGTests {
    typealias Layout = ImageEncoder.PNGLayout

    /// 403×302 (not a multiple of the factor): `top` above row 151, `bottom` below, in a layout.
    static func halves(_ layout: Layout, top: [UInt8], bottom: [UInt8]) -> Data? {
        let width = 403, height = 302
        var samples: [UInt8] = []
        samples.reserveCapacity(width * height * top.count)
        for y in 0..<height { for _ in 0..<width { samples += y < 151 ? top : bottom } }
        return ImageEncoder.png(samples, width: width, height: height, layout: layout)
    }

    /// A mix of `a` (one part) and `b` (nine).
    static func tenth(_ a: RGBPixel, _ b: RGBPixel) -> RGBPixel {
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Int(x) + 9 * Int(y)) / 10) }
        return RGBPixel(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b))
    }

    struct Case: Sendable {
        var layout: Layout
        var top: [UInt8]
        var bottom: [UInt8]
        var above: RGBPixel
        var below: RGBPixel
    }

    static let cases: [Case] = [
        Case(layout: .rgb, top: [200, 0, 0], bottom: [0, 0, 200], above: RGBPixel(200, 0, 0), below: RGBPixel(0, 0, 200)),
        Case(layout: .grey, top: [30], bottom: [220], above: RGBPixel(30, 30, 30), below: RGBPixel(220, 220, 220)),
        Case(layout: .palette([RGBPixel(255, 128, 0), RGBPixel(0, 64, 255)]), top: [0], bottom: [1],
             above: RGBPixel(255, 128, 0), below: RGBPixel(0, 64, 255)),
    ]

    @Test(arguments: cases.indices)
    func everyLayoutIsAveragedWhileItsRowsAreRead(index: Int) throws {
        let test = Self.cases[index]
        let data = try #require(Self.halves(test.layout, top: test.top, bottom: test.bottom))
        let image = try ImageDecoder.decode(data, minimumSize: (width: 40, height: 30), background: RGBPixel(10, 20, 30))
        // The largest whole factor covering 40×30 is 10: 41×31, the last column and row partial.
        #expect(image.width == 41 && image.height == 31, "\(image.width)×\(image.height)")
        #expect(close(image[20, 2], test.above, within: 1), "\(image[20, 2])")
        #expect(close(image[40, 30], test.below, within: 1), "\(image[40, 30])")
        // The row of boxes across the middle (rows 150–159) holds one row of the top.
        #expect(close(image[20, 15], Self.tenth(test.above, test.below), within: 2), "\(image[20, 15])")
    }

    /// 16 bits a channel and alpha are what libpng's simplified reader converts (gamma,
    /// compositing in linear light): such a picture is decoded whole at every size, so its
    /// colours never depend on the size asked for.
    @Test func sixteenBitsAndAlphaHaveTheSameColoursAtEverySize() throws {
        var sixteen: [UInt16] = []
        for _ in 0..<(64 * 48) { sixteen += [65535, 0, 32768] }
        let deep = try #require(ImageEncoder.png(sixteen.withUnsafeBytes { Array($0) }, width: 64, height: 48, layout: .rgb16))
        let alpha = try #require(Self.halves(.rgba, top: [255, 255, 0, 255], bottom: [0, 255, 0, 128]))
        let greyAlpha = try #require(Self.halves(.greyAlpha, top: [100, 255], bottom: [200, 128]))
        for data in [deep, alpha, greyAlpha] {
            let background = RGBPixel(10, 20, 30)
            let whole = try ImageDecoder.decode(data, background: background)
            let asked = try ImageDecoder.decode(data, minimumSize: (width: 16, height: 12), background: background)
            for (x, y) in [(5, 5), (whole.width - 1, whole.height - 1)] {
                let (ax, ay) = (x * asked.width / whole.width, y * asked.height / whole.height)
                #expect(close(asked[ax, ay], whole[x, y], within: 1), "\(asked[ax, ay]) scaled, \(whole[x, y]) whole")
            }
        }
        // What the simplified reader makes of the 16-bit file (its gAMA of 1.0 to sRGB).
        let whole = try ImageDecoder.decode(deep)
        #expect(whole[5, 5].r == 255 && whole[5, 5].g == 0 && whole[5, 5].b > 128, "\(whole[5, 5])")
    }

    /// A header of 125 million by 2 (within the area allowed) is refused before anything is
    /// allocated: its rows alone would be gigabytes.
    @Test func aStripTooWideIsRefusedFromItsHeader() throws {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in typed {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            crc = ~crc
            return be(UInt32(body.count)) + typed + be(crc)
        }
        for (width, height) in [(125_000_000, 2), (1_000_001, 200)] as [(UInt32, UInt32)] {
            let header = be(width) + be(height) + [8, 2, 0, 0, 0] // 8-bit RGB, not interlaced
            let file = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", [0x78, 0x9C]) + chunk("IEND", [])
            do {
                _ = try ImageDecoder.decode(Data(file), minimumSize: (width: 40, height: 30))
                Issue.record("\(width)×\(height) decoded")
            } catch {
                guard case .tooManyPixels(let w, let h, _) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(w == Int(width) && h == Int(height))
            }
        }
    }

    @Test func theWholePictureWhenNoSizeIsAskedAndACutFileIsCorrupt() throws {
        let data = try #require(Self.halves(.rgb, top: [1, 2, 3], bottom: [4, 5, 6]))
        let whole = try ImageDecoder.decode(data)
        #expect(whole.width == 403 && whole.height == 302 && whole[0, 0] == RGBPixel(1, 2, 3) && whole[402, 301] == RGBPixel(4, 5, 6))
        // Cut in the middle of its pixel data: said, not a crash, not half a picture.
        do {
            _ = try ImageDecoder.decode(data.prefix(data.count / 2), minimumSize: (width: 40, height: 30))
            Issue.record("a cut PNG decoded")
        } catch {
            guard case .corrupt(.png, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(!reason.isEmpty)
        }
        // Within the pixels allowed: the factor grows until the result fits.
        let capped = try ImageDecoder.decode(data, limits: MediaLimits(maxPixels: 2_000))
        #expect(capped.width * capped.height <= 2_000 && capped.width >= 30, "\(capped.width)×\(capped.height)")
    }
}
