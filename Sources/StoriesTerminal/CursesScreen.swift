import StoriesCells
import StoriesMedia
import CNcursesw
import CStoriesSupport
import Foundation
import StoriesCore
import StoriesUI

/// The ncurses backend: owns the SCREEN, draws a `Canvas` by changed cells, caches colour
/// pairs, reads raw input and gives the terminal back. Main-actor only: ncurses is global.
@MainActor
public final class CursesScreen {
    public internal(set) var colorDepth: ColorDepth
    /// The SCREEN drawn on: opened at start, opened again on the direct-colour entry when
    /// the terminal says late that it shows 24-bit colour (`takeDirectColour`).
    var screen: OpaquePointer
    let outputFD: Int32
    var previous: Canvas?
    var pairCache: [Int64: Int32] = [:]
    /// The next pair number to define (1…pairCapacity; 0 is the terminal's default).
    var nextPair = 1
    /// Pairs ncurses can hold. Redefining a pair recolours cells already on screen (and
    /// costs a scan of the whole screen), so the table is reset when it is full instead.
    var pairCapacity: Int
    /// What the screen was opened with, to open it again (`takeDirectColour`): the streams,
    /// the entry's name, the environment and the person's own modes.
    let streams: (input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>)
    let entryName: String
    let environment: [String: String]
    let shellModes: termios?
    /// The colours stories.conf limits the screen to (`limitColors`): never more, whatever
    /// the terminal says later.
    var colorLimit: ColorDepth?
    /// Cells handed to ncurses by the last `draw` (the changed ones).
    public internal(set) var lastDrawnCellCount = 0
    /// The rows the last frame wrote to (links on them are written again).
    private var changedRows: Set<Int> = []
    var isRestored = false
    let mouseEnabled: Bool

    /// Sets up ncurses on the given streams. `termName` nil means `$TERM`. Uses `newterm`,
    /// never `initscr`, which would exit the process on an unknown terminal. `evidence`: what
    /// the terminal said of itself (24-bit colour, a stand-in for an unknown TERM, the modes
    /// to give back); nil: the environment alone.
    public init(termName: String? = nil, input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>,
                environment: [String: String] = ProcessInfo.processInfo.environment, mouse: Bool = true,
                evidence: TerminalEvidence? = nil) throws(TerminalError) {
        let said = termName ?? environment["TERM"]
        guard let said, !said.isEmpty else { throw TerminalError.termNotSet }
        let evidence = evidence ?? .environment(environment)
        Self.useUTF8Locale()
        // A TERM this machine has no entry for (ssh from foot, Ghostty, WezTerm): drawn as
        // an xterm when the terminal answered like one, with a line saying so.
        guard let (name, standInNote) = TerminalEntry.choose(said, evidence: evidence) else { throw TerminalError.unknownTerminal(said) }
        self.standInNote = standInNote
        // ncurses installs its own SIGWINCH handler unless one is set; the run loop takes
        // SIGWINCH through a Dispatch signal source instead.
        signal(SIGWINCH, SIG_IGN)
        // A terminal that shows 24-bit colour (COLORTERM, or its own answers) gets it even
        // when its terminfo entry has 8 or 256: ncurses can only send it through a *-direct
        // entry, so use the entry's direct sibling when one is installed (ncurses-term).
        var screen: OpaquePointer?
        let (direct, directNote) = DirectColorEntry.find(for: name, truecolor: evidence.truecolor, environment: environment) { term in
            guard let directory = DirectColorEntry.cacheDirectory(environment: environment) else {
                return .failure(.init(reason: "no cache folder (HOME unset) for a 24-bit terminfo entry"))
            }
            return DirectColorEntry.compile(term, into: directory)
        }
        if let direct {
            screen = Self.open(direct, output: output, input: input)
        }
        if screen == nil { screen = name.withCString { newterm($0, output, input) } }
        guard let screen else { throw TerminalError.unknownTerminal(said) }
        set_term(screen)
        guard Self.takeModes(input: fileno(input), shellModes: evidence.shellModes) else {
            endwin()
            delscreen(screen)
            throw TerminalError.cannotMoveCursor(name)
        }
        self.screen = screen
        outputFD = fileno(output)
        streams = (input, output)
        entryName = name
        self.environment = environment
        shellModes = evidence.shellModes
        (colorDepth, pairCapacity) = Self.startColours(environment: environment)
        // The terminal asks for 24-bit colour and this machine cannot send it: said once,
        // at start, with how to get it (never silently 256).
        if colorDepth != .direct, colorDepth != .none, let directNote {
            truecolorNote = "\(colorDepth.name) colours: " + directNote
        } else if colorDepth != .direct, colorDepth != .none, direct != nil, evidence.truecolor != nil {
            truecolorNote = "\(colorDepth.name) colours: the direct-colour terminfo entry would not open"
        }
        mouseEnabled = mouse
        cellAspect = readCellAspect()
        if mouse { writeRaw("\u{1B}[?1002h\u{1B}[?1006h") }
        // Focus reports (CSI I / CSI O) where the terminal has them; others ignore the mode.
        if reportsFocus { writeRaw("\u{1B}[?1004h") }
    }

    /// Asks the terminal for its background colour (OSC 11); the answer comes with the
    /// input (`InputDecoder.takeOSCReports`), within a few milliseconds where there is one.
    public func askBackground() {
        writeRaw("\u{1B}]11;?\u{1B}\\")
    }

    /// The terminal is asked to report focus (the app's own screen, not a test's).
    var reportsFocus: Bool { mouseEnabled }

    /// Shows fewer colours than the terminal has (stories.conf `colors`); false when asked
    /// for more than it has, which cannot be sent.
    public func limitColors(to depth: ColorDepth) -> Bool {
        guard depth.rank <= colorDepth.rank else { return false }
        colorDepth = depth
        colorLimit = depth
        colorCache.removeAll()
        if depth == .none { pairCapacity = 0 }
        previous = nil
        return true
    }

    /// Why the terminal asked for truecolor and does not get it, when that is so.
    public internal(set) var truecolorNote: String?
    /// The line saying TERM had no entry here and what it is drawn as instead.
    public let standInNote: String?

    /// A cell's width over its height, from the terminal's pixel size when it reports one
    /// (TIOCGWINSZ), else the usual 1:2. Read at start and on every resize.
    public private(set) var cellAspect = 0.5

    private func readCellAspect() -> Double {
        var ws = winsize()
        guard ioctl(outputFD, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_xpixel > 0, ws.ws_ypixel > 0,
              ws.ws_col > 0, ws.ws_row > 0 else { return 0.5 }
        cellPixels = CellPixels(width: Int(ws.ws_xpixel) / Int(ws.ws_col), height: Int(ws.ws_ypixel) / Int(ws.ws_row))
        return (Double(ws.ws_xpixel) / Double(ws.ws_col)) / (Double(ws.ws_ypixel) / Double(ws.ws_row))
    }

    /// A cell's size in pixels from the window's (TIOCGWINSZ), when the terminal says it
    /// (nil otherwise: `CSI 16 t`'s answer stands in). Read with `cellAspect`.
    public private(set) var cellPixels: CellPixels?

    public var size: (width: Int, height: Int) {
        (Int(stories_cols()), Int(stories_lines()))
    }

    /// Takes the new window size from the terminal and tells ncurses. The next draw is full.
    public func updateSize() {
        var ws = winsize()
        if ioctl(outputFD, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            resizeterm(Int32(ws.ws_row), Int32(ws.ws_col))
        }
        cellAspect = readCellAspect()
        previous = nil
    }

    /// Puts text on the terminal's clipboard with OSC 52 (base64, so nothing in it can be
    /// read as a control sequence). Terminals that do not allow it ignore the sequence.
    public func copyToClipboard(_ text: String) {
        guard !isRestored else { return }
        writeRaw("\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}")
    }

    /// Forgets the last frame and has ncurses repaint the whole terminal on the next
    /// `doupdate` (Ctrl-L: something else wrote over the screen).
    public func forgetScreen() {
        guard !isRestored else { return }
        previous = nil
        clearok(stories_curscr(), true)
    }

    /// Draws a canvas: only the cells that differ from the last frame are handed to ncurses,
    /// then one `doupdate`.
    public func draw(_ frame: Canvas) {
        guard !isRestored else { return }
        var canvas = frame
        // Under a picture that stays where it is (a photo at rest, a video's next frame),
        // the cells stay as the terminal had them: written, they would only be covered again.
        if let previous {
            for region in canvas.pictures where pictures.replaces(region) { canvas.keepCells(region.rect, from: previous) }
        }
        lastDrawnCellCount = 0
        // Pictures that go give their rows back first (sixel, iTerm2: every cell of those
        // lines is written again, over the pixels; kitty: the placement is deleted).
        let (spoilt, before) = pictures.prepare(next: canvas.pictures, height: canvas.height)
        if !before.isEmpty { writeRaw(before) }
        if canvas.isMotion, spoilt.isEmpty, pictures.shown.isEmpty, drawDirectly(canvas) { return }
        if wroteDirectly {
            // The motion is over: ncurses' screen is made whole again, every line rewritten
            // (no clear, so nothing flashes) from the whole canvas.
            wroteDirectly = false
            motionBytes = []
            previous = nil
            wredrawln(stories_stdscr(), 0, Int32(canvas.height))
        }
        for rows in spoilt { wredrawln(stories_stdscr(), Int32(rows.lowerBound), Int32(rows.count)) }
        let wasFull = previous == nil
        if !drawCells(canvas, fallBackWhenFull: false) {
            // The pair table filled up mid-frame: empty it and draw everything again. A
            // single frame with more pairs than the terminal has shows the rest in pair 0.
            // Pairs are numbered here and never redefined before this reset: ncurses scans
            // the whole screen for every pair that is freed or redefined (free_pair, or
            // alloc_pair recycling its oldest), which at 200×60 with a video's 65 535 pairs
            // froze the app for more than a second; reset_color_pairs forgets them at once.
            stories_reset_pairs()
            pairCache.removeAll()
            nextPair = 1
            previous = nil
            lastDrawnCellCount = 0
            _ = drawCells(canvas, fallBackWhenFull: true)
        }
        placeCursor(canvas)
        wnoutrefresh(stories_stdscr())
        doupdate()
        var redrawn = changedRows
        for rows in spoilt { redrawn.formUnion(rows) }
        let after = pictures.finish(next: canvas.pictures, redrawnRows: redrawn, full: wasFull, width: canvas.width, height: canvas.height)
        if !after.isEmpty {
            let clock = ContinuousClock()
            let started = clock.now
            writeRaw(after)
            pictures.addWriteTime((clock.now - started).seconds)
        }
        // A link is written again when it is new or a cell of its row was redrawn (which
        // loses the hyperlink there); a progress bar moving elsewhere leaves it be.
        if hyperlinks, canvas.links != previous?.links || canvas.links.contains(where: { changedRows.contains($0.y) }) {
            writeHyperlinks(canvas)
        }
        previous = canvas
    }

    /// OSC 8 hyperlinks are written where the terminal is likely to take them (not the Linux
    /// console, which shows unknown sequences, nor a terminal without colour).
    private lazy var hyperlinks: Bool = {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return !term.hasPrefix("linux") && term != "dumb" && colorDepth != .none
            && ProcessInfo.processInfo.environment["STORIES_NO_HYPERLINKS"] == nil
    }()

    /// Colour pairs allocated since the table was last emptied.
    public var pairsInUse: Int { pairCache.count }

    /// Writes the cells that changed since the last frame (`Canvas.diff`). Returns false
    /// if the pair table is full (unless told to fall back to pair 0).
    private func drawCells(_ canvas: Canvas, fallBackWhenFull: Bool) -> Bool {
        let diff = canvas.diff(from: previous)
        if diff.isFull { werase(stories_stdscr()) }
        changedRows = diff.isFull ? Set(0..<canvas.height) : Set(diff.changes.map(\.y))
        // Neighbouring cells mostly share a style (a row of text, a flat band): its pair and
        // attributes are looked up once for the run.
        var lastStyle: Style?
        var lastPair: Int32 = 0, lastAttributes = STORIES_A_NORMAL
        for change in diff.changes {
            guard let grapheme = change.cell.grapheme else { continue }
            if change.cell.style == lastStyle {
                put(grapheme, x: change.x, y: change.y, attributes: lastAttributes, pair: lastPair)
                lastDrawnCellCount += 1
                continue
            }
            let pair: Int32
            if let allocated = self.pair(for: change.cell.style) {
                pair = allocated
            } else if fallBackWhenFull {
                pair = 0
            } else {
                return false
            }
            let attributes = attributes(change.cell.style.attributes)
            (lastStyle, lastPair, lastAttributes) = (change.cell.style, pair, attributes)
            put(grapheme, x: change.x, y: change.y, attributes: attributes, pair: pair)
            lastDrawnCellCount += 1
        }
        return true
    }

    private func put(_ grapheme: Character, x: Int, y: Int, attributes: attr_t, pair: Int32) {
        // One code point (nearly every cell: blocks, letters): no arrays.
        let scalars = grapheme.unicodeScalars
        if let only = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex, SafeText.isShowable(only) {
            var wide: (wchar_t, wchar_t) = (wchar_t(bitPattern: only.value), 0)
            let refused = withUnsafePointer(to: &wide) { pointer in
                pointer.withMemoryRebound(to: wchar_t.self, capacity: 2) { stories_put_cell(Int32(y), Int32(x), $0, attributes, pair) }
            } == STORIES_REFUSED
            if !refused { return }
        }
        putSlowly(grapheme, x: x, y: y, attributes: attributes, pair: pair)
    }

    private func putSlowly(_ grapheme: Character, x: Int, y: Int, attributes: attr_t, pair: Int32) {
        // Cells hold what `DisplayWidth.forEachCell` gives (one code point that has a width and
        // its marks), so ncurses' wcwidth and the canvas agree on the columns.
        var scalars = Array(grapheme.unicodeScalars)
        if scalars.isEmpty || !SafeText.isShowable(scalars[0]) { scalars = [" "] }
        var wide = scalars.prefix(5).map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        if stories_put_cell(Int32(y), Int32(x), wide, attributes, pair) == STORIES_REFUSED {
            // ncurses refused it (a C library that measures it otherwise than the table):
            // a blank in its place, never the cell that was there before.
            let blank: [wchar_t] = [wchar_t(bitPattern: 0x20), 0]
            _ = stories_put_cell(Int32(y), Int32(x), blank, attributes, pair)
        }
    }

    /// Terminal colours of the RGB colours met so far: animations shade every cell each
    /// frame, and the nearest-palette search was a tenth of a cube frame's cost.
    var colorCache: [Color: Int] = [:]

    func terminalColor(_ color: Color) -> Int {
        guard case .rgb = color, colorDepth != .direct else { return ColorMapping.terminalColor(color, depth: colorDepth) }
        if let known = colorCache[color] { return known }
        if colorCache.count >= 1 << 16 { colorCache.removeAll(keepingCapacity: true) }
        let mapped = ColorMapping.terminalColor(color, depth: colorDepth)
        colorCache[color] = mapped
        return mapped
    }

    private func pair(for style: Style) -> Int32? {
        guard colorDepth != .none else { return 0 }
        let fg = terminalColor(style.foreground)
        let bg = terminalColor(style.background)
        if fg == -1 && bg == -1 { return 0 }
        let key = (Int64(fg) << 32) ^ Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: bg)))
        if let cached = pairCache[key] { return cached }
        guard nextPair <= pairCapacity, nextPair <= Int(Int32.max) else { return nil }
        let pair = Int32(nextPair)
        guard stories_init_pair(pair, Int32(fg), Int32(bg)) == STORIES_OK else { return nil }
        nextPair += 1
        pairCache[key] = pair
        return pair
    }

    private func attributes(_ attributes: Attributes) -> attr_t {
        var result = STORIES_A_NORMAL
        if attributes.contains(.bold) { result |= STORIES_A_BOLD }
        if attributes.contains(.dim) { result |= STORIES_A_DIM }
        if attributes.contains(.italic) { result |= STORIES_A_ITALIC }
        if attributes.contains(.underline) { result |= STORIES_A_UNDERLINE }
        if attributes.contains(.reverse) { result |= STORIES_A_REVERSE }
        return result
    }

    /// The pictures in real pixels over the cells (`--graphics`; none until `showPictures`).
    var pictures = PictureLayer(graphics: .cells)

    /// Frames of a motion were written past ncurses since it last drew.
    var wroteDirectly = false
    /// The bytes of a motion's frame, the buffer kept from frame to frame while it runs.
    var motionBytes: [UInt8] = []
    /// Each colour's palette number below 24 bits, kept from one motion's frame to the next.
    var paletteMemo = PaletteMemo(depth: .none)

    /// VTE (GNOME Terminal, Tilix) reorders right-to-left text itself unless told not to
    /// (BDSM, `CSI 8 l`: explicit mode): the app puts it in order (`bidi = app`), and a
    /// second reordering would turn it back. Restored (`CSI 8 h`) when the terminal is given back.
    public internal(set) var keepsTextOrder = false

    /// The terminal's cursor stands on what has focus (`cursor = focus`, issue 33): screen
    /// readers and braille displays follow it. Off (the default), it is hidden, as before.
    public internal(set) var showsFocus = false
    /// Where the cursor was last put (the focus of the last frame that had one).
    var placedCursor: Canvas.Spot?

    /// The cursor hides while a motion plays (nothing has focus there) and shows at rest.
    var cursorShown = true
}
