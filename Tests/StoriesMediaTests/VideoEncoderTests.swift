import Foundation
import StoriesCells
import Testing
@testable import StoriesMedia

/// The encoder `stories render` writes with, and frames read back through the decoder the
/// viewer plays with: what goes in comes out, at any width.
@Suite struct VideoEncoderTests {
    func frame(_ index: Int, width: Int, height: Int) -> RGBImage {
        var image = RGBImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                image.pixels[i] = UInt8((x * 255) / max(1, width - 1))
                image.pixels[i + 1] = UInt8((y * 255) / max(1, height - 1))
                image.pixels[i + 2] = UInt8((index * 20) % 256)
            }
        }
        return image
    }

    func encode(_ kind: VideoEncoder.Kind, width: Int, height: Int, frames: Int) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("encoder-\(UUID().uuidString)")
        let fd = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(url.path) }
        let encoder = try VideoEncoder(fd: fd, kind: kind, width: width, height: height, fps: 10)
        for index in 0..<frames { try encoder.write(frame(index, width: width, height: height), frame: Int64(index)) }
        try encoder.finish()
        return try Data(contentsOf: url)
    }

    @Test(arguments: [VideoEncoder.Kind.mp4, .webm])
    func framesComeBackAsTheyWent(_ kind: VideoEncoder.Kind) throws {
        let (width, height) = (602, 390)
        let data = try encode(kind, width: width, height: height, frames: 12)
        let decoder = try VideoDecoder(data: data)
        #expect(decoder.info.width == width && decoder.info.height == height)
        var decoded = 0
        var times: [Double] = []
        while let time = try decoder.decodeNext() {
            times.append(time)
            let index = Int((time * 10).rounded())
            // Native size and sizes that are no multiple of swscale's blocks: its converters
            // write whole blocks, and must not write past the picture (they once did).
            let picture = try #require(decoder.picture(width: width, height: height, fit: .fit, pixelAspect: 1))
            #expect(PictureMetrics.psnr(picture, frame(index, width: width, height: height)) > 32, "frame \(index)")
            for (w, h) in [(601, 389), (37, 11), (1, 1), (333, 217)] {
                let small = decoder.picture(width: w, height: h, fit: .fill, pixelAspect: 1)
                #expect(small?.width == w && small?.height == h)
            }
            decoded += 1
        }
        #expect(decoded == 12, "\(times)")
    }

    @Test func aGIFFrameHasItsPaletteAndItsDelay() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("encoder-\(UUID().uuidString).gif")
        let fd = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(url.path) }
        let encoder = try VideoEncoder(fd: fd, kind: .gif, width: 16, height: 8, fps: 100)
        let palette: [UInt32] = (0..<256).map { 0xFF00_0000 | UInt32($0) << 16 | UInt32(255 - $0) }
        try encoder.write(indices: [UInt8](repeating: 3, count: 128), palette: palette, start: 0, duration: 50)
        try encoder.write(indices: [UInt8](repeating: 200, count: 128), palette: palette, start: 50, duration: 125)
        try encoder.finish()
        let bytes = [UInt8](try Data(contentsOf: url))
        var delays: [Int] = []
        for i in 0..<(bytes.count - 5) where bytes[i] == 0x21 && bytes[i + 1] == 0xF9 && bytes[i + 2] == 4 {
            delays.append(Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8)
        }
        #expect(delays == [50, 125], "each frame until the next; the last its own")
        let decoder = try VideoDecoder(data: Data(bytes))
        _ = try decoder.decodeNext()
        let first = try #require(decoder.picture(width: 16, height: 8, fit: .fit, pixelAspect: 1))
        #expect(Array(first.pixels.prefix(3)) == [3, 0, 252], "palette entry 3: 0xFF0300FC")
    }

    @Test func aSizeOrRateOutOfBoundsIsRefused() {
        #expect(throws: VideoEncoder.Failure.self) { try VideoEncoder(fd: -1, kind: .mp4, width: 1, height: 8, fps: 10) }
        #expect(throws: VideoEncoder.Failure.self) { try VideoEncoder(fd: -1, kind: .mp4, width: 8, height: 8, fps: 0) }
        #expect(throws: VideoEncoder.Failure.self) { try VideoEncoder(fd: -1, kind: .mp4, width: 10_000, height: 8, fps: 10) }
    }
}
