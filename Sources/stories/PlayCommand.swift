import StoriesCells
import ArgumentParser
import Foundation
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI
import StoriesCommandLine

/// `stories play FILE`: a video (or a photo) on standard output without ncurses, paced by
/// its timestamps, writing only the cells that change between frames. A quick preview,
/// and the honest way to compare with `timg` and `mpv --vo=tct` on the same file.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a video (or show a photo) as coloured terminal cells on standard output."
    )

    @Argument(help: "The video (MP4, WebM, MKV, … as FFmpeg reads them) or photo (JPEG, PNG, WebP), recognised by content.")
    var file: String

    @OptionGroup var cells: CellOptions

    @Flag(help: "Start again at the end, for ever (Ctrl-C stops). A GIF made to loop loops on a terminal without it, as many times as it says, as a browser shows it.")
    var loop = false

    @Option(help: ArgumentHelp("Leave a cell alone while both its colours are within N levels (0-255, every channel) of what the terminal shows; 0 rewrites every change.", valueName: "N"))
    var tolerance = TerminalPlayback.defaultTolerance

    @Option(help: ArgumentHelp("cells (the default), or real pixels: sixel, kitty or iterm, as `stories print` takes them; frames that would be late are dropped.", valueName: "kind"))
    var graphics = "cells"

    @Flag(help: "At the end, one line on standard error: frames shown and dropped, bytes a frame, seconds; with sound, how far the pictures were from it.")
    var stats = false

    @Flag(help: "Play the pictures without their sound (the sound goes to the desktop's sound server, PulseAudio or PipeWire, where there is one).")
    var mute = false

    mutating func validate() throws {
        guard (0...255).contains(tolerance) else { throw ValidationError("--tolerance must be 0 to 255 (got \(tolerance))") }
        guard GraphicsProtocol(name: graphics) != nil else {
            throw ValidationError("--graphics takes \(GraphicsProtocol.allCases.map(\.rawValue).joined(separator: ", ")); got '\(SafeText.line(graphics))'")
        }
    }

    mutating func run() throws {
        try Self.run(file: file, options: cells.settings, loop: loop, tolerance: tolerance, graphics: GraphicsProtocol(name: graphics) ?? .cells,
                     stats: stats, sound: !mute)
    }

    /// The whole command, from parsed values (the fast path in main.swift comes here too).
    /// `sound`: the video's sound too, through the sound server; its clock leads the
    /// pictures (without a server, one line says why and the pictures keep their own).
    static func run(file: String, options cells: CellSettings, loop: Bool, tolerance: Int, graphics: GraphicsProtocol = .cells,
                    stats: Bool = false, sound: Bool = true) throws {
        let (width, height) = try cells.cellSize()
        let depth = try cells.colorDepth()
        let data: Data
        do { data = try ImageDecoder.readFile(at: URL(fileURLWithPath: file), limits: MediaLimits(maxBytes: VideoLimits.standard.maxBytes)) } catch {
            throw fail("\(SafeText.line(file)): \(error)")
        }
        if ImageFormat.sniff(data) != nil {
            try graphics.showsPixels ? PrintCommand.printPixels(data, name: file, options: cells, graphics: graphics)
                : PrintCommand.printPhoto(data, name: file, options: cells)
            return
        }
        let decoder: VideoDecoder
        do { decoder = try VideoDecoder(data: data) } catch {
            throw fail("\(SafeText.line(file)): \(error)")
        }
        // A GIF that asks to loop (its NETSCAPE2.0 block) loops where a person watches, as
        // many times as it says (0: for ever); `--loop` loops anything for ever.
        let gif = GIFInfo.read(data)
        let gifLoops = isatty(STDOUT_FILENO) == 1 && gif.map { $0.isAnimated && $0.plays != 1 } == true
        var playback = TerminalPlayback(decoder: decoder, width: width, height: height, symbols: cells.symbols, depth: depth,
                                        fit: cells.fit, cellAspect: PrintCommand.terminalCellAspect() ?? 0.5, loop: loop || gifLoops,
                                        tolerance: tolerance)
        playback.plays = loop ? nil : decoder.info.plays
        playback.graphics = graphics
        playback.throughTmux = try PrintCommand.kittyThroughTmux(graphics)
        if let cell = PrintCommand.terminalCellPixels() { playback.cellPixels = (cell.width, cell.height) }
        if isatty(STDOUT_FILENO) == 1 {
            playback.drain = { _ = tcdrain(STDOUT_FILENO) }
            // A resize while playing: the next frame whole, at the new size (or the --size given).
            playback.terminal = {
                var ws = winsize()
                guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
                return (Int(ws.ws_col), Int(ws.ws_row))
            }
            let given = cells.size != nil ? (width, height) : nil
            playback.picture = { size in given ?? (min(size.columns, 4096), max(1, min(size.rows, 4096) - 2)) }
        }
        if sound, decoder.info.hasAudio { playback.audio = AudioPlayer(data: data) }
        let result: TerminalPlayback.Summary
        do { result = try playback.run { bytes in Self.write(bytes) } } catch {
            throw fail("\(SafeText.line(file)): \(error)")
        }
        if result.shown == 0 { throw fail("\(SafeText.line(file)): the video has no frames") }
        if let problem = playback.audio?.problem, problem != .none {
            FileWrites.sayOnStandardError("stories: \(SafeText.line(file)) played without sound: \(problem)")
        }
        if stats {
            var line = String(format: "stories: %d frames shown, %d dropped, %d bytes a frame, %.2f s", result.shown, result.dropped,
                              result.bytes / max(1, result.shown), result.seconds)
            if result.drifts > 0 {
                line += String(format: "; pictures by the sound's clock, %.1f ms from it on average, %.1f ms at most; first picture at %.4f s (monotonic)",
                               result.driftTotal / Double(result.drifts) * 1000, result.driftMost * 1000, result.firstPictureAt)
            }
            FileWrites.sayOnStandardError(line)
        }
    }

    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(STDOUT_FILENO, base + offset, raw.count - offset)
                if n <= 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }
}
