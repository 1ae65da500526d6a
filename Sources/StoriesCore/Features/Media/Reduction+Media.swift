extension Reduction {
    /// The Media feature: the picture pipeline's and the players' news.
    mutating func reduce(_ action: MediaAction) {
        switch action {
        case .pictures(let news):
            for item in news {
                if let damage = item.damage, state.media.damaged[item.location] != damage {
                    // Shown as far as it decoded; said once in the problems list, with the file.
                    state.media.damaged[item.location] = damage
                    delegate(.resolved("damage:" + item.location))
                    delegate(.warn([FeedWarning("\(item.location): \(damage); showing what decoded", topic: "damage:" + item.location)]))
                } else if item.damage == nil, item.status == .ready, state.media.damaged[item.location] != nil {
                    // Decoded whole since (a file that was still being copied): no longer damaged.
                    state.media.damaged[item.location] = nil
                    delegate(.resolved("damage:" + item.location))
                }
                if item.isAnimation, state.media.animations.insert(item.location).inserted, state.media.animations.count > 1_000 {
                    state.media.animations = [item.location] // bounded: the one just told is kept
                }
                if state.media.status[item.location] != item.status { picture(item.location, item.status) }
            }
        case .video(let location, let event):
            video(event, at: location)
        case .fetchTimed(let seconds):
            state.media.pace.recordFetch(seconds: seconds)
            delegate(.sourceAnswered)
        case .sound(let location, .heard(let time)):
            // Only the sound of what is heard now leads: a late word from a sound that was
            // just silenced changes nothing.
            guard state.media.playerPlan.videos.contains(where: { $0.location == location && $0.audible }) else { break }
            delegate(.soundClock(time))
        case .sound(_, .unavailable(let reason)):
            guard state.media.sound.problem == nil else { break }
            state.media.sound.problem = reason
            delegate(.notice("🔇 No sound: \(reason)"))
        }
    }

    /// The players' plan for this state: players for the live videos whose poster is ready
    /// (their bytes came with it), the one on screen playing while its item's clock runs and
    /// started over each time its item is shown; handed out when it changed. The item's
    /// clock goes to the video on screen after every action.
    mutating func updatePlayers() {
        let visible = state.visibleVideo?.location
        let running = state.viewer?.playback.isRunning == true
        // Heard: the video on screen while its item's clock runs, with no overlay over it.
        let heard = running && state.media.sound.audible && !state.chrome.showsGestures && !state.chrome.showsMetrics
        let videos = state.livePlayers.filter { state.media.status[$0] == .ready }.map { location in
            PlayerPlan.Video(location: location, playing: location == visible && running,
                             run: location == visible ? state.media.showCount : nil,
                             loops: state.media.videos[location]?.loops == true,
                             audible: location == visible && heard && state.media.videos[location]?.hasAudio == true
                                && state.media.videos[location]?.failure == nil)
        }
        let plan = PlayerPlan(videos: videos, width: state.screenWidth, height: state.screenHeight, fit: state.media.photosFit,
                              display: state.display, volume: state.media.sound.volume, sound: state.media.sound.audible)
        if plan != state.media.playerPlan {
            // No video before or now: nothing for the players to do (the size is kept for the next).
            let idle = plan.videos.isEmpty && state.media.playerPlan.videos.isEmpty
            state.media.playerPlan = plan
            if !idle { effects.append(.players(plan)) }
        }
        if let visible, let viewer = state.viewer, videos.contains(where: { $0.location == visible }),
           state.media.videos[visible]?.failure == nil {
            effects.append(.videoClock(visible, viewer.playback.elapsed(at: state.now.uptime)))
        }
    }

    /// One photo's new stage: one that may pass is retried with backoff; one that came, or
    /// failed for good, is not.
    mutating func picture(_ location: String, _ status: MediaStatus) {
        state.media.status[location] = status
        switch status {
        case .unreachable(let reason):
            delegate(.sourceFailed(reason))
            state.media.retries.failed(location, reason: reason, at: state.now.uptime)
            scheduleRetry(.retryMedia, state.media.retries.nextDue)
        case .ready, .failed:
            state.media.retries.remove(location)
        case .queued, .fetching, .decoding:
            break
        }
    }

    /// Photos and videos asked for again: those still wanted stay counted until they come
    /// (or fail again); the rest are let go and forgotten.
    mutating func retryMedia(_ locations: [String]) {
        guard !locations.isEmpty else { return }
        let wanted = Set((state.media.preloadRequest?.targets.map(\.media.location) ?? []) + (state.media.preloadRequest?.banners.map(\.location) ?? []))
        for location in locations {
            if wanted.contains(location) {
                state.media.retries.asked(location)
            } else {
                state.media.retries.remove(location)
                state.media.status[location] = nil
            }
        }
        effects.append(.retryMedia(locations))
        scheduleRetry(.retryMedia, state.media.retries.nextDue)
    }

    /// A player's news: the facts the reducer paces a video item by.
    mutating func video(_ event: VideoEvent, at location: String) {
        var status = state.media.videos[location] ?? VideoStatus()
        switch event {
        case .opened(let duration, let interval, let hasAudio, let loops):
            status.duration = duration
            status.frameInterval = interval
            status.hasAudio = hasAudio
            status.loops = loops
            status.failure = nil
            status.isStalled = false
        case .stalled: status.isStalled = true
        case .resumed: status.isStalled = false
        case .ended(let time):
            status.endedAt = time
            status.isStalled = false
        case .failed(let reason):
            status.failure = reason
            status.isStalled = false
        case .noBytes:
            status.failure = "the video's bytes are not here to play"
            status.isStalled = false
        case .redrawn(let width, let height):
            status.redrawnAt = [width, height]
        }
        state.media.videos[location] = status
    }

    /// Hands the planner's targets to the runtime when they, or the screen they are
    /// rendered for, change. A new size or fit makes every rendition made so far stale: the
    /// pipeline reports each target's stage afresh.
    mutating func updatePreload() {
        var request = PreloadRequest(targets: PreloadPlanner.targets(state), width: state.screenWidth,
                                     height: state.screenHeight, fit: state.media.photosFit, display: state.display)
        request.banners = bannerPictures()
        guard request != state.media.preloadRequest else { return }
        if !request.hasSameRenditions(as: state.media.preloadRequest) {
            state.media.status = state.media.status.filter { $0.value.failure != nil }
        }
        state.media.preloadRequest = request
        effects.append(.preload(request))
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
