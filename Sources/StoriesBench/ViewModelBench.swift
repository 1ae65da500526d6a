import ArgumentParser
import Foundation
import StoriesCore
import StoriesUI

/// `stories bench viewmodels`: LINE's measurements for the view-model layer. Builds the
/// view models of 170, 200 and 1012 stories (ring bubbles and viewer item models) and scrolls the
/// ring row from the first to the last story of 10 and of 1012, timing each frame's
/// main-queue work (the reducer, the state comparison the run loop makes, drawing the
/// screen into a canvas).
struct ViewModelBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewmodels",
        abstract: "Time building view models (170/200/1012 stories) and a ring-row frame (10 vs 1012)."
    )

    @Option(help: "Runs per build size.")
    var runs = 30

    @Option(help: "Frames timed per scroll.")
    var frames = 3000

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    static let width = 100, height = 30
    static let now = Date(timeIntervalSince1970: 1_795_240_800)

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        guard runs >= 1, frames >= 10 else { throw ValidationError("--runs must be at least 1 and --frames at least 10") }
        if !json { print("view models: ring bubbles + viewer item models at \(Self.width) columns, \(runs) runs (median; p90 in brackets)") }
        for count in [170, 200, 1012] {
            let stories = SyntheticFeed(count: count).loadAll().stories
            let job = ViewModelJob(ring: stories.map { .init(summary: StorySummary($0), story: $0) }, stories: stories,
                                   seen: SeenState(), now: Self.now, width: Self.width)
            let items = stories.reduce(0) { $0 + $1.items.count }
            var times: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                let update = ViewModelFactory.build(job)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                guard update.ring.count == count else { throw ValidationError("\(update.ring.count) bubbles built for \(count) stories") }
            }
            let (median, p90) = Stats.medianAndP90(times)
            if json {
                print(JSONValue.object([
                    "bench": "viewmodels", "stories": .int(count), "items": .int(items), "runs": .int(runs),
                    "build_ms": .rounded(median, places: 3), "p90_ms": .rounded(p90, places: 3),
                ]).text())
            } else {
                print("  \(count) stories (\(items) items)".padding(toLength: 32, withPad: " ", startingAt: 0)
                      + "build \(Self.fixed(median, 2)) ms [\(Self.fixed(p90, 2))]")
            }
        }

        let small = try frameCost(stories: 10)
        let large = try frameCost(stories: 1012)
        let ratio = large.median / small.median
        if json {
            print(JSONValue.object([
                "bench": "ring_frame", "frames": .int(frames), "frame_us_10": .rounded(small.median, places: 1),
                "frame_us_1012": .rounded(large.median, places: 1), "p90_us_10": .rounded(small.p90, places: 1),
                "p90_us_1012": .rounded(large.p90, places: 1), "ratio": .rounded(ratio, places: 2),
            ]).text())
        } else {
            print("ring-row frame, \(Self.width)×\(Self.height), scrolling first to last, \(frames) frames (median; p90 in brackets)")
            print("  10 stories                    \(Self.fixed(small.median, 1)) µs [\(Self.fixed(small.p90, 1))]")
            print("  1012 stories                  \(Self.fixed(large.median, 1)) µs [\(Self.fixed(large.p90, 1))]")
            print("  ratio 1012 / 10               \(Self.fixed(ratio, 2))")
        }
    }

    /// Per-frame main-queue cost of one step along the ring row, over `frames` steps
    /// (wrapping to the first story at the end, untimed).
    private func frameCost(stories count: Int) throws -> (median: Double, p90: Double) {
        var state = loadedState(SyntheticFeed(count: count).loadAll().stories)
        var times: [Double] = []
        times.reserveCapacity(frames)
        var now = Moment(uptime: 0, date: Self.now)
        while times.count < frames {
            if state.row.selection == state.feed.store.count - 1 {
                _ = AppReducer.reduce(&state, .command(.selectFirst), at: now)
            }
            now = now.advanced(by: 0.016)
            let start = DispatchTime.now().uptimeNanoseconds
            let before = state
            let effects = AppReducer.reduce(&state, .command(.selectNext), at: now)
            let changed = state != before
            let canvas = AppView.render(state, width: Self.width, height: Self.height)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
            // Moving the selection asks for a new preload set (the feed layer follows it) and,
            // far along 1012 stories, item models built again for stories near it whose models
            // were let go (at most 48 stories' are kept): built off the main queue in the app,
            // so here untimed. Anything else is a change the bench does not know: said, not trapped.
            for effect in effects {
                switch effect {
                case .preload: break
                case .buildViewModels(let job): Self.reduceBuilding(&state, .viewModelsBuilt(ViewModelFactory.build(job)))
                default: throw ValidationError("moving the selection asked for \(effect), which this bench does not expect")
                }
            }
            guard changed, canvas.width == Self.width else {
                throw ValidationError("moving the selection changed nothing, or the frame is not \(Self.width) wide")
            }
        }
        return Stats.medianAndP90(times)
    }

    /// Every story on one page, items loaded, view models built: a ring row that is all there.
    private func loadedState(_ stories: [Story]) -> AppState {
        var state = AppState(title: "bench", now: Moment(uptime: 0, date: Self.now))
        var actions: [AppAction] = [.resized(width: Self.width, height: Self.height), .start,
                                    .pageLoaded(FeedPage(stories: stories.map(StorySummary.init), nextCursor: nil))]
        actions += stories.map { .storyLoaded(StoryLoad(story: $0)) }
        for action in actions { Self.reduceBuilding(&state, action) }
        return state
    }

    /// Reduces an action and installs at once the view models it asks for (the bench has no
    /// main queue for the builds to come back on).
    private static func reduceBuilding(_ state: inout AppState, _ action: AppAction) {
        var pending = AppReducer.reduce(&state, action, at: state.now)
        while let effect = pending.first {
            pending.removeFirst()
            if case .buildViewModels(let job) = effect {
                pending += AppReducer.reduce(&state, .viewModelsBuilt(ViewModelFactory.build(job)), at: state.now)
            }
        }
    }

    static func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
}
