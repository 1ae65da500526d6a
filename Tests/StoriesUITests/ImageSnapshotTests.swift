import StoriesTestSupport
import StoriesCells
import StoriesMedia
import Testing

/// One small picture through the whole cell pipeline, in every colour mode, as the ANSI text
/// `stories print` writes (ESC shown as ␛ so the file reads as text).
@Suite struct ImageSnapshotTests {
    static let picture: RGBImage = {
        var image = RGBImage(width: 16, height: 16)
        for y in 0..<16 {
            for x in 0..<16 { image[x, y] = RGBPixel(UInt8(x * 16), UInt8(y * 16), UInt8(255 - x * 8 - y * 8)) }
        }
        return image
    }()

    @Test(arguments: [(ColorDepth.direct, "truecolor"), (.palette256, "256"), (.sixteen, "16"), (.eight, "8"), (.none, "none")])
    func eachColourMode(depth: ColorDepth, name: String) {
        let half = CellImage(Self.picture, width: 8, height: 4, symbols: .half, depth: depth, fit: .fill, cellAspect: 0.5)
        let quad = CellImage(Self.picture, width: 8, height: 4, symbols: .quad, depth: depth, fit: .fill, cellAspect: 0.5)
        let text = "half\n" + ANSIWriter.text(of: half, depth: depth) + "quad\n" + ANSIWriter.text(of: quad, depth: depth)
        expectSnapshot(text.replacingOccurrences(of: "\u{1B}", with: "␛"), named: "image-\(name)")
    }
}
