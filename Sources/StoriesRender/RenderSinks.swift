import Foundation
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI

/// asciicast v2 (asciinema's format): a header line, then `[time, "o", bytes]` for each
/// frame — the bytes the one frame writer sends a terminal for what changed (the first frame
/// whole, after clearing the screen and hiding the cursor).
@MainActor
final class CastSink: FrameSink {
    let width: Int
    let height: Int
    private let fd: Int32
    private let depth: ColorDepth
    private var shown: Canvas
    private var memo: PaletteMemo
    private var first = true

    init(fd: Int32, width: Int, height: Int, started: Double, depth: ColorDepth) throws {
        self.fd = fd
        self.width = width
        self.height = height
        self.depth = depth
        memo = PaletteMemo(depth: self.depth)
        shown = Canvas(width: width, height: height)
        let header: JSONValue = .object([
            "version": .int(2), "width": .int(width), "height": .int(height), "timestamp": .int(Int(started)),
            "title": .string("stories"), "env": .object(["TERM": .string(depth == .direct ? "xterm-direct" : "xterm-256color")]),
        ])
        try write(header)
    }

    func show(_ drawn: Canvas, frame number: Int64, fps: Int) throws {
        // The cast keeps the size its header says, as a video does.
        let canvas = drawn.fitted(columns: width, rows: height)
        var bytes: [UInt8] = []
        if first {
            // The first frame whole, on a cleared screen.
            bytes += Array("\u{1B}[?25l\u{1B}[H\u{1B}[2J".utf8)
            shown = Canvas(width: canvas.width, height: canvas.height)
            first = false
        } else {
            bytes += Array("\u{1B}[H".utf8)
        }
        FrameWriter.write(canvas.diff(from: shown), of: canvas, shown: &shown, memo: &memo, into: &bytes)
        let time = Double(number) / Double(fps)
        try write(.array([.rounded(time, places: 6), .string("o"), .string(String(decoding: bytes, as: UTF8.self))]))
    }

    func end(at end: Int64, fps: Int) throws {
        // The cursor back, at the last frame's end: a player shows the last frame that long.
        try write(.array([.rounded(Double(end) / Double(fps), places: 6), .string("o"), .string("\u{1B}[?25h")]))
    }

    func finish() throws {}

    private func write(_ line: JSONValue) throws {
        var bytes = [UInt8](line.data())
        bytes.append(0x0A)
        if let code = FileWrites.writeAll(fd, bytes) {
            throw RenderRun.Failure(description: code == ENOSPC ? "the disk is full" : String(cString: strerror(code)))
        }
    }
}

/// Frames drawn as a terminal shows them and encoded: H.264, VP9 (on a grid, a frame each
/// time the screen changes, and at least one a second), or GIF (each change a frame, shown
/// until the next, in the one palette surveyed over the whole replay).
@MainActor
final class PixelSink: FrameSink {
    let width: Int
    let height: Int
    private let format: RenderRun.Format
    private let rasterizer: FrameRasterizer
    private let encoder: VideoEncoder
    private var frame: RGBImage
    private var lastWritten: Int64 = -1
    /// The video's grid: a canvas of another size (a resize in the recording) is drawn into it.
    private let columns: Int
    private let rows: Int
    /// A GIF frame waits for the next to know how long it lasts.
    private var held: (indices: [UInt8], start: Int64)?
    private let gifPalette: GIFPalette?

    /// `palette`: a GIF's, made from the survey of its first pass.
    init(fd: Int32, format: RenderRun.Format, rasterizer: FrameRasterizer, columns: Int, rows: Int, fps: Int, palette: GIFPalette?,
         sound: Bool = false) throws {
        self.format = format
        gifPalette = palette
        self.columns = columns
        self.rows = rows
        self.rasterizer = rasterizer
        // Even sides for 4:2:0 video.
        width = (columns * rasterizer.cellWidth + 1) & ~1
        height = (rows * rasterizer.cellHeight + 1) & ~1
        let kind: VideoEncoder.Kind = format == .gif ? .gif : format == .webm ? .webm : .mp4
        encoder = try VideoEncoder(fd: fd, kind: kind, width: width, height: height, fps: fps, sound: sound)
        frame = RGBImage(width: width, height: height, fill: RGBPixel(rasterizer.background.0, rasterizer.background.1, rasterizer.background.2))
    }

    func show(_ canvas: Canvas, frame number: Int64, fps: Int) throws {
        rasterizer.draw(canvas.fitted(columns: columns, rows: rows))
        place(rasterizer.image)
        if let gifPalette {
            let start = number * 100 / Int64(fps)
            try flushHeld(until: start)
            held = (gifPalette.indices(frame), start)
        } else {
            // A still screen is written again once a second, so a player can seek into it.
            if lastWritten >= 0, number - lastWritten > Int64(fps) {
                var at = lastWritten + Int64(fps)
                while at < number { try encoder.write(previousFrame ?? frame, frame: at); at += Int64(fps) }
            }
            try encoder.write(frame, frame: number)
            previousFrame = frame
            lastWritten = number
        }
    }

    private var previousFrame: RGBImage?

    func end(at end: Int64, fps: Int) throws {
        if format == .gif {
            try flushHeld(until: end * 100 / Int64(fps))
        } else if let previousFrame, end - 1 > lastWritten {
            // The last frame again at the end, so the video lasts as long as the recording.
            try encoder.write(previousFrame, frame: end - 1)
        }
    }

    func finish() throws { try encoder.finish() }

    /// The sound track's next frames (16-bit stereo, 48 kHz).
    func writeSound(_ pcm: [Int16]) throws { try encoder.writeSound(pcm) }

    private func flushHeld(until end: Int64) throws {
        guard let held, let gifPalette else { return }
        try encoder.write(indices: held.indices, palette: gifPalette.palette, start: held.start, duration: max(1, end - held.start))
        self.held = nil
    }

    /// The drawn frame in the top-left of the video's (the same size but for the even
    /// sides 4:2:0 wants).
    private func place(_ image: RGBImage) {
        if image.width == width, image.height == height {
            frame = image
            return
        }
        let columns = min(image.width, width), rows = min(image.height, height)
        for y in 0..<rows {
            let from = y * image.width * 3, to = y * width * 3
            frame.pixels.replaceSubrange(to..<(to + columns * 3), with: image.pixels[from..<(from + columns * 3)])
        }
    }
}

/// A GIF's first pass: every frame drawn and its colours counted, each as long as it shows.
@MainActor
final class SurveySink: FrameSink {
    let width: Int
    let height: Int
    private let rasterizer: FrameRasterizer
    private var held: (image: RGBImage, number: Int64)?
    private(set) var survey = GIFPalette.Survey()

    private let columns: Int
    private let rows: Int

    init(rasterizer: FrameRasterizer, columns: Int, rows: Int) {
        self.rasterizer = rasterizer
        self.columns = columns
        self.rows = rows
        width = columns * rasterizer.cellWidth
        height = rows * rasterizer.cellHeight
    }

    func show(_ canvas: Canvas, frame number: Int64, fps: Int) throws {
        if let held { survey.add(held.image, weight: max(1, number - held.number)) }
        rasterizer.draw(canvas.fitted(columns: columns, rows: rows))
        held = (rasterizer.image, number)
    }

    func end(at end: Int64, fps: Int) throws {
        if let held { survey.add(held.image, weight: max(1, end - held.number)) }
        held = nil
    }

    func finish() throws {}
}

extension Canvas {
    /// This canvas on a grid of `columns × rows` cells: a video keeps the size it started
    /// at, so after a resize what is on screen is drawn into its top-left corner (cut, or
    /// blank beyond) — never a larger picture than the first (a recording's resize to
    /// 1000×1000 cells would be tens of thousands of pixels a side).
    func fitted(columns: Int, rows: Int) -> Canvas {
        guard width != columns || height != rows else { return self }
        var out = Canvas(width: columns, height: rows)
        for y in 0..<min(rows, height) {
            for x in 0..<min(columns, width) {
                let cell = self[x, y]
                out.put(cell.glyph, x: x, y: y, style: cell.style)
            }
        }
        // Pictures wholly outside the grid are gone; the rest are drawn as far as it goes.
        out.pictures = pictures.filter { $0.rect.x < columns && $0.rect.y < rows && $0.rect.x + $0.rect.width > 0 && $0.rect.y + $0.rect.height > 0 }
        out.isMotion = isMotion
        return out
    }
}
