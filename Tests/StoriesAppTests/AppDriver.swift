@testable import StoriesFeedIO
import StoriesTestSupport
import StoriesCells
import Foundation
import StoriesApp
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing

/// The one harness: the real `AppEngine` on the virtual scheduler with virtual services,
/// drawing into a `TestScreen` through the same canvas diff the terminal gets. Keys,
/// clicks, drags and resizes go in as the terminal would send them; time passes only when
/// a test says so (`wait`), and then every tick, wake-up and network answer due comes at
/// its moment. Nothing here re-implements the engine's loop.
@MainActor
final class AppDriver {
    let scheduler: VirtualScheduler
    let engine: AppEngine
    let screen: TestScreen
    let services: VirtualServices

    /// `motion: false` gives instant cuts (screens compared after a navigation);
    /// TransitionSnapshotTests look at the movement frame by frame.
    init(width: Int = 80, height: Int = 24, source: (any FeedSource)? = nil, network: NetworkProfile = .local,
         motion: Bool = false, preload: PreloadPolicy = .on, seen: SeenState = SeenState(),
         bindings: KeyBindings = .standard, depth: ColorDepth = .palette256, start: Moment = Fixture.moment,
         pauseOnBlur: Bool = true, background: RGB = Display.dark, sound: SoundState = SoundState(enabled: false),
         layout: LayoutChoice = LayoutChoice(), backgroundKnown: Bool = true) {
        scheduler = VirtualScheduler(start: start)
        let client = FeedClient(source: source ?? Fixture.demoSource, profile: network)
        services = VirtualServices(client: client, scheduler: scheduler)
        engine = AppEngine(services: services, scheduler: scheduler, bindings: bindings, width: width, height: height,
                           seen: seen, reduceMotion: !motion, preload: preload, pauseOnBlur: pauseOnBlur, sound: sound,
                           layout: layout)
        var display = Display(colorDepth: depth, background: background)
        display.backgroundKnown = backgroundKnown
        engine.setDisplay(display)
        screen = TestScreen(width: width, height: height)
        engine.draw = { [screen] in screen.draw($0) }
        engine.quit = { [weak self] status in self?.quitStatus = status }
        engine.persistSeen = { [weak self] seen in self?.persisted.append(seen) }
        engine.start()
        settle()
    }

    /// The app asked to quit (q), with this status.
    private(set) var quitStatus: Int32?
    /// Every seen state handed over for saving, in order.
    private(set) var persisted: [SeenState] = []

    /// A network whose every answer takes `latency` seconds (exactly: no jitter, no loss).
    static func network(latency: Double) -> NetworkProfile {
        var profile = NetworkProfile.local
        profile.name = "test"
        profile.latency = latency
        return profile
    }

    /// The first page of the demo has arrived over a network of 2 s; the stories' items
    /// are still on their way (they arrive 2 s later).
    static func firstPageOnly(width: Int = 80, height: Int = 24) -> AppDriver {
        let driver = AppDriver(width: width, height: height, network: network(latency: 2))
        driver.wait(2)
        return driver
    }

    var state: AppState { engine.state }
    var now: Moment { scheduler.now() }

    /// Runs everything due now (answers with no delay, view models, the coalesced redraw).
    func settle() { scheduler.run(until: now.uptime) }

    /// Lets time pass: ticks, the hold check and network answers arrive when due.
    func wait(_ seconds: Double) { scheduler.run(until: now.uptime + max(0, seconds)) }

    /// Lets time pass, then a frame at exactly that moment (the frame timer's own ticks
    /// fall on its 1/30 s grid; an animation test wants a fraction of its timeline).
    func frame(after seconds: Double) {
        wait(seconds)
        deliver(.tick)
    }

    /// Runs until nothing is left to do but the frame timer (a bounded number of steps).
    func finishWork(limit: Int = 100_000) {
        var steps = 0
        while engine.isBusy, steps < limit, scheduler.runNext() { steps += 1 }
        settle()
    }

    func press(_ keys: InputEvent...) { press(keys) }

    func press(_ keys: [InputEvent]) {
        for key in keys {
            engine.input(key)
            settle()
        }
    }

    func type(_ text: String) {
        for character in text { press(.key(.character(character))) }
    }

    func mouse(_ kind: MouseEvent.Kind, column: Int, row: Int) {
        engine.input(.mouse(MouseEvent(kind: kind, column: column, row: row)))
        settle()
    }

    /// A click: press and release at one cell, at once.
    func click(column: Int, row: Int) {
        mouse(.press(.left), column: column, row: row)
        mouse(.release(.left), column: column, row: row)
    }

    /// A left-button drag from one cell to another in `steps` reports, then the release.
    func drag(from start: (column: Int, row: Int), to end: (column: Int, row: Int), steps: Int = 4, release: Bool = true) {
        mouse(.press(.left), column: start.column, row: start.row)
        for step in 1...steps {
            let column = start.column + (end.column - start.column) * step / steps
            let row = start.row + (end.row - start.row) * step / steps
            mouse(.drag(.left), column: column, row: row)
        }
        if release { mouse(.release(.left), column: end.column, row: end.row) }
    }

    func resize(width: Int, height: Int) {
        engine.resize(width: width, height: height)
        settle()
    }

    /// A result of work, delivered as the services would (a failure a source cannot be
    /// made to give on cue).
    func deliver(_ action: AppAction) {
        engine.send(action)
        settle()
    }

    var canvas: Canvas { screen.canvas }
    /// The pictures in real pixels on screen now.
    var pictures: [Canvas.PictureRegion] { screen.pictures }
    var lines: [String] { screen.lines }
    var text: String { screen.text }
    func snapshot(styles: Bool = false) -> String { screen.snapshot(styles: styles) }

    /// The screen for the current state with pictures answered as a test says (a photo
    /// that failed, a BlurHash standing in): the pure render function, not the engine.
    func render(pictures: @escaping AppView.PictureLookup) -> Canvas {
        AppView.render(state, width: state.screenWidth, height: state.screenHeight,
                       pictures: pictures)
    }

    /// The screen the engine would draw for `state` (the cache as it is now).
    func render(_ state: AppState) -> Canvas {
        AppView.render(state, width: state.screenWidth, height: state.screenHeight,
                       pictures: PictureLookups.cached(services.pictures.cache, screenWidth: state.screenWidth,
                                                       screenHeight: state.screenHeight, display: engine.display,
                                                       fit: state.media.photosFit))
    }

    /// Where the viewer is: (story, item), nil on the row.
    var position: (story: Int, item: Int)? { state.viewer.map { ($0.storyIndex, $0.itemIndex) } }
    var lastDecision: GestureDecision? { state.gesture.log.last }
    /// The current item's progress in seconds.
    var elapsed: Double? { state.viewer.map { $0.playback.elapsed(at: now.uptime) } }
}

/// A feed held in memory: the stories of a `FeedLoad`, paged like any source.
struct MemoryFeed: FeedSource {
    var title = "Demo stories"
    var load: FeedLoad
    /// Stories whose items fail to load, with the reason.
    var failing: [StoryID: String] = [:]
    var media: (@Sendable (String, Int) throws(FeedError) -> Data?)?
    /// Which way the feed says it reads (its pages carry it).
    var direction: LayoutDirection?
    /// The home sections (none when nil).
    var homeSections: (@Sendable () throws(FeedError) -> HomeLoad)?

    func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let start = cursor.flatMap(Int.init) ?? 0
        let end = min(load.stories.count, start + max(1, limit))
        let stories = start < end ? Array(load.stories[start..<end]) : []
        return FeedPage(stories: stories.map(StorySummary.init), nextCursor: end < load.stories.count ? String(end) : nil,
                        warnings: start == 0 ? load.warnings : [], direction: direction)
    }

    /// Asked before each story's items: a failure to give instead (a source that is down).
    var storyFailure: (@Sendable (StoryID) -> FeedError?)?

    func story(id: StoryID) throws(FeedError) -> StoryLoad {
        if let reason = failing[id] { throw FeedError(file: "stories/\(id).json", reason: reason) }
        if let failure = storyFailure?(id) { throw failure }
        guard let story = load.stories.first(where: { $0.id == id }) else { throw FeedError(file: "stories/\(id).json", reason: "no such story") }
        return StoryLoad(story: story)
    }

    func home() throws(FeedError) -> HomeLoad {
        guard let homeSections else { return HomeLoad(layout: .empty) }
        return try homeSections()
    }

    func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        if let media { return try media(location, maxBytes) }
        return try Fixture.demoFeed?.media(at: location, maxBytes: maxBytes) // the demo's photos
    }
}


/// The demo feed at a fixed moment: snapshots do not depend on today's date.
enum Fixture {
    static let moment = Moment(uptime: 1000, date: Date(timeIntervalSince1970: 1_795_240_800)) // 2026-11-21T06:00:00Z

    static let demoDirectory = DemoFeed.directory

    static let demoFeed = DemoFeed.directory.flatMap { try? FeedFolder(directory: $0) }

    static let demo = demoFeed?.loadAll() ?? FeedLoad(stories: [], warnings: [FeedWarning("demo feed missing")])

    static let demoSource: any FeedSource = demoFeed ?? MemoryFeed(load: demo)

    /// The demo's stories three times over (ids "ayla", "ayla-2", "ayla-3" …): a feed longer
    /// than a wide screen's row and the screen beyond it, so some of it is paged in later.
    static let longDemo = FeedLoad(stories: (1...3).flatMap { copy in
        demo.stories.map { story in
            var story = story
            if copy > 1 { story.id += "-\(copy)" }
            return story
        }
    }, warnings: demo.warnings)
}
