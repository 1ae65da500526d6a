import StoriesFeedIO
import StoriesCells
import ArgumentParser
import Foundation
import StoriesCore
import StoriesMedia
import StoriesTerminal
import StoriesCommandLine

/// `stories print FILE`: the photo pipeline on its own, writing ANSI text to stdout. A quick
/// preview, and the honest way to compare with chafa and timg on the same work.
struct PrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Render a JPEG, PNG, WebP or GIF as coloured terminal cells on standard output.",
        discussion: "An animated GIF is printed as its first frame; `stories play FILE` plays it, each frame for its own delay."
    )

    @Argument(help: "The image file (JPEG, PNG, WebP or GIF — an animation's first frame —, recognised by content).")
    var file: String

    @OptionGroup var cells: CellOptions

    @Option(help: ArgumentHelp("cells (the default), or real pixels: sixel (xterm -ti vt340, foot, mlterm, WezTerm, Konsole), kitty (kitty, Ghostty, WezTerm, Konsole) or iterm (iTerm2, WezTerm, mintty); `stories doctor` says which this terminal shows.", valueName: "kind"))
    var graphics = "cells"

    func validate() throws {
        guard GraphicsProtocol(name: graphics) != nil else {
            throw ValidationError("--graphics takes \(GraphicsProtocol.allCases.map(\.rawValue).joined(separator: ", ")); got '\(SafeText.line(graphics))'")
        }
    }

    mutating func run() throws {
        try Self.run(file: file, options: cells.settings, graphics: GraphicsProtocol(name: graphics) ?? .cells)
    }

    /// The photo in real pixels, sized in cells as the cells would be (the cell's size in
    /// pixels from the terminal, else 10×20), written at the cursor with a new line after.
    static func printPixels(_ data: Data, name: String, options: CellSettings, graphics: GraphicsProtocol) throws {
        let (columns, rows) = try options.cellSize()
        let cell = terminalCellPixels() ?? .standard
        let frame = (width: min(4000, columns * cell.width), height: min(4000, rows * cell.height))
        let image: RGBImage
        do { image = try ImageDecoder.decode(data, minimumSize: frame) } catch {
            throw fail("\(SafeText.line(name)): \(error)")
        }
        let picture: RGBImage
        if options.fit == .fit {
            let inner = ImageScaler.fitRect(imageWidth: image.width, imageHeight: image.height, width: frame.width,
                                            height: frame.height, pixelAspect: 1)
            picture = ImageScaler.scale(image, width: inner.width, height: inner.height, fit: .fill)
        } else {
            picture = ImageScaler.scale(image, width: frame.width, height: frame.height, fit: .fill)
        }
        // The cells it covers, for the protocols sized in cells.
        let across = (picture.width + cell.width - 1) / cell.width, down = (picture.height + cell.height - 1) / cell.height
        let bytes = PictureEncoding.bytes(picture, as: graphics, columns: across, rows: down, throughTmux: try kittyThroughTmux(graphics))
        guard !bytes.isEmpty else { throw fail("\(SafeText.line(name)): the picture could not be encoded") }
        PlayCommand.write(bytes + Array("\n".utf8))
        if let damage = image.damage { FileWrites.sayOnStandardError("stories: \(SafeText.line(name)): \(damage)") }
    }

    /// Whether `graphics` is kitty inside tmux, to be written through its passthrough as
    /// placeholders (the only kitty pictures tmux keeps). Refused with how to allow it when
    /// tmux passes nothing through (nothing would show); a warning when the terminal outside
    /// is not known to draw placeholders (kitty 0.28 or later, Ghostty).
    static func kittyThroughTmux(_ graphics: GraphicsProtocol) throws -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard graphics == .kitty, TmuxClient.inside(environment) else { return false }
        let tmux = TmuxClient.ask(environment: environment)
        if tmux?.passthrough == false {
            throw fail("inside tmux, which passes no pictures through: `tmux set -g allow-passthrough on` lets them (or --graphics cells)")
        }
        if let outside = tmux?.terminalType, !GraphicsChoice.drawsPlaceholders(version: outside) {
            FileWrites.sayOnStandardError("stories: the terminal outside tmux (\(outside.isEmpty ? "it did not say which" : outside)) may not draw kitty's Unicode placeholders (kitty 0.28 or later and Ghostty do)")
        }
        return true
    }

    /// The whole command, from parsed values (the fast path in main.swift comes here too).
    static func run(file: String, options: CellSettings, graphics: GraphicsProtocol = .cells) throws {
        let data: Data
        do { data = try ImageDecoder.readFile(at: URL(fileURLWithPath: file)) } catch {
            throw fail("\(SafeText.line(file)): \(error)")
        }
        try graphics.showsPixels ? printPixels(data, name: file, options: options, graphics: graphics)
            : printPhoto(data, name: file, options: options)
    }

    /// Decodes a photo at the size it will be shown and writes it as cells to stdout.
    static func printPhoto(_ data: Data, name: String, options: CellSettings) throws {
        let (width, height) = try options.cellSize()
        let depth = try options.colorDepth()
        // The pixels each cell is made from (fine pixels for a still's eighths).
        let (px, py) = CellImage.pixelsPerCell(symbols: options.symbols, depth: depth, cells: width * height)
        let cellAspect = terminalCellAspect() ?? 0.5
        let pixelAspect = cellAspect * Double(py) / Double(px)
        // Decode at least as large as the pixels shown, in both directions.
        let minimum = (width: Int((Double(width * px) * max(1, pixelAspect)).rounded(.up)),
                       height: Int((Double(height * py) / min(1, pixelAspect)).rounded(.up)))
        let image: RGBImage
        do {
            // A GIF is drawn as its first frame (FFmpeg's); `stories play` plays one.
            image = VideoContainer.sniff(data) == .gif ? try StillDecoder.decode(data, minimumSize: minimum)
                : try ImageDecoder.decode(data, minimumSize: minimum)
        } catch {
            throw fail("\(SafeText.line(name)): \(error)")
        }
        var (columns, rows) = (width, height)
        if options.size == nil, options.fit == .fit {
            // Sized by the terminal: the picture's own shape within it, with no bars, so a
            // portrait photo in a wide terminal takes its width and no more.
            (columns, rows) = fittedCells(imageWidth: image.width, imageHeight: image.height, within: (width, height),
                                          cellAspect: cellAspect)
        }
        // The palette of the terminal's kind (print asks the terminal nothing of its colours).
        let cells = CellImage(image, width: columns, height: rows, symbols: options.symbols, depth: depth, fit: options.fit,
                              cellAspect: cellAspect, palette: .defaults(term: ProcessInfo.processInfo.environment["TERM"] ?? ""))
        PlayCommand.write(ANSIWriter.bytes(of: cells, depth: depth))
        // Shown as far as it decoded, and said (on stderr: stdout is the picture alone).
        if let damage = image.damage { FileWrites.sayOnStandardError("stories: \(SafeText.line(name)): \(damage)") }
    }
}

/// The options `print` and `play` share: the size in cells, the colours, the symbols, fill or fit.
struct CellOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Size in cells, WxH (default: the terminal's size, or 80x40).", valueName: "WxH"))
    var size: String?

    @Option(help: "Colours: truecolor, 256, 16, 8 or none (default: what the terminal says it has).")
    var colors: String?

    @Option(help: ArgumentHelp("Cell symbols: auto (the default: the richest set the terminal is known to draw), half (▀, 1×2 pixels a cell), quad (quadrants, 2×2), sextant (2×3) or octant (2×4); each cell the symbol and two colours nearest its pixels.", valueName: "set"))
    var symbols = "auto"

    @Option(help: "fit shows the whole picture (a photo over a blurred, darkened copy of itself; a video on black); fill crops it to the size, keeping the subject.")
    var fit: FitMode = .fit

    func validate() throws {
        _ = try settings.cellSize()
        _ = try settings.colorDepth()
        guard CellSymbols.names.contains(symbols.lowercased()) else {
            throw ValidationError("--symbols takes \(CellSymbols.names.joined(separator: ", ")); got '\(SafeText.line(symbols))'")
        }
    }

    /// The same as plain values (an option group can only be read once parsed).
    var settings: CellSettings {
        CellSettings(size: size, colors: colors,
                     symbols: CellSymbols.named(symbols, environment: ProcessInfo.processInfo.environment) ?? .half, fit: fit)
    }
}

/// What `print` and `play` were asked for, as plain values.
struct CellSettings {
    var size: String?
    var colors: String?
    var symbols: CellSymbols = .half
    var fit: FitMode = .fit

    func cellSize() throws -> (Int, Int) {
        if let size { return try parseSize(size) }
        return PrintCommand.terminalSize()
    }

    func colorDepth() throws -> ColorDepth { try PrintCommand.colorDepth(colors) }
}

extension PrintCommand {
    /// The terminal's size less two lines (the command stays in view above the picture, and
    /// the next prompt below it), or 80×40 when standard output is not a terminal.
    static func terminalSize() -> (Int, Int) {
        var ws = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 2 {
            return (Int(ws.ws_col), Int(ws.ws_row) - 2)
        }
        return (80, 40)
    }

    /// The cells a picture of this many pixels takes, whole and as large as fits the box,
    /// for cells `cellAspect` as wide as they are tall.
    static func fittedCells(imageWidth: Int, imageHeight: Int, within box: (width: Int, height: Int), cellAspect: Double) -> (Int, Int) {
        guard imageWidth > 0, imageHeight > 0, cellAspect > 0 else { return box }
        // Columns per row the picture's shape needs.
        let shape = Double(imageWidth) / Double(imageHeight) / cellAspect
        if Double(box.width) / Double(box.height) > shape {
            return (max(1, min(box.width, Int((Double(box.height) * shape).rounded()))), box.height)
        }
        return (box.width, max(1, min(box.height, Int((Double(box.width) / shape).rounded()))))
    }

    static func colorDepth(_ colors: String?) throws -> ColorDepth {
        if let colors, let depth = ColorDepth(name: colors) { return depth }
        switch colors {
        case nil:
            func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
            // NO_COLOR, or a terminal that says it is dumb: shading, no escape sequence at all.
            if !(environment("NO_COLOR") ?? "").isEmpty || environment("TERM") == "dumb" { return .none }
            let colorterm = environment("COLORTERM")?.lowercased()
            if colorterm == "truecolor" || colorterm == "24bit" || (environment("TERM") ?? "").hasSuffix("-direct") { return .direct }
            return .palette256
        case let other?:
            throw ValidationError("--colors takes truecolor, 256, 16, 8 or none; got '\(other)'")
        }
    }

    /// Cell width over height from the terminal's pixel size, when it reports one.
    static func terminalCellAspect() -> Double? {
        var ws = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_xpixel > 0, ws.ws_ypixel > 0,
              ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return (Double(ws.ws_xpixel) / Double(ws.ws_col)) / (Double(ws.ws_ypixel) / Double(ws.ws_row))
    }

    /// A cell's size in whole pixels from the terminal's pixel size, when it reports one.
    /// (Bounded as `CellPixels` is: a size a terminal could not have is none.)
    static func terminalCellPixels(of descriptor: Int32 = STDOUT_FILENO) -> CellPixels? {
        var ws = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_xpixel > 0, ws.ws_ypixel > 0,
              ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return CellPixels(width: Int(ws.ws_xpixel) / Int(ws.ws_col), height: Int(ws.ws_ypixel) / Int(ws.ws_row))
    }
}
