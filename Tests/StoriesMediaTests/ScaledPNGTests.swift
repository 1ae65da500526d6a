import StoriesCells
import Foundation
import StoriesAssets
import Testing
@testable import StoriesMedia

/// A PNG larger than the screen needs is box-averaged as its rows are read (issue 48, point
/// 5): every layout, alpha over the background, a whole factor that still covers the size
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
        // See-through below: the background.
        Case(layout: .rgba, top: [255, 255, 0, 255], bottom: [0, 255, 0, 0], above: RGBPixel(255, 255, 0), below: RGBPixel(10, 20, 30)),
        Case(layout: .greyAlpha, top: [100, 255], bottom: [200, 128], above: RGBPixel(100, 100, 100), below: RGBPixel(105, 110, 115)),
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

    @Test func sixteenBitsAChannelAreScaledDown() throws {
        var sixteen: [UInt16] = []
        for _ in 0..<(64 * 48) { sixteen += [65535, 0, 32768] }
        let bytes = sixteen.withUnsafeBytes { Array($0) }
        let deep = try #require(ImageEncoder.png(bytes, width: 64, height: 48, layout: .rgb16))
        let d = try ImageDecoder.decode(deep, minimumSize: (width: 16, height: 12))
        #expect(d.width == 16 && d.height == 12 && close(d[5, 5], RGBPixel(255, 0, 128), within: 1), "\(d[5, 5])")
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
