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
    /// Within `tolerance` levels on every channel; palette and default colours only when equal.
    public func isClose(to other: Color, within tolerance: Int) -> Bool {
        guard tolerance > 0, case .rgb(let r1, let g1, let b1) = self, case .rgb(let r2, let g2, let b2) = other else {
            return self == other
        }
        return abs(Int(r1) - Int(r2)) <= tolerance && abs(Int(g1) - Int(g2)) <= tolerance && abs(Int(b1) - Int(b2)) <= tolerance
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
    /// `height × pixelsPerCell.y`.
    public init(pixels image: RGBImage, symbols: CellSymbols, depth: ColorDepth) {
        let (px, py) = symbols.pixelsPerCell
        width = image.width / px
        height = image.height / py
        var cells: [ImageCell] = []
        cells.reserveCapacity(width * height)
        if symbols == .half, depth != .none {
            // The common case (every video frame): two pixels a cell, read straight from the
            // buffer with no per-cell arrays.
            let w = image.width, pixels = image.pixels
            for y in 0..<height {
                for x in 0..<width {
                    let top = ((2 * y) * w + x) * 3, bottom = ((2 * y + 1) * w + x) * 3
                    cells.append(ImageCell(glyph: "▀",
                                           foreground: Self.color(RGBPixel(pixels[top], pixels[top + 1], pixels[top + 2]), depth),
                                           background: Self.color(RGBPixel(pixels[bottom], pixels[bottom + 1], pixels[bottom + 2]), depth)))
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

    /// Scales and renders in one step: a picture fitted into `width`×`height` cells.
    public init(_ image: RGBImage, width: Int, height: Int, symbols: CellSymbols = .half, depth: ColorDepth,
                fit: FitMode = .fill, cellAspect: Double = 0.5) {
        let (px, py) = symbols.pixelsPerCell
        // A cell is `cellAspect` as wide as it is tall; each output pixel is a slice of it.
        let pixelAspect = cellAspect * Double(py) / Double(px)
        let scaled = ImageScaler.scale(image, width: width * px, height: height * py, fit: fit, pixelAspect: pixelAspect)
        self.init(pixels: scaled, symbols: symbols, depth: depth)
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
