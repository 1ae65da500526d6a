import Foundation
/// Everything the screens draw, in one value. Changed only by `AppReducer`.
public struct AppState: Equatable, Sendable {
    public typealias Screen = ViewingState.Screen

    // The shared context: every feature reads it; only the parent writes it (the App
    // feature's size, display and clock, `settle` marking the item on screen seen, the
    // delegates for the title and the source) and the start-up configuration.
    public var title: String
    /// The network profile's name when one is in use ("3g"), shown on the title line.
    public var network: String?
    /// The screen's size in cells (the runtime reports resizes as `.resized`). View models
    /// are built for its width; gestures are recognised against both.
    public var screenWidth = 80
    public var screenHeight = 24
    /// The terminal's colours and cell shape, as the runtime reported them (`.display`), on
    /// the background the reducer decided (`backgroundFacts`).
    public var display = Display()
    /// What says which background the terminal has, as the runtime reported it
    /// (`.background`); nil: the display's own background stands.
    public var backgroundFacts: BackgroundFacts?
    /// How pictures are shown, decided from what the runtime reported (`.graphics`); nil:
    /// the display's own protocol stands.
    public var graphics: GraphicsDecision?
    /// The terminal fell behind a video's frames in real pixels: they are cells from now on.
    public var movingFramesInCells = false
    /// The keys in force (`keys.conf` over the defaults): the reducer resolves keys itself.
    public var bindings = KeyBindings.standard
    /// When the last action was applied; screens use it for progress and relative times.
    public var now: Moment
    /// When the app started (uptime): the gesture log counts from here.
    public var startedAt: Double = 0
    /// Instant cuts instead of motion (`--reduce-motion`, or the config file).
    public var reduceMotion = false
    /// An item that has played its time waits for the next command instead of moving on
    /// (the screen-reader mode: a listener goes on when the words are heard).
    public var waitsAtItemEnd = false
    /// The direction the run was told (setting, locale) and who reorders right-to-left text.
    public var layout = LayoutChoice()
    /// The direction the feed gives (`"direction"` or `"language"` in its index or pages).
    public var feedDirection: LayoutDirection?

    /// Which way the layout reads: as said, else as the feed says, else as the locale.
    public var direction: LayoutDirection { layout.said ?? feedDirection ?? layout.locale ?? .leftToRight }
    public var isRightToLeft: Bool { direction == .rightToLeft }
    /// Preloading in three layers (`PreloadPlanner`), or everything on demand.
    public var preloadPolicy = PreloadPolicy.on
    /// What was seen, and which tooltips were shown: saved as it changes.
    public var seen = SeenState()
    /// The source's last word was a failure that may pass: its next answer is news that it
    /// is back (what was held back is asked for at once, once — not at every answer).
    /// Pages, stories, the home and media all hear from the one source (`Delegate`).
    public var sourceUnreachable = false
    /// The app is stopped (Ctrl-Z) until the shell gives the terminal back.
    public var isSuspended = false
    /// The terminal window is in the background, as the terminal reported it.
    public var isInBackground = false
    /// Playback waits while the window is in the background (`pause-on-blur`, on by default).
    public var pauseOnBlur = true

    /// Nobody is looking: stopped, or (with `pauseOnBlur`) in the background. Playback
    /// waits and nothing is marked seen, without touching the person's own pause.
    public var isAway: Bool { isSuspended || (isInBackground && pauseOnBlur) }
    /// Why, as the last failure said (for the one line the home shows meanwhile).
    public var sourceProblem: String?
    /// When the source last answered (what is on screen came by then).
    public var lastAnswer: Date?

    // One slice a feature (docs/architecture.md, "Features"), each written only by its
    // feature's reducer and by the parent (`route`, `settle`, the delegates, Navigation).
    public var feed: FeedState
    public var row = RowState()
    public var home = HomeState()
    public var viewing = ViewingState()
    public var gesture = PointerState()
    public var media = MediaState()
    public var viewModels = ViewModelState()
    public var chrome = ChromeState()

    public init(title: String, now: Moment, seen: SeenState = SeenState(), warnings: [FeedWarning] = []) {
        self.title = title
        self.now = now
        self.seen = seen
        self.feed = FeedState(warnings: warnings)
    }

    /// The screen is big enough to draw the app (`ScreenLayout.minimumWidth` × `…Height`).
    public var isUsable: Bool { ScreenLayout.isUsable(width: screenWidth, height: screenHeight) }

    /// True until the first page of the feed has arrived.
    public var isLoading: Bool { feed.isLoading }

    /// The line shown where the ring row will be, while there are no stories to show.
    public var emptyRowMessage: String {
        if isLoading {
            guard feed.firstPageOverdue else { return "Loading stories…" }
            return "Loading stories… no answer from \(title) in \(Int(FeedState.firstPagePatience)) s, still waiting"
        }
        return feed.store.hasMore ? "Waiting for the feed…" : "No stories to show in this feed."
    }

    /// A small, non-blocking line about paging trouble (the app keeps retrying).
    public var pagingNotice: String? {
        let store = feed.store
        let what = store.isProvisional ? "Showing the stories saved from the last visit; the feed did not answer"
            : store.count == 0 ? "Stories did not load" : "More stories did not load"
        switch store.paging {
        case .failed(_, let attempt, let reason, _):
            return "\(what): \(reason). Trying again" + (attempt > 1 ? " (attempt \(attempt + 1))…" : "…")
        case .broken(let reason):
            if store.isProvisional {
                return "Showing the stories saved from the last visit; the feed's answer cannot be used (not asked again): \(reason)"
            }
            return "\(what) (not asked again): \(reason)"
        default:
            // Nothing is being paged, but the source stopped answering (a story, the home,
            // a photo): what is on screen came before, and it is asked again by itself.
            guard sourceUnreachable, !isLoading else { return nil }
            var line = "No answer from the source: \(sourceProblem ?? "unreachable")"
            if let lastAnswer { line += "; showing what came by " + Self.clockTime(lastAnswer) }
            return line + ". Trying again…"
        }
    }

    /// "17:02", in this machine's time zone.
    static func clockTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    public var viewer: ViewerState? { viewing.viewer }

    /// The section view models for the screen of sections shown (nil while they are being
    /// built for it).
    public var currentHomeModels: HomeViewModels? {
        guard let models = viewModels.home, models.generation == home.generation else { return nil }
        return models
    }

    /// The focused cell's tooltip, while it is the one being shown.
    public var visibleTooltip: Tooltip? {
        guard viewer == nil, chrome.modal == nil, let tooltip = home.tooltip, let focused = home.level.focusedCell,
              let tip = home.level.cell(section: focused.section, index: focused.cell)?.tooltip, tip.id == tooltip else { return nil }
        return tip
    }

    public var inputContext: InputContext {
        if chrome.modal != nil { return .box }
        if row.search != nil, viewer == nil { return .search }
        return viewer == nil ? .home : .viewer
    }

    /// A viewer drag following the pointer (derived from the pointer).
    public var drag: Drag? { gesture.pointer.drag }

    /// The mouse button is held down in the viewer: paused until it is let go.
    public var isHeld: Bool {
        if case .holding = gesture.pointer { return true }
        return false
    }

    /// The viewer's item has played its time and waits at its end (`waitsAtItemEnd`).
    public var itemWaitsAtItsEnd: Bool {
        guard waitsAtItemEnd, let viewer, viewer.isPaused, !viewer.isWaiting,
              let item = feed.store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex] else { return false }
        return viewer.playback.elapsed(at: now.uptime) >= duration(of: item) - 1e-6
    }

    /// The viewer's item, when it is on screen (not waiting for its story).
    public var visibleItem: StoryItem? {
        guard let viewer, !viewer.isWaiting else { return nil }
        return feed.store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex]
    }

    /// The photo, video or voice note's file of the viewer's item, when it is on screen.
    public var visibleMedia: Media? { visibleItem?.content.media }

    /// The viewer's video, when its item is one.
    public var visibleVideo: Media? { visibleItem.flatMap(played) }

    /// The viewer's voice note, when its item is one.
    public var visibleVoiceNote: Media? { visibleItem?.content.voiceNote }

    /// An item has sound to hear (🔊 or 🔇, `m`): a video with a sound track that plays, or
    /// a voice note whose sound was read.
    public func hasSound(_ item: StoryItem) -> Bool {
        if let video = played(item), let status = media.videos[video.location] { return status.hasAudio && status.failure == nil }
        guard let note = item.content.voiceNote else { return false }
        return media.status[note.location] == .ready
    }

    /// What an item plays as a video: a video, or a photo whose bytes turned out to be an
    /// animation (a GIF).
    public func played(_ item: StoryItem) -> Media? {
        switch item.content {
        case .video(let media): media
        case .image(let media) where media.animations(in: self): media
        default: nil
        }
    }

    /// The viewer's photo (or a video's first frame) is not on screen — still on its way,
    /// or it failed (the reason is on screen instead) — or its video has no frame for the
    /// time shown: the progress bar waits, and the item is not marked seen.
    public var awaitsMedia: Bool {
        guard let visible = visibleMedia else { return false }
        guard media.status[visible.location] == .ready else { return true }
        guard let video = visibleVideo else { return false }
        // A video waits for its player to open the first time, and for frames when it stalls.
        guard let status = media.videos[video.location] else { return true }
        return status.failure == nil && status.isStalled
    }

    /// The viewer's photo or video is on its way — not here, not failed — or its video's
    /// player is opening or stalled: what the loading sign stands for.
    public var mediaOnItsWay: String? {
        guard let viewer, !viewer.isWaiting, let visible = visibleMedia else { return nil }
        let status = media.status[visible.location]
        if status?.failure != nil { return nil }
        guard status == .ready else { return visible.location }
        guard let video = visibleVideo else { return nil }
        guard let player = media.videos[video.location] else { return video.location }
        return player.failure == nil && player.isStalled ? video.location : nil
    }

    /// The longest an animation's item lasts on account of its own length (a longer GIF is
    /// cut there; a feed's `duration` may say more).
    public static let maxLoopedDuration = 60.0

    /// How long an item plays: a video as long as its stream (where it really ended, else
    /// what its container says), the feed's `duration` when the container says nothing or
    /// the video cannot play; an animation (a GIF) its `duration`, or once through when that
    /// is longer; anything else its `duration`.
    public func duration(of item: StoryItem) -> Double {
        if let note = item.content.voiceNote { return media.soundLengths[note.location] ?? item.duration }
        guard let video = played(item), let status = media.videos[video.location], status.failure == nil else {
            return item.duration
        }
        // An animation loops for the item's time, and plays through at least once.
        if status.loops { return max(item.duration, min(status.duration ?? 0, Self.maxLoopedDuration)) }
        return status.endedAt ?? status.duration ?? item.duration
    }

    /// The videos that need a live player now, at most two: the viewer's item when it is a
    /// video and, while a sideways drag or a cube turn shows another story, that story's
    /// item; while a place is free, the video the person most likely goes to next
    /// (`warmPlayer`). Everything else shows its poster from the rendition cache.
    public var livePlayers: [String] { live(played, warming: true) }

    /// The video held opened, not shown, for the item the person most
    /// likely goes to next (`PreloadPlanner.likelyNext`): it plays the moment it is shown,
    /// without a decoder to open then. Only with preloading on, and only while no turn or
    /// drag uses the second place.
    public var warmPlayer: String? {
        let shown = live(played, warming: false)
        return live(played, warming: true).first { !shown.contains($0) }
    }

    /// The voice notes whose sound is kept open now, as `livePlayers` are: the viewer's item,
    /// and the other story's during a sideways drag or a cube turn.
    public var liveVoiceNotes: [String] { live({ $0.content.voiceNote }, warming: false) }

    /// The viewer's item, and the other story's while a drag or a turn shows it, as
    /// `media` says of each: at most two, the viewer's first.
    private func live(_ media: (StoryItem) -> Media?, warming: Bool) -> [String] {
        var live: [String] = []
        let store = feed.store
        func add(_ viewer: ViewerState?) {
            guard let viewer, !viewer.isWaiting,
                  let item = store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex],
                  let media = media(item), !live.contains(media.location), live.count < 2 else { return }
            live.append(media.location)
        }
        guard isUsable else { return [] }
        add(viewer)
        if case .cube(let leaving, let arriving, _)? = viewing.transition?.kind {
            add(arriving)
            add(leaving)
        } else if case .swipe(let offset)? = drag, let viewer, offset != 0 {
            let index = viewer.storyIndex + (offset < 0 ? 1 : -1)
            if let story = store.story(at: index) {
                add(ViewerState(storyIndex: index, itemIndex: seen.firstUnseenIndex(in: story), startedAt: 0))
            }
        }
        if warming, preloadPolicy == .on, let next = PreloadPlanner.likelyNext(self) {
            add(ViewerState(storyIndex: next.story, itemIndex: next.item, startedAt: 0))
        }
        return live
    }

    /// True while something on screen changes with time alone (a progress bar filling):
    /// the run loop keeps a frame timer only then, so an idle app uses no CPU.
    public var wantsFrames: Bool {
        if viewing.transition != nil { return true }
        if let replay = chrome.replay, !replay.isOver { return true } // its clock on the hint line
        if let viewer { return viewer.playback.isRunning || media.waiting != nil } // or the loading sign turns
        return row.opening != nil // the loading ring turns
    }
}

extension Media {
    /// Its bytes are an animation, as the picture pipeline found them.
    fileprivate func animations(in state: AppState) -> Bool { state.media.animations.contains(location) }
}
