import Foundation
import StoriesAssets
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesRender
import StoriesUI
import Testing
@testable import StoriesApp

/// `stories render` checked as a person would look at its output: frames decoded back with
/// FFmpeg are the headless screen at that moment, drawn the same way; the photo in them is
/// the picture layer's pixels; the GIF's delays and the asciicast's times add up to the flow.
@MainActor
@Suite struct RenderTests {
    static let tour = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/flows/tour.jsonl")
    static let fontSize = 10

    func flow() throws -> Flow {
        try Flow.parse(String(contentsOf: Self.tour, encoding: .utf8), file: "tour.jsonl")
    }

    func client(_ flow: Flow) throws -> FeedClient {
        let directory = try #require(DemoFeed.directory)
        return FeedClient(source: try FeedFolder(directory: directory), profile: flow.setup.network, seed: flow.setup.seed)
    }

    func render(_ format: RenderRun.Format, fps: Int = 30) throws -> (URL, RenderRun.Outcome) {
        try render(try flow(), format, fps: fps)
    }

    /// `flow` rendered to a new file in the temporary folder (the caller removes it).
    func render(_ flow: Flow, _ format: RenderRun.Format, fps: Int = 30) throws -> (URL, RenderRun.Outcome) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString).\(format.rawValue)")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        var options = RenderRun.Options(format: format)
        options.fps = fps
        options.fontSize = Self.fontSize
        do {
            let outcome = try RenderRun.render(flow, client: { try client(flow) },
                                               headless: HeadlessRun.Options(width: flow.width, height: flow.height), to: fd, options: options)
            return (url, outcome)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    /// What the screen showed at each of `times`, drawn as the render draws it: the last
    /// frame the engine drew at or before the grid moment the time falls in.
    func screens(at times: [Double], fps: Int = 30) throws -> [RGBImage] {
        let flow = try flow()
        let rasterizer = try FrameRasterizer(fontSize: Self.fontSize, light: false)
        var options = HeadlessRun.Options(width: flow.width, height: flow.height)
        options.graphics = .kitty
        options.cellPixels = CellPixels(width: rasterizer.cellWidth, height: rasterizer.cellHeight)
        var shown = [Canvas?](repeating: nil, count: times.count)
        _ = FlowRun.run(flow, client: try client(flow), options: options) { canvas, time, _ in
            for (index, moment) in times.enumerated() where time <= (moment * Double(fps)).rounded(.down) / Double(fps) + 1e-9 {
                shown[index] = canvas
            }
        }
        return try shown.map { canvas in
            let fresh = try FrameRasterizer(fontSize: Self.fontSize, light: false)
            fresh.draw(try #require(canvas))
            return fresh.image
        }
    }

    /// The decoded frame on screen at `time`: the last that starts at or before it (a frame
    /// is written when the screen changes, and holds until the next).
    func decoded(_ url: URL, at time: Double) throws -> RGBImage {
        let decoder = try VideoDecoder(data: Data(contentsOf: url))
        var shown: RGBImage?
        while let start = try decoder.decodeNext(), start <= time + 1e-6 {
            shown = decoder.picture(width: decoder.info.width, height: decoder.info.height, fit: .fit, pixelAspect: 1)
        }
        return try #require(shown)
    }

    /// `image` cut (or padded with black) to `width × height`, as the encoder's even size.
    func sized(_ image: RGBImage, _ width: Int, _ height: Int) -> RGBImage {
        var out = RGBImage(width: width, height: height)
        for y in 0..<min(height, image.height) {
            for x in 0..<min(width, image.width) {
                for c in 0..<3 { out.pixels[(y * width + x) * 3 + c] = image.pixels[(y * image.width + x) * 3 + c] }
            }
        }
        return out
    }

    @Test(arguments: [RenderRun.Format.mp4, .gif])
    func aFrameIsTheHeadlessScreenAtThatMoment(_ format: RenderRun.Format) throws {
        let (url, outcome) = try render(format)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(abs(outcome.duration - 15.77) < 0.05)
        // The home before and after the selection moved (→ at 1.2 s), and Ayla's photo.
        let times = [1.15, 1.30, 5.05]
        let expected = try screens(at: times).map { sized($0, outcome.width, outcome.height) }
        let frames = try times.map { try decoded(url, at: $0) }
        let floor = format == .mp4 ? 30.0 : 28.0
        for (index, time) in times.enumerated() {
            let psnr = PictureMetrics.psnr(frames[index], expected[index])
            #expect(psnr >= floor, "the \(format) frame at \(time) s is the screen then: \(psnr) dB")
        }
        // A moment earlier is a different screen: the comparison tells them apart.
        let right = PictureMetrics.psnr(frames[1], expected[1]), early = PictureMetrics.psnr(frames[1], expected[0])
        #expect(right > early + 3, "at 1.30 s the selection has moved: \(right) dB against \(early) dB for the screen at 1.15 s")
        #expect(PictureMetrics.psnr(frames[2], expected[0]) < 20, "the viewer is not the home")
    }

    @Test func thePhotoIsThePictureLayersPixels() throws {
        let (url, outcome) = try render(.mp4)
        defer { try? FileManager.default.removeItem(at: url) }
        let flow = try flow()
        let rasterizer = try FrameRasterizer(fontSize: Self.fontSize, light: false)
        var options = HeadlessRun.Options(width: flow.width, height: flow.height)
        options.graphics = .kitty
        options.cellPixels = CellPixels(width: rasterizer.cellWidth, height: rasterizer.cellHeight)
        var region: Canvas.PictureRegion?
        _ = FlowRun.run(flow, client: try client(flow), options: options) { canvas, time, _ in
            if time <= 5.0 { region = canvas.pictures.first }
        }
        let photo = try #require(region, "Ayla's photo is in real pixels at 5 s")
        let frame = try decoded(url, at: 5.05)
        let (cw, ch) = (rasterizer.cellWidth, rasterizer.cellHeight)
        let width = photo.rect.width * cw, height = photo.rect.height * ch
        var cut = RGBImage(width: width, height: height), source = RGBImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    cut.pixels[(y * width + x) * 3 + c] = frame.pixels[((photo.rect.y * ch + y) * outcome.width + photo.rect.x * cw + x) * 3 + c]
                    source.pixels[(y * width + x) * 3 + c] = photo.picture.image.pixels[((photo.sourceRow * ch + y) * photo.picture.image.width + x) * 3 + c]
                }
            }
        }
        #expect(PictureMetrics.psnr(cut, source) >= 32, "the photo's pixels, through H.264")
        #expect(photo.picture.image.width == width, "made at the font's cell size, shown pixel for pixel")
    }

    @Test func theGIFsDelaysAddUpToTheFlowWithOnePalette() throws {
        let (url, outcome) = try render(.gif, fps: 10)
        defer { try? FileManager.default.removeItem(at: url) }
        let bytes = [UInt8](try Data(contentsOf: url))
        var delays: [Int] = [], localTables = 0
        var i = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        // Walk the blocks: extensions (graphic control: the delay), images (a local table?).
        while i < bytes.count, bytes[i] != 0x3B {
            if bytes[i] == 0x21 {
                if bytes[i + 1] == 0xF9 { delays.append(Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8) }
                i += 2
                while i < bytes.count, bytes[i] != 0 { i += Int(bytes[i]) + 1 }
                i += 1
            } else if bytes[i] == 0x2C {
                let flags = bytes[i + 9]
                if flags & 0x80 != 0 { localTables += 1 }
                i += 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
                while i < bytes.count, bytes[i] != 0 { i += Int(bytes[i]) + 1 }
                i += 1
            } else {
                Issue.record("an unknown block at \(i)")
                break
            }
        }
        #expect(delays.count == outcome.frames)
        #expect(abs(Double(delays.reduce(0, +)) / 100 - outcome.duration) <= 0.1, "\(delays.reduce(0, +)) hundredths for \(outcome.duration) s")
        #expect(localTables <= 1, "one palette, the first frame's (FFmpeg writes it there)")
        #expect(bytes.count < 1_000_000, "a small GIF: \(bytes.count) bytes")
    }

    @Test func theAsciicastsTimesAreTheFlows() throws {
        let (url, outcome) = try render(.cast)
        defer { try? FileManager.default.removeItem(at: url) }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        guard case .object(let header)? = try? JSONValue.parse(Data(lines[0].utf8), file: "cast") else { Issue.record("header"); return }
        #expect(header["version"] == .number(2) && header["width"] == .number(100) && header["height"] == .number(30))
        var previous = -1.0
        for line in lines.dropFirst() {
            guard case .array(let event)? = try? JSONValue.parse(Data(line.utf8), file: "cast"), event.count == 3,
                  case .number(let time) = event[0], event[1] == .string("o"), case .string = event[2] else {
                Issue.record("not an output event: \(line.prefix(80))")
                return
            }
            #expect(time >= previous)
            #expect(abs(time * 30 - (time * 30).rounded()) < 1e-3, "on the 30 fps grid")
            previous = time
        }
        #expect(lines.count - 2 == outcome.frames)
        #expect(abs(previous - outcome.duration) < 1.0 / 30 + 1e-6, "the last event is the end")
    }

    /// A file's sound as the viewer's own decoder gives it (48 kHz stereo), averaged to mono
    /// 8 kHz (six frames a sample).
    func sound(_ data: Data) throws -> [Double] {
        let decoder = try AudioDecoder(data: data, rate: 48_000, channels: 2)
        var frames: [Double] = [], buffer: [Int16] = []
        while let read = try decoder.read(into: &buffer, maxFrames: 4096), read.frames > 0 {
            for i in 0..<read.frames { frames.append((Double(buffer[2 * i]) + Double(buffer[2 * i + 1])) / 2) }
        }
        return stride(from: 0, to: frames.count - 5, by: 6).map { i in frames[i..<(i + 6)].reduce(0, +) / 6 }
    }

    @Test func theVideosSoundIsInWhereItPlayedAndStopsWhenMuted() throws {
        // Open the Launch Club from the featured banner, tap on to its liftoff video, mute at 5.25 s.
        let text = """
            {"stories-flow":1,"width":100,"height":30}
            {"key":"Down"}
            {"key":"Enter"}
            {"wait":0.5}
            {"tap":[85,15]}
            {"wait":0.3}
            {"tap":[85,15]}
            {"wait":0.3}
            {"tap":[85,15]}
            {"expect":"shown","story":"rocket","item":"club-liftoff"}
            {"wait":4}
            {"key":"m"}
            {"wait":1}
            """
        let (url, outcome) = try render(try Flow.parse(text, file: "liftoff.jsonl"), .mp4)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(outcome.sound && outcome.report.results.allSatisfy(\.verdict.passed))
        let shownAt = try #require(outcome.report.results.first?.time)
        let rendered = try sound(Data(contentsOf: url))
        let directory = try #require(DemoFeed.directory)
        let source = try sound(Data(contentsOf: directory.appendingPathComponent("media/liftoff.mp4")))
        func rms(_ samples: ArraySlice<Double>) -> Double { (samples.reduce(0) { $0 + $1 * $1 } / Double(max(1, samples.count))).squareRoot() }
        // Silent before the video showed and after the mute.
        #expect(rms(rendered[0..<Int(shownAt * 8000) - 400]) < 30)
        #expect(rms(rendered[Int(5.4 * 8000)..<min(rendered.count, Int(6.2 * 8000))]) < 30)
        // What played is the video's own sound, from its start at the moment it showed.
        // Compared where the clip is loud (its launch, 0.5 to 1 s; its quiet stretches are noise).
        let length = 4000, own = source[4000..<8000]
        func correlation(at start: Int) -> Double {
            let played = rendered[(start + 4000)..<(start + 4000 + length)]
            let dot = zip(played, own).reduce(0) { $0 + $1.0 * $1.1 }
            return dot / ((played.reduce(0) { $0 + $1 * $1 } * own.reduce(0) { $0 + $1 * $1 }).squareRoot() + 1e-9)
        }
        let expected = Int(shownAt * 8000)
        // (Every sample: the launch's sound changes its shape within one.)
        let best = stride(from: expected - 240, through: expected + 240, by: 1).max { correlation(at: $0) < correlation(at: $1) } ?? expected
        #expect(correlation(at: best) > 0.95, "the liftoff's sound where it played: \(correlation(at: best)) at \(best), expected \(expected)")
        #expect(abs(best - expected) <= 240, "within 30 ms of the moment it showed: \(Double(best - expected) / 8) ms")
        #expect(rms(rendered[(best + 4000)..<(best + 4000 + length)]) > 300, "and loud enough to hear")
    }

    @Test func aResizeIsDrawnIntoTheVideosGridAndAHugeScreenIsRefused() throws {
        // Ayla's photo in real pixels, then the screen grows and shrinks under it.
        let text = """
            {"stories-flow":1,"width":60,"height":20}
            {"key":"Enter"}
            {"wait":0.5}
            {"resize":[200,60]}
            {"wait":0.5}
            {"resize":[30,10]}
            {"wait":0.5}
            """
        let (url, outcome) = try render(try Flow.parse(text, file: "resize.jsonl"), .mp4)
        defer { try? FileManager.default.removeItem(at: url) }
        let rasterizer = try FrameRasterizer(fontSize: Self.fontSize, light: false)
        #expect(outcome.width == (60 * rasterizer.cellWidth + 1) & ~1 && outcome.height == (20 * rasterizer.cellHeight + 1) & ~1)
        #expect(try VideoDecoder(data: Data(contentsOf: url)).info.width == outcome.width)

        let huge = try Flow.parse(#"{"stories-flow":1,"width":1000,"height":1000}"#, file: "huge.jsonl")
        do {
            let (nothing, _) = try render(huge, .mp4)
            try? FileManager.default.removeItem(at: nothing)
            Issue.record("a 1000×1000-cell video was attempted")
        } catch {
            #expect("\(error)".hasPrefix("1000×1000 cells at 10 px type are"), "\(error)")
        }
    }
}
