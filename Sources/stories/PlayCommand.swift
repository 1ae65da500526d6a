import StoriesCells
import ArgumentParser
import Foundation
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI

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

    @Flag(help: "Start again at the end (Ctrl-C stops). A GIF made to loop loops on a terminal without it, as a browser shows it.")
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
        // A GIF that asks to loop (its NETSCAPE2.0 block) loops where a person watches.
        let loops = loop || (isatty(STDOUT_FILENO) == 1 && GIFInfo.read(data).map { $0.loops && $0.isAnimated } == true)
        var playback = TerminalPlayback(decoder: decoder, width: width, height: height, symbols: cells.symbols, depth: depth,
                                        fit: cells.fit, cellAspect: PrintCommand.terminalCellAspect() ?? 0.5, loop: loops,
                                        tolerance: tolerance)
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

/// Plays a decoder's frames in real time through a byte sink: the first frame whole, then
/// only what changed; frames already late are dropped before they are scaled.
struct TerminalPlayback {
    struct Summary {
        var shown = 0
        var dropped = 0
        var bytes = 0
        var seconds = 0.0
        /// With sound: how far each frame shown was from the sound heard as it was written
        /// (seconds; frames measured, the sum and the most).
        var drifts = 0
        var driftTotal = 0.0
        var driftMost = 0.0
        /// When the first picture was written and taken by the terminal (the monotonic
        /// clock the sound is timed by, seconds).
        var firstPictureAt = 0.0
    }

    /// The video's sound: its clock leads the pictures while it plays.
    var audio: AudioPlayer?

    let decoder: VideoDecoder
    var width: Int, height: Int
    let symbols: CellSymbols
    let depth: ColorDepth
    /// The palette of the terminal's kind (play asks the terminal nothing of its colours).
    let palette = TerminalPalette.defaults(term: ProcessInfo.processInfo.environment["TERM"] ?? "")
    let fit: FitMode
    let cellAspect: Double
    let loop: Bool
    /// How far a cell may be from what the terminal shows before it is rewritten.
    let tolerance: Int
    /// Unseen on a moving picture (a smooth sky stays smooth; 6 already mottles it), and it
    /// more than halves the bytes of a pan.
    static let defaultTolerance = 3
    /// Stop after this many seconds of video (nil: the whole clip, or forever with `loop`).
    var limit: Double?
    /// The terminal's size, asked before each frame (nil: not a terminal, nothing to follow).
    /// When it changes the terminal has reflowed what it showed: the screen is cleared and
    /// the next frame drawn whole from its top, at `picture(terminal)`'s size.
    var terminal: (() -> (columns: Int, rows: Int)?)?
    /// The picture's size for a terminal's size (the `--size` given, or the terminal's less
    /// two lines).
    var picture: ((columns: Int, rows: Int)) -> (width: Int, height: Int) = { ($0.columns, max(1, $0.rows - 2)) }
    /// Real pixels (`--graphics sixel|kitty|iterm`): each frame the whole picture, at the
    /// cell's pixel size, written over the same cells; cells otherwise.
    var graphics: GraphicsProtocol = .cells
    /// kitty inside tmux: each frame sent through its passthrough, shown by placeholders.
    var throughTmux = false
    var cellPixels = (width: 10, height: 20)
    /// After each frame the sink waits until the terminal has taken it (`tcdrain` where the
    /// output is a terminal): never more than one frame queued to it, so a frame that would
    /// be shown late is dropped rather than piled up.
    var drain: () -> Void = {}

    init(decoder: VideoDecoder, width: Int, height: Int, symbols: CellSymbols, depth: ColorDepth, fit: FitMode,
         cellAspect: Double, loop: Bool, tolerance: Int = defaultTolerance, limit: Double? = nil) {
        self.decoder = decoder
        self.width = width
        self.height = height
        self.symbols = symbols
        self.depth = depth
        self.fit = fit
        self.cellAspect = cellAspect
        self.loop = loop
        self.tolerance = tolerance
        self.limit = limit
    }

    mutating func run(_ sink: ([UInt8]) -> Void) throws(MediaError) -> Summary {
        var summary = Summary()
        let interval = decoder.info.frameInterval
        let start = Self.now()
        var offset = 0.0 // time of earlier loops
        let audio = audio
        defer { audio?.stop() }
        /// Before the first picture, the sound is started and waited for (half a second at
        /// most): picture and sound begin together.
        func startSound() {
            guard let audio, summary.shown == 0 else { return }
            audio.play(from: 0)
            let deadline = Self.now() + 0.5
            while audio.position == nil, audio.problem == nil, Self.now() < deadline { usleep(1000) }
        }
        // Where the video is: the sound heard now while it plays, else the wall clock.
        var wallBase = 0.0
        func elapsed() -> Double {
            if let heard = audio?.position {
                wallBase = offset + heard - (Self.now() - start)
                return offset + heard
            }
            return Self.now() - start + wallBase
        }
        func measure(_ due: Double) {
            guard let heard = audio?.position else { return }
            let drift = abs(due - (offset + heard))
            summary.drifts += 1
            summary.driftTotal += drift
            summary.driftMost = max(summary.driftMost, drift)
        }
        var lastTime = 0.0
        var previous: Canvas? // what the terminal shows
        var terminalSize = terminal?()
        var cleared = false // the screen was cleared for a frame drawn whole from the top
        PlaybackTerminal.begin()
        defer {
            // Below the picture, colours reset, cursor shown.
            var tail = previous.map { Array("\u{1B}[\($0.height)B\r".utf8) } ?? []
            tail += Array("\u{1B}[0m\u{1B}[?25h".utf8)
            sink(tail)
            summary.bytes += tail.count
            PlaybackTerminal.end()
        }
        while true {
            guard let pts = try decoder.decodeNext() else {
                guard loop, summary.shown > 0, decoder.rewind() else { break }
                offset += lastTime + interval
                audio?.play(from: 0)
                continue
            }
            lastTime = pts
            let due = offset + pts
            if let limit, due >= limit { break }
            if let size = terminal?(), let before = terminalSize, size != before {
                // Resized: what was shown was reflowed by the terminal; start afresh.
                terminalSize = size
                (width, height) = picture(size)
                previous = nil
                cleared = true
            }
            let now = elapsed()
            if due + interval <= now, previous != nil {
                summary.dropped += 1 // late: dropped before it is scaled
                continue
            }
            if graphics.showsPixels {
                guard let frame = decoder.picture(width: width * cellPixels.width, height: height * cellPixels.height, fit: fit,
                                                  pixelAspect: 1) else { throw .video("a frame could not be scaled") }
                let wait = due - elapsed()
                if wait > 0 { usleep(useconds_t(min(wait, 1) * 1_000_000)) }
                var bytes: [UInt8] = []
                if previous == nil || cleared {
                    // Room for the picture first: the terminal scrolls, the cursor goes back up.
                    bytes += cleared ? Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8) : []
                    bytes += Array("\u{1B}[?25l".utf8) + Array(repeating: 0x0A, count: height) + Array("\u{1B}[\(height)A".utf8)
                    cleared = false
                    previous = Canvas(width: width, height: height)
                    PlaybackTerminal.setRowsBelow(height)
                }
                bytes += Array("\u{1B}7".utf8) + Self.encode(frame, graphics: graphics, columns: width, rows: height, throughTmux: throughTmux)
                    + Array("\u{1B}8".utf8)
                startSound()
                sink(bytes)
                drain()
                measure(due)
                if summary.shown == 0 { summary.firstPictureAt = Self.now() }
                summary.bytes += bytes.count
                summary.shown += 1
                continue
            }
            guard let cells = decoder.cells(width: width, height: height, symbols: symbols, depth: depth, fit: fit,
                                            cellAspect: cellAspect, palette: palette) else { throw .video("a frame could not be scaled") }
            let wait = due - elapsed()
            if wait > 0 { usleep(useconds_t(min(wait, 1) * 1_000_000)) }
            var bytes: [UInt8]
            let next = Canvas(image: cells)
            // What the terminal shows, taken out so that it is changed in place.
            var shown = previous ?? Canvas(width: 0, height: 0)
            previous = nil
            if shown.width == next.width, shown.height == next.height, shown.width > 0 {
                // Only what changed (the one frame diff, from what the terminal shows).
                bytes = FrameWriter.bytes(for: next.diff(from: shown, tolerance: tolerance), of: next, shown: &shown, depth: depth)
                previous = shown
            } else {
                // The first frame (or one of another size) whole, with newlines: the terminal
                // scrolls to make room for it. After a resize, from the top of a cleared screen.
                let clear = cleared ? Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8) : []
                cleared = false
                bytes = clear + Array("\u{1B}[?25l".utf8) + ANSIWriter.bytes(of: cells, depth: depth) + Array("\u{1B}[\(cells.height)A".utf8)
                previous = next
                PlaybackTerminal.setRowsBelow(next.height)
            }
            startSound()
            sink(bytes)
            if audio != nil { drain() } // the sound is measured against the frame as the terminal has it
            measure(due)
            if summary.shown == 0 { summary.firstPictureAt = Self.now() }
            summary.bytes += bytes.count
            summary.shown += 1
        }
        summary.seconds = Self.now() - start
        return summary
    }

    /// The monotonic clock the sound is timed by.
    static func now() -> Double { AudioPlayer.now() }

    /// One frame in real pixels at the cursor, over `columns` × `rows` cells. kitty: the
    /// same picture id every frame (one of this run's own), so the terminal replaces the
    /// last rather than keeping them all.
    static func encode(_ frame: RGBImage, graphics: GraphicsProtocol, columns: Int, rows: Int, throughTmux: Bool = false) -> [UInt8] {
        PictureEncoding.bytes(frame, as: graphics, columns: columns, rows: rows, kittyID: kittyID, cursorStays: true, throughTmux: throughTmux)
    }

    static let kittyID = UInt32.random(in: 1..<(1 << 24))
}

/// Ctrl-C during playback still leaves the cursor shown, the colours reset, and the prompt
/// below the picture (the cursor rests at its top-left between frames).
enum PlaybackTerminal {
    /// The bytes the handler writes: made before, so the handler itself only writes
    /// (allocating in a signal handler is not safe). `nonisolated(unsafe)`: written only by
    /// the playing thread through `setRowsBelow`, read by the handler; the handler may see
    /// the length and bytes of the moment before, which are as good.
    nonisolated(unsafe) private static var tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    nonisolated(unsafe) private static var tailCount = 0

    /// The picture on screen is `rows` tall (0: none yet).
    static func setRowsBelow(_ rows: Int) {
        let bytes = Array((rows > 0 ? "\u{1B}[\(min(rows, 9999))B\r" : "").utf8) + Array("\u{1B}[0m\u{1B}[?25h\n".utf8)
        tailCount = 0
        for (index, byte) in bytes.prefix(32).enumerated() { tail[index] = byte }
        tailCount = min(bytes.count, 32)
    }

    static func begin() {
        setRowsBelow(0)
        signal(SIGINT) { _ in
            _ = Foundation.write(STDOUT_FILENO, PlaybackTerminal.tail, PlaybackTerminal.tailCount)
            _exit(130)
        }
    }

    static func end() { signal(SIGINT, SIG_DFL) }
}
