/// How far the preparation of one photo has got (the metrics overlay's window strip shows
/// these words).
public enum MediaStatus: Equatable, Sendable {
    case queued, fetching, decoding, ready
    /// It cannot be shown, and asking again would not change that (a corrupt file, a 404).
    case failed(String)
    /// The source did not answer, for a reason that may pass (a timeout, a refused
    /// connection, a 5xx): the pipeline kept nothing; the reducer puts it in the preload
    /// set's `waiting` until its retry is due (`MediaState.retries`).
    case unreachable(String)

    /// Nothing more will come of the work asked for (it is here, or it failed).
    public var isSettled: Bool { self == .ready || failure != nil }

    /// Why it cannot be shown now, when it cannot.
    public var failure: String? {
        switch self {
        case .failed(let reason), .unreachable(let reason): reason
        case .queued, .fetching, .decoding, .ready: nil
        }
    }

    public var word: String {
        switch self {
        case .queued: "queued"
        case .fetching: "fetching"
        case .decoding: "decoding"
        case .ready: "ready"
        case .failed: "failed"
        case .unreachable: "retrying"
        }
    }
}
/// What the reducer asks the runtime to prepare: the planner's targets for a screen of
/// this size and fit, each with the rendition key the screens draw it with
/// (`renditions`, made in one place: `RenditionKey.viewer` and `.banner`).
public struct PreloadRequest: Equatable, Sendable {
    public var targets: [PreloadTarget]
    public var width: Int
    public var height: Int
    public var fit: Bool
    /// The colours and cell shape the renditions are made for.
    public var display: Display
    /// Pictures of the home's banners in view, drawn at `HomeGeometry.bannerPictureSize`;
    /// the least urgent of all.
    public var banners: [Media] = []
    /// Locations whose last fetch failed for a reason that may pass and that wait for their
    /// retry (`MediaState.retries`, the reducer's backoff): their shapes and placeholders
    /// are kept ready, their bytes not asked for — until the reducer takes them out of here.
    public var waiting: Set<String> = []

    public init(targets: [PreloadTarget], width: Int, height: Int, fit: Bool, display: Display = Display(), banners: [Media] = []) {
        self.targets = targets
        self.width = width
        self.height = height
        self.fit = fit
        self.display = display
        self.banners = banners
    }

    /// The renditions to prepare, most urgent first: each target as the viewer draws it
    /// (`RenditionKey.viewer`), then the banners' pictures as the home draws them. A
    /// banner's picture may also be a story's photo: the pipeline decodes it once and
    /// renders both sizes from the same pixels.
    public var renditions: [(key: RenditionKey, priority: PreloadPriority, blurhash: String?)] {
        targets.map { target in
            (key: RenditionKey.viewer(for: target.media, screenWidth: width, screenHeight: height, display: display, fit: fit),
             priority: target.priority, blurhash: target.media.blurhash)
        } + banners.map { banner in
            (key: RenditionKey.banner(for: banner, screenWidth: width, display: display), priority: .feed, blurhash: banner.blurhash)
        }
    }

    /// The same screen, fit and display: renditions already made still serve.
    public func hasSameRenditions(as other: PreloadRequest?) -> Bool {
        guard let other else { return false }
        return width == other.width && height == other.height && fit == other.fit && display == other.display
    }
}
