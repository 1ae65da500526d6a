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
        /// Its sound is heard (issue 32): the video on screen, playing, with nothing over it,
        /// sound on. Its sound's clock then leads the item's (`SoundNews.heard`).
        public var audible: Bool
        /// Its sound is opened now, heard or not (the decoder and the output made ready): a
        /// video with sound that may be heard soon — the one on screen, the one a turn
        /// brings — while sound can be played, so it starts with its picture. An audible
        /// video's always is.
        public var soundOpen: Bool

        public init(location: String, playing: Bool, run: Int?, loops: Bool = false, audible: Bool = false, soundOpen: Bool = false) {
            self.location = location
            self.playing = playing
            self.run = run
            self.loops = loops
            self.audible = audible
            self.soundOpen = soundOpen || audible
        }
    }

    public var videos: [Video]
    public var width: Int
    public var height: Int
    public var fit: Bool
    public var display: Display
    /// How loud an audible video plays, 0–100.
    public var volume: Int

    /// The frames a video's player makes: as the viewer draws the item, moving
    /// (`RenditionKey.viewer`).
    public func key(for video: Video) -> RenditionKey {
        RenditionKey.viewer(for: Media(location: video.location), screenWidth: width, screenHeight: height, display: display,
                            fit: fit, moving: true)
    }

    public init(videos: [Video] = [], width: Int = 0, height: Int = 0, fit: Bool = true, display: Display = Display(), volume: Int = 100) {
        self.videos = videos
        self.width = width
        self.height = height
        self.fit = fit
        self.display = display
        self.volume = volume
    }
}
