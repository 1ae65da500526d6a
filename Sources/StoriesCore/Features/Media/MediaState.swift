/// The Media feature's slice: how far each photo and video has got, what is being
/// prepared, retried and played, and the pace the preload window adapts to. Written by
/// `MediaFeature`, which is handed only this slice, and the parent.
public struct MediaState: Equatable, Sendable {
    /// How far the preparation of each photo (by location) has got, as the picture
    /// pipeline reports it. The progress bar waits on the visible one.
    public var status: [String: MediaStatus] = [:]
    /// The photos being prepared, as last handed to the runtime (`.preload`): the preload
    /// set, held here and nowhere else.
    public var preloadRequest: PreloadRequest?
    /// Photos and videos (by location) the source did not answer for, for a reason that may
    /// pass: asked for again with backoff while wanted, and at once when the source answers.
    public var retries = Retries<String>()
    /// The players' plan, as last handed to the media runtime (`.players`).
    public var playerPlan = PlayerPlan()
    /// Items shown so far (each `show`): a video shown afresh starts over (`PlayerPlan`).
    public var showCount = 0
    /// What each video's player has reported (by location).
    public var videos: [String: VideoStatus] = [:]
    /// Photos that were on the viewer whole: the bytes fetched for any other were fetched
    /// for nothing (the metrics overlay counts them).
    public var shown: Set<String> = []
    /// How the person navigates and how long fetches take: what the preload window adapts to.
    public var pace = NavigationPace()
    /// Photos shown whole over a backdrop made from the photo (the default), or filling the
    /// screen cropped to their most detailed part (`f` toggles).
    public var photosFit = true
    /// The viewer's photo or video that is still on its way (not failed), and since when it
    /// has been waited for: the loading sign shows after `MediaWait.signAfter`, and says the
    /// network is slow after `MediaWait.slowAfter`.
    public var waiting: MediaWait?
    /// Pictures shown as far as they decoded (a file cut short), with why: the viewer marks
    /// them, and the problems list says it once.
    public var damaged: [String: String] = [:]
    /// Photos whose bytes are an animation (a GIF of more than one frame): their items play
    /// them as videos.
    public var animations: Set<String> = []
    /// Voice notes' lengths (seconds), as the picture pipeline found them drawing their
    /// waveforms: their items last that long.
    public var soundLengths: [String: Double] = [:]
    /// The longest a voice note's item lasts (a longer sound is cut there): an hour.
    public static let longestSound = 3_600.0
    /// Videos' sound: wanted or not (`m`), how loud, and whether this run can play any.
    public var sound = SoundState()

    public init() {}
}

/// Videos' sound (issue 32). The video on screen is heard while its item's clock runs and
/// nothing is over it; `m` turns it off and on; a run without an output (no sound server,
/// `--headless`, a replay) plays none, and says why once.
public struct SoundState: Equatable, Sendable {
    /// The person's choice: `m`, `sound =` in stories.conf, `--mute` / `--sound`.
    public var on = true
    /// 0–100 (`volume =` in stories.conf).
    public var volume = 100
    /// This run plays sound at all (not under `--headless` or in a replay unless asked).
    public var enabled = true
    /// Why no sound can be heard (no sound server, …), once the runtime found out.
    public var problem: String?

    public init(on: Bool = true, volume: Int = 100, enabled: Bool = true) {
        self.on = on
        self.volume = min(100, max(0, volume))
        self.enabled = enabled
    }

    /// Sound is to be heard where a video has it.
    public var audible: Bool { on && enabled && problem == nil && volume > 0 }
}

/// How long the picture on screen has been waited for.
public struct MediaWait: Equatable, Sendable {
    public var location: String
    public var since: Double

    public init(location: String, since: Double) {
        self.location = location
        self.since = since
    }

    /// Seconds before the spinner shows: a picture that comes sooner never flashes one.
    public static let signAfter = 0.3
    /// Seconds before the sign says the network is slow.
    public static let slowAfter = 3.0
}
