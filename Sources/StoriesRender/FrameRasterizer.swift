import Foundation
import StoriesCells
import StoriesMedia
import StoriesCore
import StoriesUI

/// A frame of the app drawn as a terminal shows it: each cell's background, its text through
/// FreeType (bold where the style says; wide characters across their two cells), block
/// symbols and box drawing from their shapes (as terminals draw those themselves), and
/// pictures in real pixels over their cells. Only the cells that changed since the frame
/// before are drawn again.
public final class FrameRasterizer {
    public let cellWidth: Int
    public let cellHeight: Int
    public let foreground: (UInt8, UInt8, UInt8)
    public let background: (UInt8, UInt8, UInt8)
    private let font: TerminalFont
    private var shapes: [UInt32: [UInt8]?] = [:]
    private var previous: Canvas?
    private var previousPictures: [Canvas.PictureRegion] = []
    /// The frame as drawn so far.
    public private(set) var image = RGBImage(width: 1, height: 1)

    /// `light`: a light terminal's colours (black on white), else white on black.
    public init(fontSize: Int, light: Bool) throws {
        font = try TerminalFont(size: min(max(fontSize, TerminalFont.sizes.lowerBound), TerminalFont.sizes.upperBound))
        cellWidth = font.cellWidth
        cellHeight = font.cellHeight
        foreground = light ? (0, 0, 0) : (229, 229, 229)
        background = light ? (255, 255, 255) : (0, 0, 0)
    }

    /// The sizes `--font-size` takes.
    public static let fontSizes = TerminalFont.sizes

    /// Draws `canvas`; the result is `image`.
    public func draw(_ canvas: Canvas) {
        let width = canvas.width * cellWidth, height = canvas.height * cellHeight
        var dirty = [Bool](repeating: true, count: canvas.width * canvas.height)
        if let previous, previous.width == canvas.width, previous.height == canvas.height, image.width == width, image.height == height {
            for index in dirty.indices { dirty[index] = previous.cells[index] != canvas.cells[index] }
            // Where a picture was, or is, its cells are drawn again beneath it.
            for region in previousPictures + canvas.pictures { mark(region.rect, in: &dirty, canvas) }
            // A wide character's neighbour changed: both cells again (the glyph spans them).
            for y in 0..<canvas.height {
                for x in 1..<max(1, canvas.width) where canvas[x, y].isContinuation && (dirty[y * canvas.width + x] || dirty[y * canvas.width + x - 1]) {
                    dirty[y * canvas.width + x] = true
                    dirty[y * canvas.width + x - 1] = true
                }
            }
        } else {
            image = RGBImage(width: width, height: height)
        }
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            // Backgrounds first, then text: a wide character's glyph spans the cell after it.
            for pass in [false, true] {
                for y in 0..<canvas.height {
                    for x in 0..<canvas.width where dirty[y * canvas.width + x] {
                        drawCell(canvas, x, y, text: pass, into: pixels)
                    }
                }
            }
            for region in canvas.pictures { blit(region, canvas: canvas, into: pixels) }
        }
        previous = canvas
        previousPictures = canvas.pictures
    }

    private func mark(_ rect: Rect, in dirty: inout [Bool], _ canvas: Canvas) {
        let y0 = max(0, rect.y), y1 = min(canvas.height, rect.y + rect.height)
        let x0 = max(0, rect.x), x1 = min(canvas.width, rect.x + rect.width)
        guard y0 < y1, x0 < x1 else { return }
        for y in y0..<y1 {
            for x in x0..<x1 { dirty[y * canvas.width + x] = true }
        }
    }

    func rgb(_ color: Color, default fallback: (UInt8, UInt8, UInt8)) -> (UInt8, UInt8, UInt8) {
        switch color {
        case .default: fallback
        case .palette(let index): ColorMapping.rgb(ofPaletteIndex: index)
        case .rgb(let r, let g, let b): (r, g, b)
        }
    }

    private func drawCell(_ canvas: Canvas, _ x: Int, _ y: Int, text: Bool, into pixels: UnsafeMutableBufferPointer<UInt8>) {
        let cell = canvas[x, y]
        var fg = rgb(cell.style.foreground, default: foreground)
        var bg = rgb(cell.style.background, default: background)
        if cell.style.attributes.contains(.reverse) { swap(&fg, &bg) }
        if cell.style.attributes.contains(.dim) {
            fg = (UInt8((Int(fg.0) * 2 + Int(bg.0)) / 3), UInt8((Int(fg.1) * 2 + Int(bg.1)) / 3), UInt8((Int(fg.2) * 2 + Int(bg.2)) / 3))
        }
        let left = x * cellWidth, top = y * cellHeight, rowBytes = canvas.width * cellWidth * 3
        if !text {
            for py in top..<(top + cellHeight) {
                var i = py * rowBytes + left * 3
                for _ in 0..<cellWidth {
                    pixels[i] = bg.0; pixels[i + 1] = bg.1; pixels[i + 2] = bg.2
                    i += 3
                }
            }
            return
        }
        guard !cell.isContinuation, let character = cell.grapheme, character != " " else { return }
        let cells = x + 1 < canvas.width && canvas[x + 1, y].isContinuation ? 2 : 1
        let clip = (left: left, right: min(canvas.width * cellWidth, left + cells * cellWidth), top: top, bottom: top + cellHeight)
        if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
           let mask = shape(scalar, character) {
            for py in 0..<cellHeight {
                var i = (top + py) * rowBytes + left * 3
                for px in 0..<cellWidth {
                    blend(mask[py * cellWidth + px], fg, at: i, pixels)
                    i += 3
                }
            }
            return
        }
        let bold = cell.style.attributes.contains(.bold)
        var penX = left
        for (index, scalar) in character.unicodeScalars.enumerated() {
            // Marks that join the first scalar (a variation selector, a joiner and what it
            // joins) draw nothing of their own unless they are marks placed on it.
            if index > 0, scalar.properties.generalCategory != .nonspacingMark { continue }
            guard let glyph = font.glyph(scalar, bold: bold, cells: cells) else { continue }
            if let rgba = glyph.rgba {
                // A colour glyph: centred across its cells, standing on the cell's bottom.
                let ox = left + (cells * cellWidth - glyph.width) / 2, oy = top + cellHeight - glyph.height
                for gy in 0..<glyph.height where (clip.top..<clip.bottom).contains(oy + gy) {
                    for gx in 0..<glyph.width where (clip.left..<clip.right).contains(ox + gx) {
                        let s = (gy * glyph.width + gx) * 4, i = (oy + gy) * rowBytes + (ox + gx) * 3
                        let a = Int(rgba[s + 3])
                        pixels[i] = UInt8(min(255, Int(rgba[s]) + Int(pixels[i]) * (255 - a) / 255))
                        pixels[i + 1] = UInt8(min(255, Int(rgba[s + 1]) + Int(pixels[i + 1]) * (255 - a) / 255))
                        pixels[i + 2] = UInt8(min(255, Int(rgba[s + 2]) + Int(pixels[i + 2]) * (255 - a) / 255))
                    }
                }
                continue
            }
            // A wide character from a font whose advance is less than its two cells is centred in them.
            let ox = (index == 0 ? left + max(0, (cells * cellWidth - glyph.width - 2 * max(0, glyph.left)) / 2) * (cells - 1) : penX) + glyph.left
            let oy = top + font.baseline - glyph.top
            for gy in 0..<glyph.height where (clip.top..<clip.bottom).contains(oy + gy) {
                for gx in 0..<glyph.width where (clip.left..<clip.right).contains(ox + gx) {
                    blend(glyph.coverage[gy * glyph.width + gx], fg, at: (oy + gy) * rowBytes + (ox + gx) * 3, pixels)
                }
            }
            if index == 0 { penX = left + cellWidth * cells }
        }
        if cell.style.attributes.contains(.underline) {
            let py = min(clip.bottom - 1, top + font.baseline + 1)
            for px in clip.left..<clip.right {
                let i = py * rowBytes + px * 3
                pixels[i] = fg.0; pixels[i + 1] = fg.1; pixels[i + 2] = fg.2
            }
        }
    }

    /// Block symbols and box drawing: their shapes at this cell size (nil for other text).
    private func shape(_ scalar: Unicode.Scalar, _ character: Character) -> [UInt8]? {
        guard CellSymbols.isBlockSymbol(scalar) || (0x2500...0x257F).contains(scalar.value) else { return nil }
        if let known = shapes[scalar.value] { return known }
        let mask = CellDrawBack.coverage(character, width: cellWidth, height: cellHeight).map { $0.map { UInt8(($0 * 255).rounded()) } }
        shapes[scalar.value] = mask
        return mask
    }

    @inline(__always)
    private func blend(_ alpha: UInt8, _ color: (UInt8, UInt8, UInt8), at i: Int, _ pixels: UnsafeMutableBufferPointer<UInt8>) {
        guard alpha > 0 else { return }
        if alpha == 255 {
            pixels[i] = color.0; pixels[i + 1] = color.1; pixels[i + 2] = color.2
            return
        }
        let a = Int(alpha), b = 255 - a
        pixels[i] = UInt8((Int(color.0) * a + Int(pixels[i]) * b + 127) / 255)
        pixels[i + 1] = UInt8((Int(color.1) * a + Int(pixels[i + 1]) * b + 127) / 255)
        pixels[i + 2] = UInt8((Int(color.2) * a + Int(pixels[i + 2]) * b + 127) / 255)
    }

    /// A picture's rows over its rect, pixel for pixel where it was made for this cell size
    /// (the nearest pixel otherwise).
    private func blit(_ region: Canvas.PictureRegion, canvas: Canvas, into pixels: UnsafeMutableBufferPointer<UInt8>) {
        let picture = region.picture, source = picture.image
        let rowBytes = canvas.width * cellWidth * 3
        let x0 = max(0, region.rect.x) * cellWidth, x1 = min(canvas.width, region.rect.x + region.rect.width) * cellWidth
        let y0 = max(0, region.rect.y) * cellHeight, y1 = min(canvas.height, region.rect.y + region.rect.height) * cellHeight
        guard x1 > x0, y1 > y0, source.width > 0, source.height > 0 else { return }
        source.pixels.withUnsafeBufferPointer { from in
            for py in y0..<y1 {
                // Rows of the picture from `sourceRow` (in its cells), scaled to this cell height.
                let cellRow = (py - region.rect.y * cellHeight)
                let sy = (region.sourceRow * picture.cellHeight) + cellRow * picture.cellHeight / cellHeight
                guard sy >= 0, sy < source.height else { continue }
                for px in x0..<x1 {
                    let sx = (px - region.rect.x * cellWidth) * picture.cellWidth / cellWidth
                    guard sx >= 0, sx < source.width else { continue }
                    let s = (sy * source.width + sx) * 3, i = py * rowBytes + px * 3
                    pixels[i] = from[s]; pixels[i + 1] = from[s + 1]; pixels[i + 2] = from[s + 2]
                }
            }
        }
    }
}
