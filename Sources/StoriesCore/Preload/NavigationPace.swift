/// How this person gets through stories, learned from their last navigations, and how long
/// the network takes to bring a photo: what the adaptive preload window is sized from
/// (`PreloadPlanner.window`). Kept in `AppState`, changed only by the reducer.
public struct NavigationPace: Equatable, Sendable {
    /// What one navigation by the person was.
    public enum Step: Equatable, Sendable {
        /// On to the next item of the same story (a tap, →).
        case item
        /// On to another story (a swipe, `]`, a tap past the last item).
        case story
        /// Back (an item or a story).
        case back
    }

    /// Navigations remembered: enough for a pattern, few enough to follow a change of mind.
    public static let remembered = 8
    /// A photo's fetch time until one has been measured: a phone network's round trip.
    public static let assumedFetch = 0.35
    /// The most items ahead a window reaches, however fast the person goes.
    public static let maxLead = 6

    public private(set) var times: [Double] = []
    public private(set) var steps: [Step] = []
    /// Items moved through by taps in each story before leaving it, the last few stories.
    public private(set) var tapsPerStory: [Int] = []
    /// Taps in the story shown since arriving in it.
    public private(set) var tapsInStory = 0
    /// Seconds a media fetch took, smoothed over the last ones (nil until one is measured).
    public private(set) var fetchSeconds: Double?

    public init() {}

    /// The person navigated at `time` (seconds, the app's clock).
    public mutating func record(_ step: Step, at time: Double) {
        guard time.isFinite else { return }
        times.append(time)
        steps.append(step)
        if times.count > Self.remembered {
            times.removeFirst()
            steps.removeFirst()
        }
        switch step {
        case .item:
            tapsInStory += 1
        case .story:
            tapsPerStory.append(tapsInStory)
            if tapsPerStory.count > Self.remembered { tapsPerStory.removeFirst() }
            tapsInStory = 0
        case .back:
            break
        }
    }

    /// A fetch of `bytes` took `seconds` (bounded: a stalled fetch does not swamp it).
    public mutating func recordFetch(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return }
        let sample = min(seconds, 10)
        fetchSeconds = fetchSeconds.map { 0.7 * $0 + 0.3 * sample } ?? sample
    }

    /// The median time between the last navigations, once there are three; nil before.
    public var interval: Double? {
        guard times.count >= 3 else { return nil }
        let gaps = zip(times.dropFirst(), times).map { max(0, $0 - $1) }.sorted()
        return gaps[gaps.count / 2]
    }

    /// The share of the last navigations that went to another story.
    public var storyShare: Double {
        steps.isEmpty ? 0 : Double(steps.filter { $0 == .story }.count) / Double(steps.count)
    }

    /// Taps a story usually gets before the person moves on (the median of the last
    /// stories); nil until two stories have been left.
    public var usualTaps: Int? {
        guard tapsPerStory.count >= 2 else { return nil }
        return tapsPerStory.sorted()[tapsPerStory.count / 2]
    }

    /// How many navigations come while one fetch runs, plus the one being fetched for:
    /// how far ahead preparing must reach to be done in time. 2 until the pace is known.
    public var lead: Int {
        guard let interval else { return 2 }
        let fetch = fetchSeconds ?? Self.assumedFetch
        return max(1, min(Self.maxLead, Int((fetch / max(0.02, interval)).rounded(.up)) + 1))
    }
}
