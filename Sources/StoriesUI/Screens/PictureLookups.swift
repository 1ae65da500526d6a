import StoriesMedia
import StoriesCells
import StoriesCore

/// Picture lookups for drawing.
public enum PictureLookups {
    /// Reads banner pictures from the rendition cache (nothing else), like `cached`: the
    /// picture at the banner's size, else its BlurHash stand-in, else `.loading`.
    @MainActor
    public static func banners(_ cache: RenditionCache, screenWidth: Int, display: Display) -> AppView.PictureLookup {
        { media in
            MainActor.assumeIsolated {
                peek(cache, RenditionKey.banner(for: media, screenWidth: screenWidth, display: display), blurhash: media.blurhash)
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
                let key = RenditionKey.viewer(for: media, screenWidth: screenWidth, screenHeight: screenHeight,
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
