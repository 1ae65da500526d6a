/// A picture at the pixel size of the cells it fills (issue 31): what a terminal that shows
/// real pixels is sent, in place of the cells beside it in its `CellImage`. The cells stay
/// the fallback (during animations, under overlays, and where a terminal shows no pixels).
///
/// Immutable and shared: two are the same picture only when they are the same object, so
/// comparing frames costs nothing and the picture layer keeps what it sent by identity.
public final class PixelPicture: Equatable, Sendable {
    /// Exactly `cells` × the cell's pixel size; a fitted picture lies on the same backdrop
    /// its cells have.
    public let image: RGBImage
    /// The cell size it was made for.
    public let cellWidth: Int
    public let cellHeight: Int

    public init(image: RGBImage, cellWidth: Int, cellHeight: Int) {
        self.image = image
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }

    /// Its size in cells.
    public var columns: Int { image.width / cellWidth }
    public var rows: Int { image.height / cellHeight }

    public static func == (a: PixelPicture, b: PixelPicture) -> Bool { a === b }

    /// The most pixels a picture is made with: a 4K screen's (3840×2400). A terminal larger
    /// than that in pixels (a huge window, a cell size that lies) gets cells: 28 MB a
    /// picture is already a lot to hold and to send.
    public static let maxPixels = 3840 * 2400
}

extension RGBImage {
    /// Rows `rows` of the picture (clamped to it), all its columns.
    public func rows(_ rows: Range<Int>) -> RGBImage {
        let low = min(max(0, rows.lowerBound), height), high = min(max(low, rows.upperBound), height)
        if low == 0, high == height { return self }
        return RGBImage(width: width, height: high - low, pixels: Array(pixels[(low * width * 3)..<(high * width * 3)]))
    }
}

extension RGBImage {
    /// Columns `columns` of the picture (clamped to it), all its rows.
    public func columns(_ columns: Range<Int>) -> RGBImage {
        let low = min(max(0, columns.lowerBound), width), high = min(max(low, columns.upperBound), width)
        if low == 0, high == width { return self }
        var pixels: [UInt8] = []
        pixels.reserveCapacity((high - low) * height * 3)
        for y in 0..<height { pixels += self.pixels[((y * width + low) * 3)..<((y * width + high) * 3)] }
        return RGBImage(width: high - low, height: height, pixels: pixels)
    }
}
