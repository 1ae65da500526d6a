import StoriesCells

/// How picture cells are drawn.
public enum CellSymbols: String, Sendable, CaseIterable {
    /// `▀`: one cell shows two pixels, top (foreground) and bottom (background).
    case half
    /// Quadrant blocks (`▘▝▖▗▚▞▛▜▙▟▀▄▌▐`): one cell shows 2×2 pixels in two colours.
    case quad

    /// Output pixels per cell.
    public var pixelsPerCell: (x: Int, y: Int) { self == .half ? (1, 2) : (2, 2) }
}

/// One cell of a rendered picture.
public struct ImageCell: Equatable, Sendable {
    public var glyph: Character
    public var foreground: Color
    public var background: Color

    public init(glyph: Character, foreground: Color, background: Color) {
        self.glyph = glyph
        self.foreground = foreground
        self.background = background
    }

    /// The same glyph, and each colour within `tolerance` levels on every channel (0: equal).
    public func isClose(to other: ImageCell, within tolerance: Int) -> Bool {
        guard tolerance > 0 else { return self == other }
        return foreground.isClose(to: other.foreground, within: tolerance)
            && background.isClose(to: other.background, within: tolerance) && glyph == other.glyph
    }
}

extension Color {
    /// The palette number, for a palette colour.
    var paletteIndex: Int? {
        if case .palette(let index) = self { return Int(index) }
        return nil
    }
}

/// A picture as terminal cells for one cell size, colour depth and symbol set: what the
/// viewer draws and `stories print` writes.
public struct CellImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public let cells: [ImageCell]

    public subscript(x: Int, y: Int) -> ImageCell { cells[y * width + x] }

    /// Cells already laid out in rows (`cells.count == width * height`).
    public init(width: Int, height: Int, cells: [ImageCell]) {
        precondition(width >= 0 && height >= 0 && cells.count == width * height, "cells do not fill the picture")
        self.width = width
        self.height = height
        self.cells = cells
    }

    /// The next frame of a moving picture as it should be shown after this one: `next`,
    /// except that a cell within `tolerance` of this one's stays as it is, so the terminal
    /// has nothing to rewrite there. Every cell of the result is within `tolerance` of
    /// `next` (the error never adds up from frame to frame). A different size is `next`.
    public func settled(toward next: CellImage, tolerance: Int) -> CellImage {
        guard tolerance > 0, next.width == width, next.height == height else { return next }
        var cells = next.cells
        for index in cells.indices where self.cells[index].isClose(to: cells[index], within: tolerance) {
            cells[index] = self.cells[index]
        }
        return CellImage(width: width, height: height, cells: cells)
    }

    /// Bytes this rendition holds, roughly (for cache budgets).
    public var byteCount: Int { cells.count * MemoryLayout<ImageCell>.stride }

    /// Renders pixels that were scaled to exactly `width × pixelsPerCell.x` by
    /// `height × pixelsPerCell.y`. `dither` (stills: photos, posters, BlurHash placeholders;
    /// not video, where it would shimmer from frame to frame) mixes each pixel's two nearest
    /// palette colours in 256 and 16 colours (`ditheredIndices`: an 8×8 Bayer matrix at the
    /// pixel grid, two pixels a cell), so gradients do not band and a flat colour the palette
    /// lacks keeps its hue as a mix of two it has. Eight colours get shading with colour
    /// hints instead: a shade glyph for the brightness, drawn in the nearest hue.
    /// `subject` (output pixels) is where a fitted picture lies over its backdrop: only it is
    /// dithered, and in eight colours or none the backdrop is left black (a shaded or mixed
    /// backdrop only competes with the picture).
    public init(pixels image: RGBImage, symbols: CellSymbols, depth: ColorDepth, dither: Bool = false,
                subject: (x: Int, y: Int, width: Int, height: Int)? = nil) {
        let (px, py) = symbols.pixelsPerCell
        width = image.width / px
        height = image.height / py
        var cells: [ImageCell] = []
        cells.reserveCapacity(width * height)
        // Whether a cell (its first pixel) is in the picture rather than its backdrop.
        func inSubject(_ x: Int, _ y: Int) -> Bool {
            guard let subject else { return true }
            let cx = x * px + px / 2, cy = y * py + py / 2
            return cx >= subject.x && cx < subject.x + subject.width && cy >= subject.y && cy < subject.y + subject.height
        }
        if depth == .eight || (depth == .none && subject != nil) {
            for y in 0..<height {
                for x in 0..<width {
                    guard inSubject(x, y) else {
                        cells.append(ImageCell(glyph: " ", foreground: depth == .none ? .default : .palette(0),
                                               background: depth == .none ? .default : .palette(0)))
                        continue
                    }
                    let block = (0..<py).flatMap { dy in (0..<px).map { dx in image[x * px + dx, y * py + dy] } }
                    cells.append(depth == .eight ? Self.shadedHint(Self.mean(block)) : Self.cell(for: block, symbols: symbols, depth: depth))
                }
            }
            self.cells = cells
            return
        }
        if dither, depth == .palette256 || depth == .sixteen {
            var indices = Self.ditheredIndices(image, depth: depth)
            if let subject {
                // The backdrop in plain nearest colours: calm, not mixed (a few flat bands: each
                // colour searched once).
                var memo = ColorMapping.Nearest256Memo()
                for y in 0..<image.height {
                    for x in 0..<image.width where !(x >= subject.x && x < subject.x + subject.width && y >= subject.y && y < subject.y + subject.height) {
                        let i = (y * image.width + x) * 3
                        let (r, g, b) = (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
                        indices[y * image.width + x] = depth == .palette256 ? UInt8(memo.nearest(r, g, b))
                            : UInt8(Self.color(RGBPixel(r, g, b), depth).paletteIndex ?? 0)
                    }
                }
            }
            if symbols == .half {
                let w = image.width
                for y in 0..<height {
                    for x in 0..<width {
                        cells.append(ImageCell(glyph: "▀", foreground: .palette(indices[(2 * y) * w + x]),
                                               background: .palette(indices[(2 * y + 1) * w + x])))
                    }
                }
                self.cells = cells
                return
            }
            // Quadrants: the split is chosen on the dithered colours.
            var quantised = image
            for (i, index) in indices.enumerated() {
                let (r, g, b) = ColorMapping.rgb(ofPaletteIndex: index)
                quantised.pixels[i * 3] = r; quantised.pixels[i * 3 + 1] = g; quantised.pixels[i * 3 + 2] = b
            }
            for y in 0..<height {
                for x in 0..<width {
                    let block = (0..<py).flatMap { dy in (0..<px).map { dx in quantised[x * px + dx, y * py + dy] } }
                    cells.append(Self.cell(for: block, symbols: symbols, depth: depth))
                }
            }
            self.cells = cells
            return
        }
        if symbols == .half, depth != .none {
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
            self.cells = cells
            return
        }
        for y in 0..<height {
            for x in 0..<width {
                let block = (0..<py).flatMap { dy in (0..<px).map { dx in image[x * px + dx, y * py + dy] } }
                cells.append(Self.cell(for: block, symbols: symbols, depth: depth))
            }
        }
        self.cells = cells
    }

    /// Scales and renders in one step: a still picture fitted into `width`×`height` cells
    /// (dithered where the palette is short of colours).
    public init(_ image: RGBImage, width: Int, height: Int, symbols: CellSymbols = .half, depth: ColorDepth,
                fit: FitMode = .fill, cellAspect: Double = 0.5, dither: Bool = true) {
        let (px, py) = symbols.pixelsPerCell
        // A cell is `cellAspect` as wide as it is tall; each output pixel is a slice of it.
        let pixelAspect = cellAspect * Double(py) / Double(px)
        let scaled = ImageScaler.scale(image, width: width * px, height: height * py, fit: fit, pixelAspect: pixelAspect)
        let subject = fit == .fit ? ImageScaler.fitRect(imageWidth: image.width, imageHeight: image.height, width: width * px,
                                                        height: height * py, pixelAspect: pixelAspect) : nil
        self.init(pixels: scaled, symbols: symbols, depth: depth, dither: dither, subject: subject)
    }

    /// Palette indices for every pixel, mixing the two palette colours nearest to it in the
    /// share that averages back to it, by position in an 8×8 Bayer matrix (ordered
    /// dithering). A pixel is only ever drawn in one of its two nearest colours: gradients
    /// do not band and a colour the palette lacks keeps its hue, but no far-off colour is
    /// ever reached (error diffusion put red and green specks into dark greys: its error
    /// runs on until it jumps to a bright cube colour), and a still picture drawn again is
    /// drawn the same.
    static func ditheredIndices(_ image: RGBImage, depth: ColorDepth) -> [UInt8] {
        let w = image.width, h = image.height
        var indices = [UInt8](repeating: 0, count: w * h)
        var memo = ColorMapping.Nearest256Memo()
        func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
            let r8 = UInt8(max(0, min(255, r))), g8 = UInt8(max(0, min(255, g))), b8 = UInt8(max(0, min(255, b)))
            return depth == .sixteen ? ColorMapping.terminalColor(.rgb(r8, g8, b8), depth: .sixteen) : memo.nearest(r8, g8, b8)
        }
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 3
                let r = Int(image.pixels[i]), g = Int(image.pixels[i + 1]), b = Int(image.pixels[i + 2])
                let first = nearest(r, g, b)
                let (fr, fg, fb) = ColorMapping.rgb(ofPaletteIndex: UInt8(first))
                // The colour on the far side of the pixel from the nearest one.
                let er = r - Int(fr), eg = g - Int(fg), eb = b - Int(fb)
                let second = nearest(r + er, g + eg, b + eb)
                var index = first
                if second != first {
                    let (sr, sg, sb) = ColorMapping.rgb(ofPaletteIndex: UInt8(second))
                    let dr = Int(sr) - Int(fr), dg = Int(sg) - Int(fg), db = Int(sb) - Int(fb)
                    let span = dr * dr + dg * dg + db * db
                    // How far along from the first to the second the pixel lies (0…½).
                    let along = span > 0 ? Double(er * dr + eg * dg + eb * db) / Double(span) : 0
                    if along > bayer8[(y % 8) * 8 + x % 8] { index = second }
                }
                indices[y * w + x] = UInt8(index)
            }
        }
        return indices
    }

    /// Thresholds 0…1 of the 8×8 Bayer matrix.
    static let bayer8: [Double] = {
        var m = [0]
        var size = 1
        while size < 8 {
            var next = [Int](repeating: 0, count: 4 * size * size)
            for y in 0..<size {
                for x in 0..<size {
                    let v = 4 * m[y * size + x]
                    next[y * 2 * size + x] = v
                    next[y * 2 * size + x + size] = v + 2
                    next[(y + size) * 2 * size + x] = v + 3
                    next[(y + size) * 2 * size + x + size] = v + 1
                }
            }
            m = next
            size *= 2
        }
        return m.map { (Double($0) + 0.5) / 64 }
    }()

    /// Eight colours: the brightness as a shade glyph (` ░▒▓█`) on black, drawn in the
    /// nearest of the six hues (or white, for greys), so a photo reads as a tinted drawing
    /// rather than as blotches of the eight colours.
    static func shadedHint(_ p: RGBPixel) -> ImageCell {
        let r = Int(p.r), g = Int(p.g), b = Int(p.b)
        let luma = (299 * r + 587 * g + 114 * b) / 1000
        // Dark is black (a backdrop, a shadow), then four shades up to full.
        let glyph = luma < 48 ? shades[0] : shades[1 + min(3, (luma - 48) * 4 / 208)]
        let high = max(r, g, b), low = min(r, g, b)
        var hue: UInt8 = 7 // white: greys, and colours too faint to name (skin reads better so than red)
        if high > 40, (high - low) * 10 >= 4 * high {
            // Which channels stand out: one (red, green, blue) or two (yellow, cyan, magenta).
            let threshold = low + (high - low) / 2
            let bits = (r > threshold ? 1 : 0) | (g > threshold ? 2 : 0) | (b > threshold ? 4 : 0)
            hue = [7, 1, 2, 3, 4, 5, 6, 7][bits]
        }
        return ImageCell(glyph: glyph, foreground: .palette(hue), background: .palette(0))
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
        case .quad:
            // Pick the split of the four pixels into two groups with the least colour error.
            var best = (mask: 0, error: Int.max, on: block[0], off: block[0])
            for mask in 1..<8 { // 1…7 and their complements cover every two-group split
                var on: [RGBPixel] = [], off: [RGBPixel] = []
                for (i, p) in block.enumerated() { if mask & (1 << i) != 0 { on.append(p) } else { off.append(p) } }
                let a = mean(on), b = mean(off)
                let error = on.reduce(0) { $0 + distance($1, a) } + off.reduce(0) { $0 + distance($1, b) }
                if error < best.error { best = (mask, error, a, b) }
            }
            if block.allSatisfy({ $0 == block[0] }) {
                let only = color(block[0], depth)
                return ImageCell(glyph: "█", foreground: only, background: only)
            }
            return ImageCell(glyph: quadrantGlyphs[best.mask], foreground: color(best.on, depth), background: color(best.off, depth))
        }
    }

    static func color(_ p: RGBPixel, _ depth: ColorDepth) -> Color {
        switch depth {
        case .direct, .none: .rgb(p.r, p.g, p.b)
        // A picture's pixels: the nearest colour (its neighbours carry the error when dithered).
        case .palette256: .palette(UInt8(ColorMapping.nearest256(p.r, p.g, p.b)))
        default: .palette(UInt8(ColorMapping.terminalColor(.rgb(p.r, p.g, p.b), depth: depth)))
        }
    }

    static func mean(_ pixels: [RGBPixel]) -> RGBPixel {
        guard !pixels.isEmpty else { return RGBPixel(0, 0, 0) }
        let n = pixels.count
        let r = pixels.reduce(0) { $0 + Int($1.r) }, g = pixels.reduce(0) { $0 + Int($1.g) }, b = pixels.reduce(0) { $0 + Int($1.b) }
        return RGBPixel(UInt8((r + n / 2) / n), UInt8((g + n / 2) / n), UInt8((b + n / 2) / n))
    }

    static func distance(_ a: RGBPixel, _ b: RGBPixel) -> Int {
        let dr = Int(a.r) - Int(b.r), dg = Int(a.g) - Int(b.g), db = Int(a.b) - Int(b.b)
        return dr * dr + dg * dg + db * db
    }
}
