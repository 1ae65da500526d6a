import StoriesCells
import Foundation
import StoriesAssets
import Testing
@testable import StoriesMedia

/// A 4×2 picture with distinct corners, to check pixels and orientation.
let corners: RGBImage = {
    var image = RGBImage(width: 4, height: 2, fill: RGBPixel(128, 128, 128))
    image[0, 0] = RGBPixel(255, 0, 0)     // top left red
    image[3, 0] = RGBPixel(0, 255, 0)     // top right green
    image[0, 1] = RGBPixel(0, 0, 255)     // bottom left blue
    image[3, 1] = RGBPixel(255, 255, 255) // bottom right white
    return image
}()

func close(_ a: RGBPixel, _ b: RGBPixel, within tolerance: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
}

@Suite struct PNGDecodingTests {
    @Test func rgbRoundTripsExactly() throws {
        let data = try #require(ImageEncoder.png(corners))
        #expect(try ImageDecoder.decode(data) == corners)
    }

    @Test func greyGreyAlphaPaletteAnd16Bit() throws {
        let grey = try #require(ImageEncoder.png([0, 100, 200, 255], width: 2, height: 2, layout: .grey))
        let g = try ImageDecoder.decode(grey)
        #expect(g[1, 0] == RGBPixel(100, 100, 100) && g[0, 1] == RGBPixel(200, 200, 200))

        // Alpha is composited over the background: fully transparent shows the background.
        let ga = try #require(ImageEncoder.png([200, 255, 200, 0], width: 2, height: 1, layout: .greyAlpha))
        let composited = try ImageDecoder.decode(ga, background: RGBPixel(10, 20, 30))
        #expect(composited[0, 0] == RGBPixel(200, 200, 200))
        #expect(composited[1, 0] == RGBPixel(10, 20, 30))

        let rgba = try #require(ImageEncoder.png([255, 0, 0, 255, 0, 0, 255, 0], width: 2, height: 1, layout: .rgba))
        let c = try ImageDecoder.decode(rgba)
        #expect(c[0, 0] == RGBPixel(255, 0, 0) && c[1, 0] == RGBPixel(0, 0, 0))

        let palette = [RGBPixel(255, 128, 0), RGBPixel(0, 64, 255)]
        let indexed = try #require(ImageEncoder.png([0, 1, 1, 0], width: 2, height: 2, layout: .palette(palette)))
        let p = try ImageDecoder.decode(indexed)
        #expect(p[0, 0] == palette[0] && p[1, 0] == palette[1] && p[0, 1] == palette[1])

        let sixteen: [UInt16] = [0, 65535, 65535, 0, 0, 65535]
        let bytes = sixteen.withUnsafeBytes { Array($0) }
        let deep = try #require(ImageEncoder.png(bytes, width: 2, height: 1, layout: .rgb16))
        let d = try ImageDecoder.decode(deep)
        #expect(d[0, 0] == RGBPixel(0, 255, 255) && d[1, 0] == RGBPixel(0, 0, 255))
    }
}

/// WebP in the JPEG decoder's design: recognised by content, exact when lossless, alpha over
/// the background, decoded straight at the size asked for, bombs refused from the header.
@Suite struct WebPDecodingTests {
    @Test func losslessRoundTripsExactlyAndIsRecognisedByContent() throws {
        let data = try #require(ImageEncoder.webp(corners))
        #expect(ImageFormat.sniff(data) == .webp)
        #expect(try ImageDecoder.decode(data) == corners)
        #expect(ImageFormat.sniff(Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil, "a RIFF that is not WebP")
    }

    @Test func alphaIsCompositedOverTheBackground() throws {
        let data = try #require(ImageEncoder.webp([255, 0, 0, 255, 0, 255, 0, 0], width: 2, height: 1, alpha: true))
        let image = try ImageDecoder.decode(data, background: RGBPixel(10, 20, 30))
        #expect(image[0, 0] == RGBPixel(255, 0, 0))
        #expect(image[1, 0] == RGBPixel(10, 20, 30), "fully transparent shows the background")
    }

    @Test func aLargePictureIsDecodedAtTheSizeAskedForAndABombIsRefused() throws {
        var big = RGBImage(width: 1600, height: 1200, fill: RGBPixel(0, 0, 200))
        for y in 0..<600 { for x in 0..<1600 { big[x, y] = RGBPixel(200, 0, 0) } } // red above, blue below
        let data = try #require(ImageEncoder.webp(big))
        let small = try ImageDecoder.decode(data, minimumSize: (width: 160, height: 90))
        #expect(small.width == 160 && small.height == 120, "the aspect kept, covering 160×90: \(small.width)×\(small.height)")
        #expect(close(small[80, 10], RGBPixel(200, 0, 0), within: 8) && close(small[80, 110], RGBPixel(0, 0, 200), within: 8))
        #expect(throws: MediaError.tooManyPixels(width: 1600, height: 1200, limit: 1_000_000)) {
            try ImageDecoder.decode(data, limits: MediaLimits(maxPixels: 1_000, maxSourcePixels: 1_000_000))
        }
        let capped = try ImageDecoder.decode(data, limits: MediaLimits(maxPixels: 500_000))
        #expect(capped.width * capped.height <= 500_000 && capped.width == 800, "halved to fit: \(capped.width)×\(capped.height)")
    }

    @Test func aDamagedOrCutShortFileSaysSo() throws {
        let data = try #require(ImageEncoder.webp(corners))
        #expect(throws: MediaError.self) { try ImageDecoder.decode(data.prefix(data.count / 2)) }
        var header = data
        header[header.startIndex + 12] = 0x58 // "VP8L" → "XP8L": no known chunk
        do {
            _ = try ImageDecoder.decode(header)
            Issue.record("a damaged chunk decoded")
        } catch {
            guard case .corrupt(.webp, _) = error else { Issue.record("\(error)"); return }
        }
    }
}

@Suite struct JPEGDecodingTests {
    /// A smooth 64×32 gradient: JPEG keeps it within a few levels.
    static let gradient: RGBImage = {
        var image = RGBImage(width: 64, height: 32)
        for y in 0..<32 { for x in 0..<64 { image[x, y] = RGBPixel(UInt8(x * 4), UInt8(y * 8), 128) } }
        return image
    }()

    @Test func decodesCloseToTheSource() throws {
        let data = try #require(ImageEncoder.jpeg(Self.gradient, quality: 95))
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.width == 64 && decoded.height == 32)
        for (x, y) in [(0, 0), (32, 16), (63, 31), (10, 25)] {
            #expect(close(decoded[x, y], Self.gradient[x, y], within: 6), "\(x),\(y): \(decoded[x, y])")
        }
    }

    @Test(arguments: [((0, 0), 64), ((8, 4), 8), ((9, 4), 16), ((16, 8), 16), ((17, 8), 32), ((33, 1), 64)])
    func picksTheSmallestDCTScaleThatCoversTheTarget(minimum: (Int, Int), width: Int) throws {
        let data = try #require(ImageEncoder.jpeg(Self.gradient))
        let decoded = try ImageDecoder.decode(data, minimumSize: (minimum.0, minimum.1))
        #expect(decoded.width == width)
        #expect(decoded.height == width / 2)
    }

    @Test func greyProgressiveAndCMYK() throws {
        let greySamples = (0..<64).map { UInt8($0 * 4) }
        let grey = try ImageDecoder.decode(try #require(ImageEncoder.jpeg(greySamples, width: 8, height: 8, components: 1)))
        #expect(grey[0, 0].r == grey[0, 0].g && close(grey[7, 7], RGBPixel(252, 252, 252), within: 8))

        let progressive = try #require(ImageEncoder.jpeg(Self.gradient, quality: 95, progressive: true))
        #expect(progressive.range(of: Data([0xFF, 0xC2])) != nil, "a progressive (SOF2) frame")
        #expect(close(try ImageDecoder.decode(progressive)[32, 16], Self.gradient[32, 16], within: 6))

        // Its last scan repeated: 150 scans decode (libjpeg only warns); past the limit the
        // file is refused with why, instead of keeping a core busy.
        let bytes = [UInt8](progressive)
        let lastScan = try #require((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = bytes[lastScan..<(bytes.count - 2)] // up to the EOI
        let head = Array(bytes[..<(bytes.count - 2)])
        let many = Data(head + Array([[UInt8]](repeating: Array(scan), count: 150).joined()) + [0xFF, 0xD9])
        #expect(throws: MediaError.self) { try ImageDecoder.decode(many) }
        do { _ = try ImageDecoder.decode(many) } catch {
            #expect("\(error)".contains("more than 100 scans"), "\(error)")
        }
        let few = Data(head + Array([[UInt8]](repeating: Array(scan), count: 20).joined()) + [0xFF, 0xD9])
        #expect((try? ImageDecoder.decode(few)) != nil, "twenty repeats are still a photo")

        // libjpeg marks CMYK files with an Adobe segment, whose convention (Photoshop's) is
        // inverted ink: red, C=0 M=100% Y=100% K=0, is stored as 255, 0, 0, 255.
        let cmyk = [UInt8](repeating: 0, count: 16 * 16 * 4).enumerated().map { i, _ in [255, 0, 0, 255][i % 4] }
        let red = try ImageDecoder.decode(try #require(ImageEncoder.jpeg(cmyk.map { UInt8($0) }, width: 16, height: 16, components: 4)))
        #expect(close(red[8, 8], RGBPixel(255, 0, 0), within: 12), "\(red[8, 8])")
    }

    /// EXIF orientations 1–8 all come out upright, the way a camera meant them.
    @Test(arguments: 1...8)
    func exifOrientationIsHonoured(orientation: Int) throws {
        // Store the picture so that applying `orientation` gives `corners` back.
        let stored = Self.inverse(of: orientation, applyTo: Self.bigCorners)
        let data = try #require(ImageEncoder.jpeg(stored, quality: 100, orientation: orientation))
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.width == Self.bigCorners.width && decoded.height == Self.bigCorners.height)
        for (x, y) in [(4, 4), (Self.bigCorners.width - 5, 4), (4, Self.bigCorners.height - 5), (Self.bigCorners.width - 5, Self.bigCorners.height - 5)] {
            #expect(close(decoded[x, y], Self.bigCorners[x, y], within: 24), "orientation \(orientation) at \(x),\(y): \(decoded[x, y])")
        }
    }

    /// `corners` scaled up to 32×16 blocks of 8×8, so JPEG keeps the colours.
    static let bigCorners: RGBImage = {
        var image = RGBImage(width: 32, height: 16)
        for y in 0..<16 { for x in 0..<32 { image[x, y] = corners[x / 8, y / 8] } }
        return image
    }()

    static func inverse(of orientation: Int, applyTo image: RGBImage) -> RGBImage {
        // The inverse transforms: 2,3,4,5,7 undo themselves; 6 and 8 undo each other.
        let undo = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6][orientation] ?? 1
        return image.oriented(undo)
    }

    /// Photos and videos (their first frames) alike: every one a portrait; the voice note
    /// its waveform, as wide as a screen.
    @Test func theDemoFeedMediaAllDecode() throws {
        let media = try #require(DemoFeed.directory).appendingPathComponent("media")
        for file in try FileManager.default.contentsOfDirectory(atPath: media.path) {
            let still = try StillDecoder.still(ImageDecoder.readFile(at: media.appendingPathComponent(file)))
            #expect(still.soundSeconds == nil ? still.image.height > still.image.width : still.image.width > still.image.height, "\(file)")
        }
    }
}

/// Hostile and broken files: each gives its typed error, never a crash.
@Suite struct HostileFileTests {
    @Test func zeroBytes() {
        #expect(throws: MediaError.empty) { try ImageDecoder.decode(Data()) }
    }

    @Test func aTextFileNamedJPG() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-photo-\(UUID()).jpg")
        try "hello, I am text".write(to: url, atomically: true, encoding: .utf8)
        #expect(throws: MediaError.unknownFormat) { try ImageDecoder.decodeFile(at: url) }
    }

    @Test func aPNGNamedJPGIsDecodedAsPNG() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("really-a-png-\(UUID()).jpg")
        try #require(ImageEncoder.png(corners)).write(to: url)
        #expect(try ImageDecoder.decodeFile(at: url) == corners)
    }

    @Test func aTruncatedJPEG() throws {
        let full = try #require(ImageEncoder.jpeg(JPEGDecodingTests.gradient))
        // A header cut short is an error that says so.
        #expect(throws: MediaError.self) { try ImageDecoder.decode(Data(full.prefix(40))) }
        #expect(try ImageDecoder.decode(full).damage == nil, "a whole file is not damaged")
    }

    /// Issue 29, point 8: a photo cut short is shown as far as it decoded, and says so; one
    /// cut before any of its picture says why instead.
    @Test func aPhotoCutShortShowsWhatDecodedAndSaysSo() throws {
        var image = RGBImage(width: 256, height: 256)
        for y in 0..<256 { for x in 0..<256 { image[x, y] = RGBPixel(UInt8(x), UInt8(255 - y), 200) } }
        let full = try #require(ImageEncoder.jpeg(image, quality: 95))
        let half = try ImageDecoder.decode(Data(full.prefix(full.count / 2)))
        let damage = try #require(half.damage)
        #expect(damage.contains("cut short") && damage.contains("only the first"), "\(damage)")
        let percent = try #require(Int(damage.split(separator: " ").first { $0.hasSuffix("%") }?.dropLast() ?? ""))
        #expect((25...75).contains(percent), "\(damage)")
        // The top decoded: its colours are the photo's, not grey.
        #expect(close(half[10, 10], image[10, 10], within: 12) && close(half[200, 10], image[200, 10], within: 12))
        // A progressive file cut short: coarse where it stops, still shown.
        let progressive = try #require(ImageEncoder.jpeg(image, quality: 95, progressive: true))
        let coarse = try ImageDecoder.decode(Data(progressive.prefix(progressive.count * 6 / 10)))
        #expect(coarse.damage?.contains("cut short") == true)
        // Cut before the first row of the picture: nothing to show, and why.
        let headerEnd = try #require((0..<(full.count - 1)).first { full[$0] == 0xFF && full[$0 + 1] == 0xDA })
        do {
            _ = try ImageDecoder.decode(Data(full.prefix(headerEnd + 1)))
            Issue.record("a file with no picture data decoded")
        } catch {
            #expect("\(error)".contains("cut short") || "\(error)".contains("premature") || "\(error)".contains("corrupt"), "\(error)")
        }
    }

    @Test func aPNGWithABadCRC() throws {
        var data = try #require(ImageEncoder.png(corners))
        // Flip a byte inside the IHDR chunk's data (offset 16: the width), leaving its CRC.
        data[17] ^= 0xFF
        #expect(throws: MediaError.self) { try ImageDecoder.decode(data) }
        do { _ = try ImageDecoder.decode(data) } catch {
            guard case .corrupt(.png, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(!reason.isEmpty)
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .png])
    func aHugeDimensionHeaderFailsBeforeAllocating(format: ImageFormat) throws {
        let data = try #require(format == .jpeg ? Self.hugeJPEGHeader() : Self.hugePNGHeader())
        // This error comes only from the header check, which the C decoders make before
        // jpeg_start_decompress / the pixel buffer's malloc: nothing large was allocated.
        // One ceiling for both: a PNG is scaled as it is read, as a JPEG is.
        #expect(throws: MediaError.tooManyPixels(width: 30000, height: 30000, limit: MediaLimits.standard.maxSourcePixels)) {
            try ImageDecoder.decode(data)
        }
    }

    /// A 48-megapixel phone photo (8000×6000) opens: the limit counts what is decoded after
    /// DCT scaling, so at screen size it is an eighth of the photo, and whole it is a half.
    @Test func aPhonePhotoOf48MegapixelsOpensAtScreenSize() throws {
        let width = 8000, height = 6000
        // Red across, green down: one row made once, then copied with its green set (fast
        // enough in a debug build).
        var template = [UInt8](repeating: 128, count: width * 3)
        for x in 0..<width { template[x * 3] = UInt8(x * 255 / width) }
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        samples.withUnsafeMutableBufferPointer { all in
            template.withUnsafeBufferPointer { row in
                guard let target = all.baseAddress, let source = row.baseAddress else { return }
                for y in 0..<height {
                    let start = y * width * 3
                    target.advanced(by: start).update(from: source, count: row.count)
                    let green = UInt8(y * 255 / height)
                    var x = start + 1
                    while x < start + width * 3 { all[x] = green; x += 3 }
                }
            }
        }
        let data = try #require(ImageEncoder.jpeg(samples, width: width, height: height, quality: 60))
        let screen = try ImageDecoder.decode(data, minimumSize: (width: 200, height: 120))
        #expect(screen.width == 1000 && screen.height == 750, "an eighth: \(screen.width)×\(screen.height)")
        let whole = try ImageDecoder.decode(data)
        #expect(whole.width == 4000 && whole.height == 3000, "the most within 40 MP: a half, \(whole.width)×\(whole.height)")
        // Its colours are the photo's: the gradient's corners.
        #expect(screen[0, 0].r < 16 && screen[999, 749].g > 235)
    }

    /// The header's ceiling sits above phone cameras (a 108 MP header passes it and is
    /// decoded at an eighth; its data here is an 8-pixel picture's, which libjpeg pads) and
    /// below bombs (30000×30000 is refused before allocation, above).
    @Test func aHundredAndEightMegapixelHeaderPassesTheCeiling() throws {
        guard var data = ImageEncoder.jpeg(JPEGDecodingTests.gradient) else { Issue.record("no JPEG"); return }
        let sof = try #require(data.range(of: Data([0xFF, 0xC0])))
        let at = sof.lowerBound + 5 // height 9000 = 0x2328, width 12000 = 0x2EE0
        data[at] = 0x23; data[at + 1] = 0x28; data[at + 2] = 0x2E; data[at + 3] = 0xE0
        let image = try ImageDecoder.decode(data, minimumSize: (width: 200, height: 120))
        #expect(image.width == 1500 && image.height == 1125)
        #expect(image.damage?.contains("cut short") == true, "its data ends long before its rows do")
        #expect(throws: MediaError.tooManyPixels(width: 12000, height: 9000, limit: 100_000_000)) {
            try ImageDecoder.decode(data, limits: MediaLimits(maxSourcePixels: 100_000_000))
        }
    }

    @Test func aFileOverTheByteLimit() throws {
        let data = try #require(ImageEncoder.png(corners))
        #expect(throws: MediaError.fileTooLarge(bytes: data.count, limit: 10)) {
            try ImageDecoder.decode(data, limits: MediaLimits(maxBytes: 10, maxPixels: 100))
        }
        #expect(throws: MediaError.tooManyPixels(width: 4, height: 2, limit: 7)) {
            try ImageDecoder.decode(data, limits: MediaLimits(maxBytes: 1000, maxPixels: 7, maxSourcePixels: 7))
        }
    }

    @Test func aMissingFile() {
        #expect(throws: MediaError.unreadable("no such file")) {
            try ImageDecoder.decodeFile(at: URL(fileURLWithPath: "/nonexistent/photo.jpg"))
        }
    }

    @Test func errorsReadAsSentences() {
        #expect(MediaError.tooManyPixels(width: 30000, height: 30000, limit: 40_000_000).description
                == "the image is 30000×30000, more than the 40 megapixels a photo may be")
        #expect(MediaError.fileTooLarge(bytes: 31 << 20, limit: 20 << 20).description
                == "the file is 31 MB, more than the 20 MB a photo or video may be")
    }

    /// A JPEG whose SOF0 declares 30000×30000: a valid header and no image data.
    static func hugeJPEGHeader() -> Data? {
        guard var data = ImageEncoder.jpeg(JPEGDecodingTests.gradient) else { return nil }
        guard let sof = data.range(of: Data([0xFF, 0xC0])) else { return nil }
        let at = sof.lowerBound + 5 // FF C0, length (2), precision (1), then height, width
        data[at] = 0x75; data[at + 1] = 0x30; data[at + 2] = 0x75; data[at + 3] = 0x30 // 30000 = 0x7530
        return data
    }

    /// A PNG whose IHDR declares 30000×30000, with a correct CRC.
    static func hugePNGHeader() -> Data? {
        guard var data = ImageEncoder.png(corners) else { return nil }
        let size: [UInt8] = [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30]
        data.replaceSubrange(16..<24, with: size)
        let crc = crc32(Array(data[12..<29]))
        data.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        return data
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }
}
