import StoriesCells
import ArgumentParser
import Foundation
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI

/// Plays a decoder's frames in real time through a byte sink: the first frame whole, then
/// only what changed; frames already late are dropped before they are scaled.
public struct TerminalPlayback {
    public struct Summary {
        public var shown = 0
        public var dropped = 0
        public var bytes = 0
        public var seconds = 0.0
        /// With sound: how far each frame shown was from the sound heard as it was written
        /// (seconds; frames measured, the sum and the most).
        public var drifts = 0
        public var driftTotal = 0.0
        public var driftMost = 0.0
        /// When the first picture was written and taken by the terminal (the monotonic
        /// clock the sound is timed by, seconds).
        public var firstPictureAt = 0.0
    }

    /// The video's sound: its clock leads the pictures while it plays.
    public var audio: AudioPlayer?

    public let decoder: VideoDecoder
    public var width: Int, height: Int
    public let symbols: CellSymbols
    public let depth: ColorDepth
    /// The palette of the terminal's kind (play asks the terminal nothing of its colours).
    public let palette = TerminalPalette.defaults(term: ProcessInfo.processInfo.environment["TERM"] ?? "")
    public let fit: FitMode
    public let cellAspect: Double
    public let loop: Bool
    /// How far a cell may be from what the terminal shows before it is rewritten.
    public let tolerance: Int
    /// Unseen on a moving picture (a smooth sky stays smooth; 6 already mottles it), and it
    /// more than halves the bytes of a pan.
    public static let defaultTolerance = 3
    /// Stop after this many seconds of video (nil: the whole clip, or forever with `loop`).
    public var limit: Double?
    /// With `loop`: how many times the clip plays through in all (a GIF's loop count);
    /// nil for ever.
    public var plays: Int?
    /// The terminal's size, asked before each frame (nil: not a terminal, nothing to follow).
    /// When it changes the terminal has reflowed what it showed: the screen is cleared and
    /// the next frame drawn whole from its top, at `picture(terminal)`'s size.
    public var terminal: (() -> (columns: Int, rows: Int)?)?
    /// The picture's size for a terminal's size (the `--size` given, or the terminal's less
    /// two lines).
    public var picture: ((columns: Int, rows: Int)) -> (width: Int, height: Int) = { ($0.columns, max(1, $0.rows - 2)) }
    /// Real pixels (`--graphics sixel|kitty|iterm`): each frame the whole picture, at the
    /// cell's pixel size, written over the same cells; cells otherwise.
    public var graphics: GraphicsProtocol = .cells
    /// kitty inside tmux: each frame sent through its passthrough, shown by placeholders.
    public var throughTmux = false
    public var cellPixels = (width: 10, height: 20)
    /// After each frame the sink waits until the terminal has taken it (`tcdrain` where the
    /// output is a terminal): never more than one frame queued to it, so a frame that would
    /// be shown late is dropped rather than piled up.
    public var drain: () -> Void = {}

    public init(decoder: VideoDecoder, width: Int, height: Int, symbols: CellSymbols, depth: ColorDepth, fit: FitMode,
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

    public mutating func run(_ sink: ([UInt8]) -> Void) throws(MediaError) -> Summary {
        var summary = Summary()
        let start = Self.now()
        var clock = PassClock(plays: plays, length: decoder.info.duration) // where the frames fall, pass after pass
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
                wallBase = clock.offset + heard - (Self.now() - start)
                return clock.offset + heard
            }
            return Self.now() - start + wallBase
        }
        func measure(_ due: Double) {
            guard let heard = audio?.position else { return }
            let drift = abs(due - (clock.offset + heard))
            summary.drifts += 1
            summary.driftTotal += drift
            summary.driftMost = max(summary.driftMost, drift)
        }
        var previous: Canvas? // what the terminal shows
        var memo = PaletteMemo(depth: depth) // each colour's palette number, kept frame to frame
        var sixelPalette: SixelPalette? // sixel's colours, kept while they still show the frames well
        var terminalSize = terminal?()
        var cleared = false // the screen was cleared for a frame drawn whole from the top
        /// At the end the last frame stays its own time before the command returns (a clip
        /// lasts as long as it says; a minute at most).
        func holdLastFrame() {
            if summary.shown > 0 { sleep(until: min(clock.lastEnd, elapsed() + 60)) }
        }
        /// Sleeps until the video's time is `due` (a GIF's frame may be minutes long), a
        /// second at a time so that the clock is read again between — never longer than the
        /// wait first measured (a sound that has ended stops its clock).
        func sleep(until due: Double) {
            let first = due - elapsed()
            guard first > 0 else { return }
            let deadline = Self.now() + first
            while true {
                let wait = min(due - elapsed(), deadline - Self.now())
                guard wait > 0 else { return }
                usleep(useconds_t(min(wait, 1) * 1_000_000))
            }
        }
        var framesThisPass = 0
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
                guard clock.playsAgain(looping: loop), framesThisPass > 0, decoder.rewind() else {
                    holdLastFrame()
                    break
                }
                framesThisPass = 0
                clock.nextPass(now: elapsed())
                audio?.play(from: 0)
                continue
            }
            framesThisPass += 1
            let (due, end) = clock.place(pts: pts, frameEnd: decoder.frameEnd)
            if let limit, due >= limit { break }
            if let size = terminal?(), let before = terminalSize, size != before {
                // Resized: what was shown was reflowed by the terminal; start afresh.
                terminalSize = size
                (width, height) = picture(size)
                previous = nil
                cleared = true
            }
            let now = elapsed()
            // The clip's last frame is drawn however late: it is what stays on the terminal.
            if end <= now, previous != nil, !clock.isLast(end: end, looping: loop) {
                summary.dropped += 1 // late: dropped before it is scaled
                continue
            }
            if graphics.showsPixels {
                guard let frame = decoder.picture(width: width * cellPixels.width, height: height * cellPixels.height, fit: fit,
                                                  pixelAspect: 1) else { throw .video("a frame could not be scaled") }
                sleep(until: due)
                var bytes: [UInt8] = []
                if previous == nil || cleared {
                    // Room for the picture first: the terminal scrolls, the cursor goes back up.
                    bytes += cleared ? Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8) : []
                    bytes += Array("\u{1B}[?25l".utf8) + Array(repeating: 0x0A, count: height) + Array("\u{1B}[\(height)A".utf8)
                    cleared = false
                    previous = Canvas(width: width, height: height)
                    PlaybackTerminal.setRowsBelow(height)
                }
                bytes += Array("\u{1B}7".utf8) + Self.encode(frame, graphics: graphics, columns: width, rows: height, throughTmux: throughTmux,
                                                                    palette: &sixelPalette)
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
            sleep(until: due)
            var bytes: [UInt8]
            let next = Canvas(image: cells)
            // What the terminal shows, taken out so that it is changed in place.
            var shown = previous ?? Canvas(width: 0, height: 0)
            previous = nil
            if shown.width == next.width, shown.height == next.height, shown.width > 0 {
                // Only what changed (the one frame diff, from what the terminal shows).
                bytes = []
                FrameWriter.write(next.diff(from: shown, tolerance: tolerance), of: next, shown: &shown, memo: &memo, into: &bytes)
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
    public static func now() -> Double { AudioPlayer.now() }

    /// One frame in real pixels at the cursor, over `columns` × `rows` cells. kitty: the
    /// same picture id every frame (one of this run's own), so the terminal replaces the
    /// last rather than keeping them all.
    /// Sixel keeps `palette` from frame to frame while it still shows them well.
    public static func encode(_ frame: RGBImage, graphics: GraphicsProtocol, columns: Int, rows: Int, throughTmux: Bool = false,
                              palette: inout SixelPalette?) -> [UInt8] {
        PictureEncoding.bytes(frame, as: graphics, columns: columns, rows: rows, kittyID: kittyID, cursorStays: true, throughTmux: throughTmux,
                              sixelPalette: &palette)
    }

    public static let kittyID = UInt32.random(in: 1..<(1 << 24))
}

/// Ctrl-C during playback still leaves the cursor shown, the colours reset, and the prompt
/// below the picture (the cursor rests at its top-left between frames).
public enum PlaybackTerminal {
    /// The bytes the handler writes: made before, so the handler itself only writes
    /// (allocating in a signal handler is not safe). `nonisolated(unsafe)`: written only by
    /// the playing thread through `setRowsBelow`, read by the handler; the handler may see
    /// the length and bytes of the moment before, which are as good.
    nonisolated(unsafe) private static var tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    nonisolated(unsafe) private static var tailCount = 0

    /// The picture on screen is `rows` tall (0: none yet).
    public static func setRowsBelow(_ rows: Int) {
        let bytes = Array((rows > 0 ? "\u{1B}[\(min(rows, 9999))B\r" : "").utf8) + Array("\u{1B}[0m\u{1B}[?25h\n".utf8)
        tailCount = 0
        for (index, byte) in bytes.prefix(32).enumerated() { tail[index] = byte }
        tailCount = min(bytes.count, 32)
    }

    public static func begin() {
        setRowsBelow(0)
        signal(SIGINT) { _ in
            _ = Foundation.write(STDOUT_FILENO, PlaybackTerminal.tail, PlaybackTerminal.tailCount)
            _exit(130)
        }
    }

    public static func end() { signal(SIGINT, SIG_DFL) }
}
