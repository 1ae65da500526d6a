import StoriesCells
import Foundation
import StoriesAssets
import StoriesCore
import Testing
@testable import StoriesMedia

/// Small clips made with FFmpeg whose frames carry known colours (Fixtures/README.md says how).
enum VideoFixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil), "no fixture \(name)")
        return try Data(contentsOf: url)
    }

    static func demo(_ name: String) throws -> Data {
        try Data(contentsOf: try #require(DemoFeed.directory).appendingPathComponent("media/\(name)"))
    }
}

@Suite struct VideoDecoderTests {
    static func close(_ p: RGBPixel, _ r: Int, _ g: Int, _ b: Int, within: Int = 24) -> Bool {
        abs(Int(p.r) - r) <= within && abs(Int(p.g) - g) <= within && abs(Int(p.b) - b) <= within
    }

    /// Four frames, red, green, blue and white, a quarter second each: H.264 in MP4 and VP9 in WebM.
    @Test(arguments: ["colors.mp4", "colors.webm"])
    func knownFramesDecodeToTheirColoursAtTheirTimes(file: String) throws {
        let decoder = try VideoDecoder(data: VideoFixture.data(file))
        #expect(decoder.info.width == 64 && decoder.info.height == 32)
        #expect(decoder.info.fps == 4)
        #expect(abs((decoder.info.duration ?? 0) - 1) < 0.01)
        #expect(!decoder.info.hasAudio)
        let expected = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
        var seen: [(Double, RGBPixel)] = []
        while let time = try decoder.decodeNext() {
            let picture = try #require(decoder.picture(width: 16, height: 8, fit: .fill, pixelAspect: 1))
            #expect(picture.width == 16 && picture.height == 8)
            seen.append((time, picture[8, 4]))
        }
        #expect(seen.count == 4)
        for (index, (time, pixel)) in seen.enumerated() {
            #expect(abs(time - Double(index) * 0.25) < 0.01, "frame \(index) at \(time)")
            let (r, g, b) = expected[index]
            #expect(Self.close(pixel, r, g, b), "frame \(index): \(pixel)")
        }
        #expect(try decoder.decodeNext() == nil, "the end stays the end")
    }

    /// Issue 30, point 5: a GIF plays by its own frame delays, and a one-frame GIF is a
    /// still picture (`stories print` and a photo item draw its frame).
    @Test func aGIFPlaysByItsFrameDelaysAndAStillGIFIsAPicture() throws {
        let data = try VideoFixture.data("colors.gif")
        #expect(VideoContainer.sniff(data) == .gif)
        let decoder = try VideoDecoder(data: data)
        #expect(decoder.info.width == 32 && decoder.info.height == 16)
        var frames: [(Double, RGBPixel)] = []
        while let time = try decoder.decodeNext() {
            let picture = try #require(decoder.picture(width: 8, height: 4, fit: .fill, pixelAspect: 1))
            frames.append((time, picture[4, 2]))
        }
        #expect(frames.count >= 3, "\(frames.map(\.0))")
        #expect(Self.close(frames[0].1, 255, 0, 0), "the first frame red: \(frames[0].1)")
        let blue = try #require(frames.first { Self.close($0.1, 0, 0, 255) }, "a blue frame: \(frames.map(\.1))")
        #expect(abs(blue.0 - 0.5) < 0.02, "the blue frame at its delay's time, 0.5 s: \(blue.0)")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.0 < $1.0 }, "in time order")
        let still = try StillDecoder.decode(try VideoFixture.data("still.gif"))
        #expect(still.width == 32 && still.height == 16)
        #expect(Self.close(still[16, 8], 0, 255, 0), "\(still[16, 8])")
    }

    /// Stored 64×32, red left, blue right, with a display matrix: shown 32×64, blue on top
    /// (as FFmpeg's own autorotate shows it).
    @Test func rotationMetadataTurnsThePicture() throws {
        let decoder = try VideoDecoder(data: VideoFixture.data("rotated.mp4"))
        #expect(decoder.info.rotation == 270)
        #expect(decoder.info.width == 32 && decoder.info.height == 64)
        _ = try decoder.decodeNext()
        let picture = try #require(decoder.picture(width: 8, height: 16, fit: .fill, pixelAspect: 1))
        #expect(Self.close(picture[4, 2], 0, 0, 255), "top: \(picture[4, 2])")
        #expect(Self.close(picture[4, 13], 255, 0, 0), "bottom: \(picture[4, 13])")
        // Fill into a square crops the middle of the upright picture (mapped back through the
        // rotation to the stored one): its top half blue, its bottom half red.
        let square = try #require(decoder.picture(width: 8, height: 8, fit: .fill, pixelAspect: 1))
        #expect(Self.close(square[4, 1], 0, 0, 255), "crop top: \(square[4, 1])")
        #expect(Self.close(square[4, 6], 255, 0, 0), "crop bottom: \(square[4, 6])")
        #expect(Self.close(square[0, 0], 0, 0, 255) && Self.close(square[7, 7], 255, 0, 0), "no letterbox: corners filled")
    }

    /// Grey 0x40 stored full-range (yuvj): 64 stays 64; read as limited range it would be 56.
    @Test func fullRangeStaysFullRange() throws {
        let decoder = try VideoDecoder(data: VideoFixture.data("fullrange.mp4"))
        _ = try decoder.decodeNext()
        let picture = try #require(decoder.picture(width: 4, height: 4, fit: .fill, pixelAspect: 1))
        #expect(Self.close(picture[2, 2], 64, 64, 64, within: 3), "\(picture[2, 2])")
    }

    @Test func aFileWithSoundSaysSo() throws {
        let decoder = try VideoDecoder(data: VideoFixture.data("sound.mp4"))
        #expect(decoder.info.hasAudio)
        #expect(try decoder.decodeNext() != nil)
    }

    @Test func fitLetterboxesOnBlackAndKeepsTheShape() throws {
        let decoder = try VideoDecoder(data: VideoFixture.data("colors.mp4"))
        _ = try decoder.decodeNext()
        // 64×32 into 20×20: 20×10 in the middle, black above and below.
        let picture = try #require(decoder.picture(width: 20, height: 20, fit: .fit, pixelAspect: 1))
        #expect(Self.close(picture[10, 1], 0, 0, 0, within: 2))
        #expect(Self.close(picture[10, 10], 255, 0, 0))
        #expect(Self.close(picture[10, 18], 0, 0, 0, within: 2))
    }

    @Test func theDemoVideosArePortraitAndPlayToTheEnd() throws {
        for (name, codec, fps) in [("deep-field.mp4", "h264", 30.0), ("liftoff.mp4", "h264", 24), ("life.webm", "vp9", 15)] {
            let decoder = try VideoDecoder(data: VideoFixture.demo(name))
            #expect(decoder.info.codec.hasPrefix(codec), "\(name): \(decoder.info.codec)")
            #expect(decoder.info.fps == fps, "\(name)")
            #expect(decoder.info.height > decoder.info.width, "\(name)")
            var frames = 0
            while try decoder.decodeNext() != nil { frames += 1 }
            #expect(Double(frames) >= fps * (decoder.info.duration ?? 0) - 1, "\(name): \(frames) frames")
            #expect(decoder.corruptFrames == 0)
        }
        #expect(try VideoDecoder(data: VideoFixture.demo("life.webm")).info.hasAudio)
    }

    // MARK: - Bad input

    @Test func badFilesSayWhatIsWrong() throws {
        let colors = try VideoFixture.data("colors.mp4")
        func reason(_ data: Data, limits: VideoLimits = .standard) -> String {
            do {
                let decoder = try VideoDecoder(data: data, limits: limits)
                while try decoder.decodeNext() != nil {}
                return "played"
            } catch {
                return error.description
            }
        }
        #expect(reason(Data()) == "the file is empty")
        #expect(reason(Data("just some text, named like a video\n".utf8)) == "neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read")
        #expect(reason(Data(repeating: 0x47, count: 1000)).isEmpty == false)
        #expect(reason(colors, limits: VideoLimits(maxPixels: 1000)) == "the video is 64×32, more than the 0 megapixels a video may be")
        // A frame rate or length beyond belief is a header that lies: unknown, and it plays.
        let lying = try VideoDecoder(data: colors, limits: VideoLimits(maxFPS: 2, maxDuration: 0.5))
        #expect(lying.info.fps == nil && lying.info.duration == nil)
        #expect(lying.info.frameInterval == 1.0 / 30)
        #expect(reason(colors, limits: VideoLimits(maxFPS: 2, maxDuration: 0.5)) == "played")
        #expect(reason(colors, limits: VideoLimits(maxBytes: 100)) .hasPrefix("the file is"))
        #expect(reason(try VideoFixture.data("audio.m4a")) == "the file has sound but no picture")
        // Issue 27, point 7: too many streams are named by the app's own limit, whether
        // FFmpeg opened the file (17 streams, counted) or refused it past its own bound (40):
        // before, both were "neither a photo nor a video FFmpeg can read".
        #expect(reason(try VideoFixture.data("streams17.mkv")) == "the file has 17 streams; at most 16 are allowed")
        #expect(reason(try VideoFixture.data("streams40.mov")) == "the file has more than 17 streams; at most 16 are allowed")
        #expect(reason(try VideoFixture.data("streams17.mkv"), limits: VideoLimits(maxStreams: 20)) == "played", "within the limit it plays")
        // Cut inside the header: refused with a reason. Cut inside the frames: what is
        // there plays (the index says more frames than the bytes hold).
        for cut in [8, 40, 200] {
            let text = reason(colors.prefix(cut))
            #expect(text != "played" && !text.isEmpty, "cut at \(cut): \(text)")
        }
        for cut in [colors.count - 10] {
            let decoder = try VideoDecoder(data: colors.prefix(cut))
            var frames = 0
            while (try? decoder.decodeNext()) ?? nil != nil { frames += 1 }
            #expect((1...4).contains(frames), "cut at \(cut): \(frames) frames")
        }
    }

    /// Bytes flipped all through the frames: what can be decoded plays, the rest is skipped.
    @Test func corruptPacketsMidStreamPlayWhatTheyCan() throws {
        var data = try VideoFixture.data("colors.mp4")
        // Damage only the frames (the `mdat` box, past its first third), never the index.
        var offset = 0
        var frames: Range<Int>?
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= data.count else { break }
            if type == "mdat" { frames = (offset + 8)..<(offset + size) }
            offset += size
        }
        let mdat = try #require(frames, "the fixture has its frames in one mdat box")
        var rng = SplitMix(seed: 7)
        let start = mdat.lowerBound + mdat.count / 3
        for _ in 0..<40 {
            let index = start + Int(rng.next() % UInt64(mdat.upperBound - start))
            data[index] ^= 0xFF
        }
        // The container's index is untouched: it opens, and frames still come.
        let decoder = try VideoDecoder(data: data)
        var decoded = 0
        while let _ = try? decoder.decodeNext() { decoded += 1; if decoded > 100 { break } }
        #expect(decoded >= 1 && decoded <= 100, "\(decoded) frames")
    }

    @Test func thePosterIsTheFirstFrameAtACoveringSize() throws {
        let (image, info) = try VideoDecoder.poster(VideoFixture.demo("deep-field.mp4"), minimumSize: (72, 64))
        #expect(info.width == 288 && info.height == 512)
        #expect(image.width >= 72 && image.height >= 64 && image.width <= 288)
        #expect(abs(Double(image.width) / Double(image.height) - 288.0 / 512) < 0.02)
    }

    /// libav's warnings about a damaged stream are kept, printable, for the app's log.
    @Test func libavWarningsAreKeptPrintable() throws {
        var data = try VideoFixture.data("colors.mp4")
        for index in stride(from: data.count / 2, to: data.count - 4, by: 3) { data[index] ^= 0x5A }
        VideoLog.reset()
        if let decoder = try? VideoDecoder(data: data) { while (try? decoder.decodeNext()) ?? nil != nil {} }
        let lines = VideoLog.recent
        #expect(!lines.isEmpty, "a damaged H.264 stream makes libav warn")
        for line in lines { #expect(SafeText.line(line) == line, "kept as the app shows any text: \(line)") }
    }
}
