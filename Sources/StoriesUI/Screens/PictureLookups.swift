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

/// Picture lookups for drawing.
public enum PictureLookups {
    /// Reads banner pictures from the rendition cache (nothing else), like `cached`: the
    /// picture at the banner's size, else its BlurHash stand-in, else `.loading`.
    @MainActor
    public static func banners(_ cache: RenditionCache, screenWidth: Int, display: Display) -> AppView.PictureLookup {
        { media in
            MainActor.assumeIsolated {
                peek(cache, HomeScreen.bannerKey(for: media, screenWidth: screenWidth, display: display), blurhash: media.blurhash)
            }
        }
    }

    /// Reads the rendition cache and nothing else: the photo when it is ready at this
    /// screen's size, else its BlurHash stand-in when the pipeline has made one, else
    /// `.loading`. It never asks for work and never changes the cache (not even its
    /// recency), so drawing the same state twice does the same thing twice.
    ///
    /// A video with a live player shows the player's frame on screen (its first frame until
    /// it plays, its last when it ends); any other video its poster, the first frame the
    /// pipeline prepared.
    @MainActor
    public static func cached(_ cache: RenditionCache, players: PlayerPool? = nil, screenWidth: Int, screenHeight: Int,
                              display: Display, fit: Bool) -> AppView.PictureLookup {
        { media in
            MainActor.assumeIsolated {
                let key = ViewerScreen.renditionKey(for: media, screenWidth: screenWidth, screenHeight: screenHeight,
                                                    display: display, fit: fit)
                if let frame = players?.player(for: media.location)?.current,
                   frame.cells.width == key.width, frame.cells.height == key.height {
                    return .ready(frame.cells)
                }
                let state = peek(cache, key, blurhash: media.blurhash)
                // `f` asks for the other fit: until it is ready the photo as it was stays,
                // rather than its BlurHash flashing up in between.
                if case .ready = state { return state }
                var other = key
                other.fit = key.fit == .fit ? .fill : .fit
                if case .ready(let cells) = cache.state(peek: other) { return .ready(cells) }
                return state
            }
        }
    }

    /// A rendition as the cache has it, else its BlurHash stand-in when one was made, else
    /// `.loading`; the cache is only peeked at (its recency does not change).
    @MainActor
    static func peek(_ cache: RenditionCache, _ key: RenditionKey, blurhash: String?) -> PictureState {
        let state = cache.state(peek: key)
        guard case .loading = state, let blurhash,
              case .ready(let cells) = cache.state(peek: key.placeholder(blurhash)) else { return state }
        return .placeholder(cells)
    }
}
