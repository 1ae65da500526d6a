import StoriesMedia
import StoriesCells
import StoriesCore

/// The one place a photo's rendition key is made: the viewer draws the photo at
/// `ViewerScreen.photoSize` of the screen, so the preloader prepares exactly that.
extension ViewerScreen {
    /// `moving`: a video's (or an animation's) frames, which are cells once the terminal
    /// could not take them in pixels (`Display.movingPixels`).
    public static func renditionKey(for media: Media, screenWidth: Int, screenHeight: Int, display: Display,
                                    fit: Bool, moving: Bool = false) -> RenditionKey {
        let size = photoSize(width: screenWidth, height: screenHeight)
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
}

/// The one place a banner picture's rendition key is made: `HomeScreen` draws it at
/// `HomeGeometry.bannerPictureSize`, filled, and the preloader prepares exactly that.
extension HomeScreen {
    public static func bannerKey(for media: Media, screenWidth: Int, display: Display) -> RenditionKey {
        let size = HomeGeometry.bannerPictureSize(screenWidth: screenWidth)
        return RenditionKey(location: media.location, width: size.width, height: size.height, depth: display.colorDepth,
                            symbols: display.symbols, fit: .fill, cellAspect: display.cellAspect, palette: display.palette)
    }
}
