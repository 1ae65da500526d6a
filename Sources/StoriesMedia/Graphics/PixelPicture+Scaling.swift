import StoriesCells

extension PixelPicture {
    /// `image` scaled to fill or fit `columns` × `rows` cells of `cell`'s pixel size (square
    /// pixels; a fitted picture on the backdrop its cells have).
    public convenience init(_ image: RGBImage, columns: Int, rows: Int, cell: CellPixels, fit: FitMode) {
        let scaled = ImageScaler.scale(image, width: max(1, columns) * cell.width, height: max(1, rows) * cell.height,
                                       fit: fit, pixelAspect: 1)
        self.init(image: scaled, cellWidth: cell.width, cellHeight: cell.height)
    }
}
