import Foundation
import StoriesAssets
import StoriesCore
import Testing
@testable import StoriesUI

/// Compares a screen with `__Snapshots__/<name>.txt`; `STORIES_UPDATE_SNAPSHOTS=1` rewrites it.
func expectSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("__Snapshots__").appendingPathComponent("\(name).txt")
    switch SnapshotFile.verify(text, at: url) {
    case .matched:
        break
    case .recorded(let path):
        Issue.record("Recorded a new snapshot at \(path); review it, then run the tests again.", sourceLocation: sourceLocation)
    case .mismatched(let diff):
        Issue.record("Snapshot '\(name)' differs (rerun with \(SnapshotFile.updateVariable)=1 to accept):\n\(diff)", sourceLocation: sourceLocation)
    }
}

/// The demo feed, loaded, at a fixed moment: snapshots do not depend on today's date.
enum Fixture {
    static let moment = Moment(uptime: 1000, date: Date(timeIntervalSince1970: 1_795_240_800)) // 2026-11-21T06:00:00Z

    static let demoDirectory = DemoFeed.directory

    static let demo: FeedLoad = {
        guard let directory = DemoFeed.directory, let feed = try? DirectoryFeed(directory: directory) else {
            return FeedLoad(stories: [], warnings: [FeedWarning("demo feed missing")])
        }
        return feed.loadAll()
    }()

    /// The stories on one page with all their items loaded and view models built, as the
    /// app has them once the feed has arrived.
    /// Instant cuts unless `motion`: screens are compared after a navigation, and
    /// TransitionSnapshotTests draw the movement frame by frame.
    static func loadedState(_ load: FeedLoad = demo, width: Int = 80, motion: Bool = false) -> AppState {
        var state = AppState(title: "Demo stories", now: moment)
        state.reduceMotion = !motion
        var actions: [AppAction] = [.resized(width: width), .start,
                                    .pageLoaded(FeedPage(stories: load.stories.map(StorySummary.init), nextCursor: nil, warnings: load.warnings))]
        actions += load.stories.map { .storyLoaded(StoryLoad(story: $0)) }
        for action in actions { _ = Pilot.apply(action, to: &state, at: moment) }
        return state
    }
}

/// A scripted session: keys and mouse clicks go through the same key bindings, pointer
/// routing and reducer as in the terminal; time is moved by hand; the screen is read back
/// through the test backend.
struct Pilot {
    var state: AppState
    var now: Moment
    var backend: TestBackend
    var effects: [AppEffect] = []
    var router = GestureRouter()

    init(width: Int = 80, height: Int = 24, state: AppState = Fixture.loadedState()) {
        self.state = state
        now = state.now
        backend = TestBackend(width: width, height: height)
        effects += Self.apply(.resized(width: width), to: &self.state, at: now)
        backend.draw(self.state)
    }

    /// Applies an action the way the run loop does, with the view models it asks for
    /// built at once (the app builds them off the main queue a moment later).
    @discardableResult
    static func apply(_ action: AppAction, to state: inout AppState, at now: Moment) -> [AppEffect] {
        AppReducer.reduceBuildingViewModels(&state, action, at: now)
    }

    mutating func press(_ keys: InputEvent...) {
        for key in keys { route(key) }
        backend.draw(state)
    }

    /// The app's own routing (the GestureRouter), applied to this pilot's state.
    private mutating func route(_ event: InputEvent) {
        var state = self.state
        var effects: [AppEffect] = []
        let now = self.now
        let width = backend.canvas.width, height = backend.canvas.height
        let surface = GestureSurface(width: width, height: height,
                                     isUsable: width >= AppView.minimumWidth && height >= AppView.minimumHeight,
                                     bubbleAt: { [snapshot = state] column, row in
                                         HomeScreen.bubbleIndex(atColumn: column, row: row, state: snapshot, width: width)
                                     })
        router.route(event, at: now.uptime, surface: surface, state: { state },
                     send: { effects += Self.apply($0, to: &state, at: now) })
        self.state = state
        self.effects += effects
    }

    mutating func type(_ text: String) {
        for character in text { press(.key(.character(character))) }
    }

    /// A click: press and release at one cell, at once.
    mutating func click(column: Int, row: Int) {
        mouse(.press(.left), column: column, row: row)
        mouse(.release(.left), column: column, row: row)
    }

    mutating func mouse(_ kind: MouseEvent.Kind, column: Int, row: Int) {
        route(.mouse(MouseEvent(kind: kind, column: column, row: row)))
        backend.draw(state)
    }

    /// A left-button drag from one cell to another in `steps` reports, then the release.
    mutating func drag(from start: (column: Int, row: Int), to end: (column: Int, row: Int), steps: Int = 4, release: Bool = true) {
        mouse(.press(.left), column: start.column, row: start.row)
        for step in 1...steps {
            let column = start.column + (end.column - start.column) * step / steps
            let row = start.row + (end.row - start.row) * step / steps
            mouse(.drag(.left), column: column, row: row)
        }
        if release { mouse(.release(.left), column: end.column, row: end.row) }
    }

    /// Lets time pass in frame steps, delivering ticks and the router's hold check as the
    /// run loop would.
    mutating func wait(_ seconds: Double, step: Double = 1.0 / 30) {
        let end = now.uptime + seconds
        while now.uptime + step <= end + 1e-9 {
            now = now.advanced(by: step)
            if let wake = router.wakeAt, wake <= now.uptime {
                var state = self.state
                var effects: [AppEffect] = []
                let now = self.now
                router.wake(at: now.uptime) { effects += Self.apply($0, to: &state, at: now) }
                self.state = state
                self.effects += effects
            }
            effects += Self.apply(.tick, to: &state, at: now)
        }
        backend.draw(state)
    }

    mutating func resize(width: Int, height: Int) {
        backend.resize(width: width, height: height)
        effects += Self.apply(.resized(width: width), to: &state, at: now)
        backend.draw(state)
    }

    var lines: [String] { backend.lines }
    var screen: String { backend.text }
}
