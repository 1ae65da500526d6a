import StoriesCore
import StoriesMedia
import StoriesUI

/// The one media runtime: it owns the picture pipeline, the video players and the sound
/// players, and does what the reducer's media effects say — prepare a preload set (its
/// keys, asking for none of its `waiting`), bring the players and sounds in line with a
/// plan, move the item on screen to its time — deciding nothing; what happens comes back
/// only as actions (`.mediaNews`). Every rendition key comes in the effect
/// (`PreloadRequest.renditions`, `PlayerPlan.key(for:)`), made in the core from the state.
@MainActor
final class MediaRuntime {
    let pictures: PicturePipeline
    let players: PlayerPool
    /// Where news goes: the engine's `send`.
    var send: @MainActor (AppAction) -> Void = { _ in }
    /// The run each player and each sound was last told (a new one starts it over).
    private var runs: [String: Int] = [:]
    private var soundRuns: [String: Int] = [:]
    /// Sound players (issue 32), by location: made when the plan first opens one, let go
    /// when it no longer does. `heard`: those told to play.
    private let soundOutput: SoundOutputFactory?
    private var sounds: [String: AudioPlayer] = [:]
    private var heard: Set<String> = []
    /// The time each video was last told to be at (`.videoClock`): where its sound starts.
    private var clockTimes: [String: Double] = [:]
    /// No output was found: said once, and no sound is made again.
    private var soundUnavailable = false
    /// How far the sound heard may be from the item's clock before the clock is moved to it.
    static let soundLeadsBeyond = 0.015

    init(pictures: PicturePipeline, players: PlayerPool, clock: @escaping @MainActor () -> Double,
         soundOutput: SoundOutputFactory? = nil) {
        self.soundOutput = soundOutput
        self.pictures = pictures
        self.players = players
        pictures.clock = clock
        pictures.onNews = { [weak self] news in self?.send(.mediaNews(.pictures(news))) }
        pictures.onFetchTimed = { [weak self] seconds in self?.send(.fetchTimed(seconds)) }
        players.onEvent = { [weak self] location, event in self?.send(.video(location, event)) }
    }

    /// `.preload`: these renditions, most urgent first; work for any other is called off.
    func preload(_ request: PreloadRequest) {
        for target in request.targets {
            pictures.noteShape(of: target.media.location, width: target.media.width, height: target.media.height)
        }
        pictures.prefetch(request.renditions, waiting: request.waiting)
    }

    /// `.players`: players for exactly the plan's videos, each playing or holding, each
    /// started over when its run changed. A video with no bytes to play is news.
    func follow(_ plan: PlayerPlan) {
        let cache = pictures.cache
        // Where each planned video or sound is kept for its sound to go on from (a voice
        // note is a sound alone: held, muted or under an overlay, it goes on from there).
        let planned = Set(plan.videos.map(\.location) + plan.sounds.map(\.location))
        clockTimes = clockTimes.filter { location, _ in planned.contains(location) }
        players.keep(plan.videos.map { video in
            (key: plan.key(for: video), data: cache.videoData(for: video.location))
        })
        runs = runs.filter { location, _ in players.player(for: location) != nil }
        for video in plan.videos {
            guard let player = players.player(for: video.location) else {
                send(.video(video.location, .noBytes))
                continue
            }
            if let run = video.run {
                if let told = runs[video.location], told != run { player.restart() }
                runs[video.location] = run
            }
            player.loops = video.loops
            if video.playing { player.play() } else { player.pause() }
        }
        followSound(plan)
    }

    /// Sound players as the plan says, their own beside the pictures': opened for each of
    /// its sounds, heard for its audible ones from where each one's clock is, heard from the
    /// start when its run changed; every other silent at once (paused, kept for going on)
    /// or let go.
    private func followSound(_ plan: PlayerPlan) {
        let planned = Set(plan.sounds.map(\.location))
        for (location, sound) in sounds where !planned.contains(location) {
            sound.stop()
            sounds[location] = nil
            heard.remove(location)
            soundRuns[location] = nil
        }
        for planned in plan.sounds {
            let location = planned.location
            guard !soundUnavailable, let output = soundOutput else { continue }
            if let run = planned.run {
                if let told = soundRuns[location], told != run {
                    clockTimes[location] = 0
                    if heard.remove(location) != nil { sounds[location]?.pause() }
                }
                soundRuns[location] = run
            }
            var sound = sounds[location]
            if sound == nil, planned.open, let data = pictures.cache.videoData(for: location) {
                let made = AudioPlayer(data: data, output: output)
                made.prepare()
                sounds[location] = made
                sound = made
            }
            guard planned.audible, let sound else {
                if heard.remove(location) != nil { sounds[location]?.pause() }
                continue
            }
            sound.volume = Double(min(100, max(0, plan.volume))) / 100
            if heard.insert(location).inserted { sound.play(from: clockTimes[location] ?? 0) }
        }
    }

    /// `.videoClock`: the video on screen's item has played this long. While its sound is
    /// heard, the sound leads: where it is heard goes back to the reducer as news.
    func advance(_ location: String, to time: Double) {
        clockTimes[location] = time
        players.player(for: location)?.advance(to: time)
        guard heard.contains(location), let sound = sounds[location] else { return }
        if case .noOutput(let why)? = sound.problem {
            soundUnavailable = true
            heard.remove(location)
            send(.mediaNews(.sound(location, .unavailable(why))))
            return
        }
        if let position = sound.position, abs(position - time) > Self.soundLeadsBeyond {
            send(.mediaNews(.sound(location, .heard(position))))
        }
    }

    /// Everything let go (the engine stops).
    func stop() {
        pictures.prefetch([])
        players.releaseAll()
        runs = [:]
        soundRuns = [:]
        for sound in sounds.values { sound.stop() }
        sounds = [:]
        heard = []
    }
}
