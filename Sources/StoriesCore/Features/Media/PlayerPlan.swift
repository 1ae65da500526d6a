/// What the video players should be doing, as the reducer decided it: handed to the media
/// runtime as `AppEffect.players` whenever it changes, and carried out as it says — players
/// for exactly these videos (at most two: the one on screen and, during a swipe or a cube
/// turn, the other story's), rendering for this screen, fit and display, each playing or
/// holding its frame, each started over when its `run` changes.
public struct PlayerPlan: Equatable, Sendable {
    public struct Video: Equatable, Sendable {
        public var location: String
        /// Its frames move on with the item's clock (`AppEffect.videoClock`); otherwise it
        /// holds the frame it shows.
        public var playing: Bool
        /// Which showing of its item this is (`MediaState.showCount` when it was shown): a new
        /// value starts the video over from its first frame; nil (a video leaving or
        /// arriving in a turn) leaves it where it is.
        public var run: Int?
        /// At its end it starts again at once, its frames' times running on (an animation:
        /// its item's clock decides when it stops).
        public var loops: Bool

        public init(location: String, playing: Bool, run: Int?, loops: Bool = false) {
            self.location = location
            self.playing = playing
            self.run = run
            self.loops = loops
        }
    }

    /// A sound player, its own beside the pictures' (issue 47, point 3): a video's sound
    /// track, opened from the same bytes, or a voice note's sound.
    public struct Sound: Equatable, Sendable {
        public var location: String
        /// Heard now (issue 32): the item on screen, playing, with nothing over it, sound on.
        /// Its clock then leads the item's (`SoundNews.heard`).
        public var audible: Bool
        /// Opened now, heard or not (the decoder and the output made ready) while sound can
        /// be played, so it starts with its picture; muted, one already open is kept
        /// (silent) and none is opened. An audible sound's always is.
        public var open: Bool
        /// Which showing of its item this is: a new value hears it from the start.
        public var run: Int?

        public init(location: String, audible: Bool, open: Bool = false, run: Int? = nil) {
            self.location = location
            self.audible = audible
            self.open = open || audible
            self.run = run
        }
    }

    public var videos: [Video]
    /// The sound players: exactly these, each heard or kept silent and ready.
    public var sounds: [Sound]
    public var width: Int
    public var height: Int
    public var fit: Bool
    public var display: Display
    /// How loud an audible sound plays, 0–100.
    public var volume: Int

    /// The frames a video's player makes: as the viewer draws the item, moving
    /// (`RenditionKey.viewer`).
    public func key(for video: Video) -> RenditionKey {
        RenditionKey.viewer(for: Media(location: video.location), screenWidth: width, screenHeight: height, display: display,
                            fit: fit, moving: true)
    }

    public init(videos: [Video] = [], sounds: [Sound] = [], width: Int = 0, height: Int = 0, fit: Bool = true,
                display: Display = Display(), volume: Int = 100) {
        self.videos = videos
        self.sounds = sounds
        self.width = width
        self.height = height
        self.fit = fit
        self.display = display
        self.volume = volume
    }
}
