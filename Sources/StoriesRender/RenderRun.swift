import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI

/// `stories render`: a recording or a flow replayed on the virtual clock, every frame the
/// app draws taken on a grid of `fps` frames a second and written out — as terminal bytes
/// with their times (asciicast v2), or drawn as a terminal shows them and encoded (MP4,
/// WebM, GIF). Frames stream through: nothing but the frame on screen and the one before it
/// is held, however long the recording.
@MainActor
public enum RenderRun {
    public enum Format: String, Sendable, CaseIterable {
        case mp4, webm, gif, cast

        /// The format a file name asks for (its extension), nil for another.
        public init?(path: String) {
            self.init(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
        }
    }

    public struct Options: Sendable {
        public var format: Format
        public var fps = 30
        public var fontSize = 16
        public var light = false
        /// The sound of what played, in an MP4 or WebM, when the session had sound on.
        public var sound = true
        public init(format: Format) { self.format = format }
    }

    public struct Outcome: Sendable {
        /// Frames written (a still screen is one frame held, not many).
        public var frames: Int
        /// Seconds of the recording rendered.
        public var duration: Double
        /// Whether the video has a sound track.
        public var sound: Bool
        public var width: Int
        public var height: Int
        public var report: FlowRunReport
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The largest side of a rendered video, in pixels (the encoder's bound).
    public static let maxSide = 8192

    /// Renders `flow` to `fd`. `headless` is the run's options (size, colours, keys);
    /// `client` gives a feed client for each pass (a GIF takes two: the first surveys its
    /// colours).
    public static func render(_ flow: Flow, client: () throws -> FeedClient, headless: HeadlessRun.Options, to fd: Int32,
                              options: Options) throws(Failure) -> Outcome {
        var headless = headless
        var track: SoundTrack?
        do {
            let sink: any FrameSink
            switch options.format {
            case .cast:
                sink = try CastSink(fd: fd, width: flow.width, height: flow.height, started: flow.started,
                                    depth: ColorDepth(name: headless.colors) ?? .palette256)
            case .mp4, .webm, .gif:
                let rasterizer = try FrameRasterizer(fontSize: options.fontSize, light: options.light)
                // Checked before any frame is drawn (a GIF's survey draws them all first).
                let (pixelsWide, pixelsHigh) = (flow.width * rasterizer.cellWidth, flow.height * rasterizer.cellHeight)
                guard pixelsWide <= Self.maxSide, pixelsHigh <= Self.maxSide else {
                    throw Failure(description: "\(flow.width)×\(flow.height) cells at \(options.fontSize) px type are \(pixelsWide)×\(pixelsHigh) pixels; "
                        + "a video is at most \(Self.maxSide) a side (a smaller --font-size, or a smaller screen)")
                }
                headless.graphics = .kitty
                headless.cellPixels = CellPixels(width: rasterizer.cellWidth, height: rasterizer.cellHeight)
                if options.light { headless.background = Display.light }
                var palette: GIFPalette?
                if options.format == .gif {
                    let survey = SurveySink(rasterizer: try FrameRasterizer(fontSize: options.fontSize, light: options.light),
                                            columns: flow.width, rows: flow.height)
                    _ = try pass(flow, client: try client(), headless: headless, sink: survey, fps: options.fps)
                    palette = GIFPalette(survey: survey.survey)
                }
                let withSound = options.sound && flow.setup.sound && options.format != .gif
                if withSound { headless.sound = SoundState(on: true, enabled: true) }
                let pixels = try PixelSink(fd: fd, format: options.format, rasterizer: rasterizer, columns: flow.width, rows: flow.height,
                                           fps: options.fps, palette: palette, sound: withSound)
                if withSound { track = SoundTrack(write: { try pixels.writeSound($0) }) }
                sink = pixels
            }
            let (report, frames) = try pass(flow, client: try client(), headless: headless, sink: sink, fps: options.fps, sound: track)
            try track?.fill(until: report.duration)
            try sink.finish()
            return Outcome(frames: frames, duration: report.duration, sound: track != nil, width: sink.width, height: sink.height,
                           report: report)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// One replay, its frames put on the grid and into `sink`.
    private static func pass(_ flow: Flow, client: FeedClient, headless: HeadlessRun.Options, sink: any FrameSink,
                             fps: Int, sound: SoundTrack? = nil) throws -> (FlowRunReport, Int) {
        var grid = FrameGrid(fps: fps)
        var failure: (any Error)?
        let report = FlowRun.run(flow, client: client, options: headless) { canvas, time, engine in
            guard failure == nil else { return }
            do {
                try sound?.frame(at: time, engine: engine)
                try grid.frame(canvas, at: time, sink: sink)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try grid.finish(at: report.duration, sink: sink)
        return (report, grid.written)
    }
}

/// Where rendered frames go.
@MainActor
protocol FrameSink: AnyObject {
    /// Pixels (or cells) across and down.
    var width: Int { get }
    var height: Int { get }
    /// `canvas` is what the screen shows from grid frame `number` (at `number / fps`
    /// seconds) until the next call.
    func show(_ canvas: Canvas, frame number: Int64, fps: Int) throws
    /// The last frame lasts until grid frame `end`.
    func end(at end: Int64, fps: Int) throws
    func finish() throws
}

/// The frames the app draws, taken on a grid: what is on screen at each grid moment is the
/// last frame drawn at or before it. A grid frame that shows the same as the one before is
/// not written again (a still screen is one frame held).
@MainActor
struct FrameGrid {
    let fps: Int
    private var pending: Canvas?
    private var pendingFrame: Int64 = 0
    private var shown: Canvas?
    private(set) var written = 0

    init(fps: Int) { self.fps = fps }

    /// A frame drawn at `time` seconds: the one before it is on screen at every grid
    /// moment up to this one.
    mutating func frame(_ canvas: Canvas, at time: Double, sink: any FrameSink) throws {
        let number = Int64((max(0, time) * Double(fps)).rounded(.up))
        if let pending, number > pendingFrame { try put(pending, pendingFrame, sink) }
        pending = canvas
        pendingFrame = max(pendingFrame, number)
    }

    mutating func finish(at time: Double, sink: any FrameSink) throws {
        if let pending { try put(pending, pendingFrame, sink) }
        let end = max(pendingFrame + 1, Int64((max(0, time) * Double(fps)).rounded(.up)))
        try sink.end(at: end, fps: fps)
    }

    private mutating func put(_ canvas: Canvas, _ number: Int64, _ sink: any FrameSink) throws {
        defer { pendingFrame = number }
        if let shown, shown == canvas, shown.pictures.map(\.picture) == canvas.pictures.map(\.picture),
           shown.pictures.map(\.rect) == canvas.pictures.map(\.rect) { return }
        try sink.show(canvas, frame: number, fps: fps)
        shown = canvas
        written += 1
    }
}
