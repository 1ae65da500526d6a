/// One cell of a rendered picture.
public struct ImageCell: Equatable, Sendable {
    /// The glyph as a screen cell holds it (made once, with the picture: drawing a frame
    /// copies it without looking into the character again). The cell keeps only this: four
    /// bytes where a `Character` takes sixteen, so a cached picture is half the size.
    public private(set) var code: Glyph
    public var glyph: Character {
        get { code.character ?? " " }
        set { code = Glyph(newValue) }
    }
    public var foreground: Color
    public var background: Color

    public init(glyph: Character, foreground: Color, background: Color) {
        code = Glyph(glyph)
        self.foreground = foreground
        self.background = background
    }

    /// The same glyph, and each colour within `tolerance` levels on every channel (0: equal).
    public func isClose(to other: ImageCell, within tolerance: Int) -> Bool {
        guard tolerance > 0 else { return self == other }
        return foreground.isClose(to: other.foreground, within: tolerance)
            && background.isClose(to: other.background, within: tolerance) && code == other.code
    }
}

extension Color {
    /// The palette number, for a palette colour.
    public var paletteIndex: Int? {
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
    /// The same picture in real pixels, for a terminal that shows them (nil: cells only).
    public var picture: PixelPicture?

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
    public var byteCount: Int { cells.count * MemoryLayout<ImageCell>.stride + (picture?.image.byteCount ?? 0) }
}
