// The parent's side of the Media feature: the plans read the whole state (the viewer, the
// overlays, the home, the screen), so they are derived here and handed to `MediaFeature`,
// which keeps them and says when they changed.
extension Reduction {
    /// A photo or video's news, and retries of those whose backoff is over.
    mutating func media(_ action: MediaFeature.Action) {
        scope(MediaFeature.self, \.media, action, context: state.now.uptime)
    }

    /// The players' plan for this state: players for the live videos whose poster is ready
    /// (their bytes came with it), the one on screen playing while its item's clock runs and
    /// started over each time its item is shown; handed out when it changed. The item's
    /// clock goes to the video on screen after every action.
    mutating func updatePlayers() {
        let visible = state.visibleVideo?.location
        let visibleNote = state.visibleVoiceNote?.location
        let running = state.viewer?.playback.isRunning == true
        // Heard: the video on screen while its item's clock runs, with no overlay over it.
        let heard = running && state.media.sound.audible && !state.chrome.showsGestures && !state.chrome.showsMetrics
        let videos = state.livePlayers.filter { state.media.status[$0] == .ready }.map { location in
            PlayerPlan.Video(location: location, playing: location == visible && running,
                             run: location == visible ? state.media.showCount : nil,
                             loops: state.media.videos[location]?.loops == true)
        }
        // Sound players of their own, for the live videos with a sound track and the live
        // voice notes: opened while sound can be played, heard on screen.
        // The warm player's sound waits until it is shown.
        let warm = state.warmPlayer
        let tracks = videos.filter { $0.location != warm && state.media.videos[$0.location].map { $0.hasAudio && $0.failure == nil } == true }
            .map { (location: $0.location, run: $0.run) }
        let notes = state.liveVoiceNotes.filter { state.media.status[$0] == .ready }
            .map { (location: $0, run: $0 == visibleNote ? state.media.showCount : nil) }
        let sounds = (tracks + notes).map { sound in
            PlayerPlan.Sound(location: sound.location, audible: (sound.location == visible || sound.location == visibleNote) && heard,
                             open: state.media.sound.audible, run: sound.run)
        }
        let plan = PlayerPlan(videos: videos, sounds: sounds, width: state.screenWidth, height: state.screenHeight,
                              fit: state.media.photosFit, display: state.display, volume: state.media.sound.volume)
        var clock: MediaFeature.VideoClock?
        if let visible, let viewer = state.viewer, videos.contains(where: { $0.location == visible }),
           state.media.videos[visible]?.failure == nil {
            clock = .init(location: visible, elapsed: viewer.playback.elapsed(at: state.now.uptime))
        } else if let visibleNote, let viewer = state.viewer, sounds.contains(where: { $0.location == visibleNote }) {
            // A voice note's sound leads its item's clock as a video's does.
            clock = .init(location: visibleNote, elapsed: viewer.playback.elapsed(at: state.now.uptime))
        }
        media(.players(plan, clock: clock))
    }

    /// Hands the planner's targets to the runtime when they, or the screen they are
    /// rendered for, change.
    mutating func updatePreload() {
        var request = PreloadRequest(targets: PreloadPlanner.targets(state), width: state.screenWidth,
                                     height: state.screenHeight, fit: state.media.photosFit, display: state.display)
        request.banners = bannerPictures()
        // Those whose retry is not due yet wait: the runtime asks for them when this says so.
        request.waiting = Set(state.media.retries.keys.filter { state.media.retries[$0]?.due.isFinite == true })
        media(.preload(request))
    }

    /// The pictures of the banners in view on the home screen, and of the banner cells on
    /// either side of each (so paging through a banner finds the next one ready).
    func bannerPictures() -> [Media] {
        guard state.viewer == nil, state.isUsable else { return [] }
        var pictures: [Media] = []
        let level = state.home.level
        for (index, _) in HomeGeometry.visibleSections(state) where level.sections[index].style == .banner {
            let cells = level.sections[index].cells
            let selected = level.selected[safe: index] ?? 0
            for offset in [0, 1, -1] {
                if let picture = cells[safe: selected + offset]?.picture, !pictures.contains(picture) { pictures.append(picture) }
            }
        }
        return pictures
    }
}
