import Dispatch
import Foundation
import StoriesCore

/// The live video players: at most `capacity` (two) at any moment — the video on screen
/// and, during a swipe or cube turn, the other story's, or else the video the person most
/// likely goes to next, held at its first frame (`AppState.warmPlayer`) — as LinkedIn's and
/// Periscope's viewers keep them. `keep` names the videos wanted now; any other player is released at
/// once, and its decoder is closed on the decode queue before a new one can open there.
/// Everything else shows its poster from the rendition cache.
///
/// A player needs the file's bytes: the picture pipeline keeps a video's bytes in the
/// rendition cache when it prepares its poster, so a player starts without fetching again.
@MainActor
public final class PlayerPool {
    public static let capacity = 2

    public private(set) var players: [String: VideoPlayer] = [:]
    /// Live decoders, counted where they open and close (never above `capacity`).
    public let decoders = DecoderCount()
    /// Frames shown and dropped by players since released, plus those live.
    private var shownBefore = 0
    private var droppedBefore = 0
    private let execution: PicturePipeline.Execution
    private let limits: VideoLimits
    /// One serial queue for every player's decoding: a released decoder is closed before the
    /// next one opens, and video never takes more than one core.
    private let queue = DispatchQueue(label: "stories.video", qos: .userInitiated)

    /// A player's news, by location.
    public var onEvent: (@MainActor (_ location: String, _ event: VideoEvent) -> Void)?

    public init(execution: PicturePipeline.Execution = .background, limits: VideoLimits = .standard) {
        self.execution = execution
        self.limits = limits
    }

    /// Keeps players for exactly these videos (the first `capacity`), each rendering at its
    /// key; releases the rest at once. A wanted video whose bytes are not here yet gets its
    /// player when they are (call again). New players are prepared (first frame) at once.
    public func keep(_ wanted: [(key: RenditionKey, data: Data?)]) {
        let wanted = Array(wanted.prefix(Self.capacity))
        let locations = Set(wanted.map(\.key.location))
        for (location, player) in players where !locations.contains(location) {
            release(location, player)
        }
        for (key, data) in wanted {
            if let player = players[key.location] {
                player.resize(key)
                continue
            }
            guard let data else { continue }
            let location = key.location
            let player = VideoPlayer(location: location, data: data, key: key, limits: limits,
                                     execution: execution, queue: queue, count: decoders)
            player.onEvent = { [weak self] event in self?.onEvent?(location, event) }
            players[location] = player
            player.prepare()
        }
    }

    public func player(for location: String) -> VideoPlayer? { players[location] }

    /// About what the live players hold (`VideoPlayer.estimatedBytes`): counted against the
    /// rendition cache's budget.
    public var estimatedBytes: Int { players.values.reduce(0) { $0 + $1.estimatedBytes } }

    /// Frames shown and dropped, all told.
    public var framesShown: Int { shownBefore + players.values.reduce(0) { $0 + $1.framesShown } }
    public var framesDropped: Int { droppedBefore + players.values.reduce(0) { $0 + $1.framesDropped } }

    /// Releases every player (the app stops).
    public func releaseAll() {
        for (location, player) in players { release(location, player) }
    }

    private func release(_ location: String, _ player: VideoPlayer) {
        shownBefore += player.framesShown
        droppedBefore += player.framesDropped
        player.stop()
        players[location] = nil
    }
}
