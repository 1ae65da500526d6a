import StoriesCells

/// Which rendition of a picture: the file, the cell size, the colour depth, the cell's
/// shape, the symbols, fill or fit, and the cell's pixel size when real pixels are made too.
/// Everything the cells were made for is in it, so a rendition made for other cells is
/// never served as a hit.
public struct RenditionKey: Hashable, Sendable {
    public var location: String
    public var width: Int
    public var height: Int
    public var depth: ColorDepth
    public var symbols: CellSymbols
    public var fit: FitMode
    /// A cell's width over its height, in thousandths (`Display.cellAspect`, bounded).
    public var aspect: Int
    /// A cell's size in pixels when the rendition has real pixels too (`CellImage.picture`,
    /// `Display.pixelCell`); nil for cells alone.
    public var pixels: CellPixels?
    /// The terminal's 16 colours, at 8 and 16 colours (xterm's otherwise: unused there, and
    /// one key for every terminal).
    public var palette: TerminalPalette

    public init(location: String, width: Int, height: Int, depth: ColorDepth, symbols: CellSymbols = .half,
                fit: FitMode = .fill, cellAspect: Double = Display.standardCellAspect, pixels: CellPixels? = nil,
                palette: TerminalPalette = .xterm) {
        self.pixels = pixels
        self.palette = depth == .eight || depth == .sixteen ? palette : .xterm
        self.location = location
        self.width = width
        self.height = height
        self.depth = depth
        self.symbols = symbols
        self.fit = fit
        aspect = Int((Display.bounded(cellAspect: cellAspect) * 1000).rounded())
    }

    /// A cell's width over its height, as the cells are drawn for.
    public var cellAspect: Double { Double(aspect) / 1000 }
}

extension RenditionKey {
    /// Where the BlurHash stand-in for this rendition is kept: the same size and depth,
    /// under the hash instead of the file.
    public func placeholder(_ blurhash: String) -> RenditionKey {
        var key = self
        key.location = "blurhash:" + blurhash
        key.pixels = nil // a stand-in is cells, whatever the terminal shows
        return key
    }
}

/// The one place a rendition key is made: the screens draw with it and the preload set and
/// the players' plan carry it, so what is prepared is what is drawn.
extension RenditionKey {
    /// A story's photo (or video), drawn at `ScreenLayout.photoSize` of the screen.
    /// `moving`: a video's (or an animation's) frames, which are cells once the terminal
    /// could not take them in pixels (`Display.movingPixels`).
    public static func viewer(for media: Media, screenWidth: Int, screenHeight: Int, display: Display,
                              fit: Bool, moving: Bool = false) -> RenditionKey {
        let size = ScreenLayout.photoSize(width: screenWidth, height: screenHeight)
        // Real pixels up to `PixelPicture.maxPixels` (a 4K screen) and the terminal's own
        // limit; a larger photo is cells, as are a video's frames the terminal fell behind on.
        let pixels = display.pixelCell.flatMap { cell -> CellPixels? in
            let width = max(1, size.width) * cell.width, height = max(1, size.height) * cell.height
            guard width * height <= PixelPicture.maxPixels, !(moving && !display.movingPixels) else { return nil }
            if let limit = display.largestPicture, width > limit.width || height > limit.height { return nil }
            return cell
        }
        return RenditionKey(location: media.location, width: max(1, size.width), height: max(1, size.height),
                            depth: display.colorDepth, symbols: display.symbols, fit: fit ? .fit : .fill, cellAspect: display.cellAspect,
                            pixels: pixels, palette: display.palette)
    }

    /// A home banner's picture, drawn at `HomeGeometry.bannerPictureSize`, filled.
    public static func banner(for media: Media, screenWidth: Int, display: Display) -> RenditionKey {
        let size = HomeGeometry.bannerPictureSize(screenWidth: screenWidth)
        return RenditionKey(location: media.location, width: size.width, height: size.height, depth: display.colorDepth,
                            symbols: display.symbols, fit: .fill, cellAspect: display.cellAspect, palette: display.palette)
    }
}
