/// The Media feature: the picture pipeline's and the players' news, retries of photos and
/// videos, and the plans handed to the runtimes. A scoped reducer (`FeatureReducer`): it
/// sees only `MediaState`; the plans it keeps are derived by the parent from the whole
/// state (`Reduction+MediaPlans.swift`), and what it asks of the rest goes out as delegates.
enum MediaFeature: FeatureReducer {
    enum Action {
        case news(MediaAction)
        /// Photos and videos to ask for again (their backoff is over, or the source is back):
        /// those still wanted leave the preload set's `waiting`, the rest are forgotten.
        case retry([String])
        /// The viewer's picture still on its way (nil: none): the loading sign's clock.
        case waiting(for: String?)
        /// The players' plan for the state now, and the item's clock for the video on screen.
        case players(PlayerPlan, clock: VideoClock?)
        /// The preload set for the state now.
        case preload(PreloadRequest)
    }

    /// The video on screen and how far its item has played (seconds).
    struct VideoClock {
        var location: String
        var elapsed: Double
    }

    /// Uptime now.
    typealias Context = Double

    static func reduce(_ media: inout MediaState, _ action: Action, context now: Double, into out: inout FeatureOutput) {
        switch action {
        case .news(let news): take(news, into: &media, now: now, &out)
        case .retry(let locations): retry(locations, &media, now: now, &out)
        case .waiting(let location):
            guard let location else {
                media.waiting = nil
                return
            }
            if media.waiting?.location != location { media.waiting = MediaWait(location: location, since: now) }
        case .players(let plan, let clock):
            if plan != media.playerPlan {
                // No video or sound before or now: nothing for the players to do (the size is
                // kept for the next).
                let idle = plan.videos.isEmpty && plan.sounds.isEmpty && media.playerPlan.videos.isEmpty && media.playerPlan.sounds.isEmpty
                media.playerPlan = plan
                if !idle { out.effect(.players(plan)) }
            }
            if let clock { out.effect(.videoClock(clock.location, clock.elapsed)) }
        case .preload(let request):
            guard request != media.preloadRequest else { return }
            // A new size or fit makes every rendition made so far stale: the pipeline reports
            // each target's stage afresh.
            if !request.hasSameRenditions(as: media.preloadRequest) {
                media.status = media.status.filter { $0.value.failure != nil }
            }
            media.preloadRequest = request
            out.effect(.preload(request))
        }
    }

    private static func take(_ news: MediaAction, into media: inout MediaState, now: Double, _ out: inout FeatureOutput) {
        switch news {
        case .pictures(let news):
            for item in news {
                if let damage = item.damage, media.damaged[item.location] != damage {
                    // Shown as far as it decoded; said once in the problems list, with the file.
                    media.damaged[item.location] = damage
                    out.delegate(.resolved("damage:" + item.location))
                    out.delegate(.warn([FeedWarning("\(item.location): \(damage); showing what decoded", topic: "damage:" + item.location)]))
                } else if item.damage == nil, item.status == .ready, media.damaged[item.location] != nil {
                    // Decoded whole since (a file that was still being copied): no longer damaged.
                    media.damaged[item.location] = nil
                    out.delegate(.resolved("damage:" + item.location))
                }
                if item.isAnimation, media.animations.insert(item.location).inserted, media.animations.count > 1_000 {
                    media.animations = [item.location] // bounded: the one just told is kept
                }
                if let seconds = item.soundSeconds, seconds.isFinite, seconds > 0 {
                    if media.soundLengths.count >= 1_000, media.soundLengths[item.location] == nil { media.soundLengths = [:] } // bounded
                    media.soundLengths[item.location] = min(seconds, MediaState.longestSound)
                }
                if media.status[item.location] != item.status { picture(item.location, item.status, &media, now: now, &out) }
            }
        case .video(let location, let event):
            video(event, at: location, &media)
        case .fetchTimed(let seconds):
            media.pace.recordFetch(seconds: seconds)
            out.delegate(.sourceAnswered)
        case .sound(let location, .heard(let time)):
            // Only the sound of what is heard now leads: a late word from a sound that was
            // just silenced changes nothing.
            guard media.playerPlan.sounds.contains(where: { $0.location == location && $0.audible }) else { break }
            out.delegate(.soundClock(time))
        case .sound(_, .unavailable(let reason)):
            guard media.sound.problem == nil else { break }
            media.sound.problem = reason
            out.delegate(.notice("🔇 No sound: \(reason)"))
        }
    }

    /// One photo's new stage: one that may pass is retried with backoff; one that came, or
    /// failed for good, is not.
    private static func picture(_ location: String, _ status: MediaStatus, _ media: inout MediaState, now: Double,
                                _ out: inout FeatureOutput) {
        media.status[location] = status
        switch status {
        case .unreachable(let reason):
            out.delegate(.sourceFailed(reason))
            media.retries.failed(location, reason: reason, at: now)
            out.wake(.retryMedia, due: media.retries.nextDue, now: now)
        case .ready, .failed:
            media.retries.remove(location)
        case .queued, .fetching, .decoding:
            break
        }
    }

    /// Photos and videos asked for again: those still wanted stay counted until they come
    /// (or fail again); the rest are let go and forgotten.
    private static func retry(_ locations: [String], _ media: inout MediaState, now: Double, _ out: inout FeatureOutput) {
        guard !locations.isEmpty else { return }
        let wanted = Set((media.preloadRequest?.targets.map(\.media.location) ?? []) + (media.preloadRequest?.banners.map(\.location) ?? []))
        for location in locations {
            if wanted.contains(location) {
                media.retries.asked(location)
            } else {
                media.retries.remove(location)
                media.status[location] = nil
            }
        }
        // Out of the preload set's `waiting` now (`updatePreload`): the runtime asks for them.
        out.wake(.retryMedia, due: media.retries.nextDue, now: now)
    }

    /// A player's news: the facts the reducer paces a video item by.
    private static func video(_ event: VideoEvent, at location: String, _ media: inout MediaState) {
        var status = media.videos[location] ?? VideoStatus()
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
        media.videos[location] = status
    }
}
