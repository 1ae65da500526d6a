import StoriesCells

// Rendering pixels into cells: the symbol picker's choice for each cell.
extension CellImage {
    /// Renders pixels that were scaled to exactly `width × pixelsPerCell.x` by
    /// `height × pixelsPerCell.y`: each cell through the `SymbolPicker` (the symbol and two
    /// colours with the least error; in 256 colours the nearest palette pair, never
    /// dithered — an ordered dither covered smooth photos in specks and lowered every
    /// measure of likeness, `stories bench fidelity`; in 16 and 8 every pair of the palette,
    /// scored by likeness in luma and RGB error, `SymbolPicker.shortPaletteCell`).
    /// `subject` (output pixels) is where a fitted picture lies over its backdrop: in 256
    /// colours the backdrop is one flat colour (its blur would band into rings), in 16 or 8
    /// colours or none it is black (a grey or shaded backdrop only competes with the picture).
    /// `everySplit`: each cell's every split is tried (stills); false tries only the cuts
    /// between its darker and lighter pixels (video frames, within their time).
    /// `fine`: the pixels were scaled to `CellImage.finePixels(symbols)` a cell instead, and
    /// each cell may also be cut at an eighth (a still in a set richer than half blocks; the
    /// caller keeps to `fineCellLimit`, as the scaling init does).
    /// `palette`: the terminal's 16 colours, which 8 and 16 colours are picked among.
    public init(pixels image: RGBImage, symbols: CellSymbols, depth: ColorDepth,
                subject: (x: Int, y: Int, width: Int, height: Int)? = nil, everySplit: Bool = true, fine: Bool = false,
                palette: TerminalPalette = .xterm) {
        self = Self.rendered(image, symbols: symbols, depth: depth, subject: subject, everySplit: everySplit, fine: fine, palette: palette)
    }

    private static func rendered(_ image: RGBImage, symbols: CellSymbols, depth: ColorDepth,
                                 subject: (x: Int, y: Int, width: Int, height: Int)?, everySplit: Bool, fine: Bool,
                                 palette: TerminalPalette) -> CellImage {
        let fine = fine && Self.takesFinePixels(symbols: symbols, depth: depth)
        let (px, py) = fine ? Self.finePixels(symbols) : symbols.pixelsPerCell
        let width = image.width / px
        let height = image.height / py
        var cells: [ImageCell] = []
        cells.reserveCapacity(width * height)
        // Whether a cell (its first pixel) is in the picture rather than its backdrop.
        func inSubject(_ x: Int, _ y: Int) -> Bool {
            guard let subject else { return true }
            let cx = x * px + px / 2, cy = y * py + py / 2
            return cx >= subject.x && cx < subject.x + subject.width && cy >= subject.y && cy < subject.y + subject.height
        }
        if depth == .none && subject != nil {
            for y in 0..<height {
                for x in 0..<width {
                    guard inSubject(x, y) else {
                        cells.append(ImageCell(glyph: " ", foreground: .default, background: .default))
                        continue
                    }
                    let block = (0..<py).flatMap { dy in (0..<px).map { dx in image[x * px + dx, y * py + dy] } }
                    cells.append(Self.cell(for: block, symbols: symbols, depth: depth))
                }
            }
            return CellImage(width: width, height: height, cells: cells)
        }
        if symbols == .half, depth == .direct {
            // The common case (every video frame): two pixels a cell, read straight from the
            // buffer with no per-cell arrays.
            let w = image.width, pixels = image.pixels
            var memo = ColorMapping.Nearest256Memo()
            func color(_ i: Int) -> Color {
                depth == .palette256 ? .palette(UInt8(memo.nearest(pixels[i], pixels[i + 1], pixels[i + 2])))
                    : Self.color(RGBPixel(pixels[i], pixels[i + 1], pixels[i + 2]), depth)
            }
            for y in 0..<height {
                for x in 0..<width {
                    let top = ((2 * y) * w + x) * 3, bottom = ((2 * y + 1) * w + x) * 3
                    cells.append(ImageCell(glyph: "▀", foreground: color(top), background: color(bottom)))
                }
            }
            return CellImage(width: width, height: height, cells: cells)
        }
        if depth == .none {
            for y in 0..<height {
                for x in 0..<width {
                    let block = (0..<py).flatMap { dy in (0..<px).map { dx in image[x * px + dx, y * py + dy] } }
                    cells.append(Self.cell(for: block, symbols: symbols, depth: depth))
                }
            }
            return CellImage(width: width, height: height, cells: cells)
        }
        var picked = Self.picked(image, width: width, height: height, symbols: symbols, depth: depth, palette: palette, everySplit: everySplit,
                                 fine: fine)
        if let subject, depth == .palette256 || depth == .sixteen || depth == .eight {
            // In a short palette the blurred backdrop would come out in bands of flat colour,
            // ring after ring round the photo: it is one colour instead, the nearest to its
            // mean, as calm as the blur it stands for.
            var sum = (0, 0, 0), count = 0
            for y in 0..<image.height {
                for x in 0..<image.width where !(x >= subject.x && x < subject.x + subject.width && y >= subject.y && y < subject.y + subject.height) {
                    let i = (y * image.width + x) * 3
                    sum.0 += Int(image.pixels[i]); sum.1 += Int(image.pixels[i + 1]); sum.2 += Int(image.pixels[i + 2])
                    count += 1
                }
            }
            if count > 0 {
                // Sixteen and eight colours have no dark tone of a hue: the nearest was a mid
                // grey that outshone the photo; black there.
                let flat = depth == .sixteen || depth == .eight ? Color.palette(0)
                    : Self.color(RGBPixel(UInt8(sum.0 / count), UInt8(sum.1 / count), UInt8(sum.2 / count)), depth)
                let cell = ImageCell(glyph: symbols == .half ? "▀" : "█", foreground: flat, background: flat)
                for y in 0..<height { for x in 0..<width where !inSubject(x, y) { picked[y * width + x] = cell } }
            }
        }
        return CellImage(width: width, height: height, cells: picked)
    }

    /// Every cell through the symbol picker: the symbol of the set and the two colours with
    /// the least error against its pixels — from the set's grid of pixels, or, `fine`, from
    /// `finePixels` a cell, where it may also be cut at an eighth.
    static func picked(_ image: RGBImage, width: Int, height: Int, symbols: CellSymbols, depth: ColorDepth,
                       palette: TerminalPalette = .xterm, everySplit: Bool = true, fine: Bool = false) -> [ImageCell] {
        var picker = SymbolPicker(symbols: symbols, depth: depth, palette: palette, exhaustive: everySplit)
        if picker.shortCost != nil { picker.neighbours = ShortNeighbours(width: width) }
        let (px, py) = fine ? finePixels(symbols) : symbols.pixelsPerCell
        let n = px * py, w = image.width
        var cells: [ImageCell] = []
        cells.reserveCapacity(width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * n) { sub in
                guard let base = sub.baseAddress else { return }
                let (r, g, b) = (base, base + n, base + 2 * n)
                for y in 0..<height {
                    for x in 0..<width {
                        var i = 0
                        for dy in 0..<py {
                            var at = ((y * py + dy) * w + x * px) * 3
                            for _ in 0..<px {
                                r[i] = Float(pixels[at]); g[i] = Float(pixels[at + 1]); b[i] = Float(pixels[at + 2])
                                at += 3
                                i += 1
                            }
                        }
                        cells.append(fine ? picker.cell(fine: r, g, b, rows: py) : picker.cell(r, g, b))
                    }
                }
            }
        }
        return cells
    }

    /// Pixels a cell for a still cut at eighths as well as by its set's grid: 8 across, and
    /// 8 down — 12 for sextants, whose thirds need it (there, across, the cuts are at
    /// quarters: 24 rows took half as long again for a gain too small to see).
    public static func finePixels(_ symbols: CellSymbols) -> (x: Int, y: Int) {
        symbols == .sextant ? (8, 12) : (8, 8)
    }

    /// Whether a still in this set and depth is made from fine pixels (not half blocks, whose
    /// cells are two pixels; not no colours, which shade; not a picture of more
    /// than `fineCellLimit` cells, whose fine pixels would take hundreds of megabytes —
    /// `print --size 1000x1000` — and which keeps to the grid as a video frame does).
    public static func takesFinePixels(symbols: CellSymbols, depth: ColorDepth, cells: Int = 0) -> Bool {
        symbols != .half && depth != .none && cells <= fineCellLimit
    }

    /// The most cells a still is made from fine pixels for: a 400×100 terminal's screen
    /// (about 11 MB of pixels at 8×12 a cell, and the scaler's rows of floats beside them).
    public static let fineCellLimit = 40_000

    /// The pixels a cell a still is scaled to, and so decoded at least at: fine pixels where
    /// they are taken, else the set's grid.
    public static func pixelsPerCell(symbols: CellSymbols, depth: ColorDepth, cells: Int) -> (x: Int, y: Int) {
        takesFinePixels(symbols: symbols, depth: depth, cells: cells) ? finePixels(symbols) : symbols.pixelsPerCell
    }

    /// Scales and renders in one step: a still picture fitted into `width`×`height` cells.
    /// `eighths`: false keeps to the set's grid (a BlurHash, which has no edge to place).
    public init(_ image: RGBImage, width: Int, height: Int, symbols: CellSymbols = .half, depth: ColorDepth,
                fit: FitMode = .fill, cellAspect: Double = 0.5, eighths: Bool = true, palette: TerminalPalette = .xterm) {
        let fine = eighths && Self.takesFinePixels(symbols: symbols, depth: depth, cells: width * height)
        let (px, py) = fine ? Self.finePixels(symbols) : symbols.pixelsPerCell
        // A cell is `cellAspect` as wide as it is tall; each output pixel is a slice of it.
        let pixelAspect = cellAspect * Double(py) / Double(px)
        let scaled = ImageScaler.scale(image, width: width * px, height: height * py, fit: fit, pixelAspect: pixelAspect)
        let subject = fit == .fit ? ImageScaler.fitRect(imageWidth: image.width, imageHeight: image.height, width: width * px,
                                                        height: height * py, pixelAspect: pixelAspect) : nil
        self.init(pixels: scaled, symbols: symbols, depth: depth, subject: subject, fine: fine, palette: palette)
    }

    static let quadrantGlyphs: [Character] = [" ", "▘", "▝", "▀", "▖", "▌", "▞", "▛", "▗", "▚", "▐", "▜", "▄", "▙", "▟", "█"]
    static let shades: [Character] = [" ", "░", "▒", "▓", "█"]

    static func cell(for block: [RGBPixel], symbols: CellSymbols, depth: ColorDepth) -> ImageCell {
        if depth == .none {
            // No colours: shade by brightness.
            let luma = block.map { 0.299 * Double($0.r) + 0.587 * Double($0.g) + 0.114 * Double($0.b) }.reduce(0, +) / Double(block.count)
            let index = min(shades.count - 1, Int(luma / 256 * Double(shades.count)))
            return ImageCell(glyph: shades[index], foreground: .default, background: .default)
        }
        switch symbols {
        case .half:
            return ImageCell(glyph: "▀", foreground: color(block[0], depth), background: color(block[1], depth))
        case .quad, .sextant, .octant:
            var picker = SymbolPicker(symbols: symbols, depth: depth)
            let r = block.map { Float($0.r) }, g = block.map { Float($0.g) }, b = block.map { Float($0.b) }
            return r.withUnsafeBufferPointer { r in
                g.withUnsafeBufferPointer { g in
                    b.withUnsafeBufferPointer { b in
                        guard let r = r.baseAddress, let g = g.baseAddress, let b = b.baseAddress else {
                            return ImageCell(glyph: " ", foreground: .default, background: .default)
                        }
                        return picker.cell(r, g, b)
                    }
                }
            }
        }
    }

    static func color(_ p: RGBPixel, _ depth: ColorDepth) -> Color {
        switch depth {
        case .direct, .none: .rgb(p.r, p.g, p.b)
        // A picture's pixels: the nearest colour.
        case .palette256: .palette(UInt8(ColorMapping.nearest256(p.r, p.g, p.b)))
        default: .palette(UInt8(ColorMapping.terminalColor(.rgb(p.r, p.g, p.b), depth: depth)))
        }
    }

    static func distance(_ a: RGBPixel, _ b: RGBPixel) -> Int {
        let dr = Int(a.r) - Int(b.r), dg = Int(a.g) - Int(b.g), db = Int(a.b) - Int(b.b)
        return dr * dr + dg * dg + db * db
    }
}
