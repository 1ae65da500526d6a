import StoriesFeedIO
import Dispatch
import Foundation
import StoriesCore

/// `--screen-reader` (issue 33): the app without a full screen, for screen readers, braille
/// displays and speech synthesisers reading standard output (`| espeak-ng`). The same
/// engine and reducer as the terminal's; instead of frames, numbered lines that say what
/// changed (`Announcer`), and instead of keys as they are pressed, lines typed as words or
/// key names (`LinearInput`). No spinners or pictures: a photo is its `alt` text and
/// caption, a video its length; progress is said when an item starts and when it ends.
@MainActor
public final class ScreenReaderRun {
    public struct Options {
        public var bindings = KeyBindings.standard
        public var preload = PreloadPolicy.on
        public var sound = SoundState(enabled: false)
        public var seen = SeenState()
        public var warnings: [FeedWarning] = []
        public init() {}
    }

    /// The screen the engine lays out for (photos are decoded for it, never shown): the
    /// app's usual 80×24, so navigation behaves as in a terminal of that size.
    public static let width = 80, height = 24

    private let engine: AppEngine
    private let scheduler: any EngineScheduler
    private let say: @MainActor (String) -> Void
    private var said: SpokenScreen?
    private var number = 0
    /// Lines typed and not yet taken (a `wait` holds the rest back).
    private var queue: [String] = []
    private var waiting = false
    private var inputEnded = false
    /// A line's actions are going in: nothing is said until the last one is.
    private var holding = false
    /// Called to end the run, with the exit status, after the last line is said.
    public var finish: @MainActor (Int32) -> Void = { exit($0) }

    /// `say` writes one line (numbered here) where the listener reads it.
    public init(client: FeedClient, scheduler: any EngineScheduler = MainQueueScheduler(), services: (any EngineServices)? = nil,
                options: Options, say: @escaping @MainActor (String) -> Void) {
        self.scheduler = scheduler
        self.say = say
        // No motion: nobody sees it, and an animation would only hold the next line back.
        engine = AppEngine(services: services ?? LiveServices(client: client), scheduler: scheduler, bindings: options.bindings,
                           width: Self.width, height: Self.height, seen: options.seen, warnings: options.warnings,
                           reduceMotion: true, preload: options.preload, photosFit: true, pauseOnBlur: false, sound: options.sound)
        engine.afterTurn = { [weak self] in self?.announce() }
        engine.quit = { [weak self] status in self?.end(status) }
    }

    public var persistSeen: (@MainActor (SeenState) -> Void)? {
        get { engine.persistSeen }
        set { engine.persistSeen = newValue }
    }

    public var state: AppState { engine.state }

    public func start() {
        speak("stories, screen-reader mode. Type help for the commands, quit to leave.")
        engine.start()
    }

    /// One line typed (without its newline).
    public func take(_ line: String) {
        queue.append(line)
        takeQueued()
    }

    /// Standard input ended: the run ends once every line before it is taken.
    public func endOfInput() {
        inputEnded = true
        takeQueued()
    }

    private func takeQueued() {
        while !waiting, !queue.isEmpty {
            let line = queue.removeFirst()
            switch LinearInput.parse(line, state: engine.state) {
            case .send(let actions):
                // One line, one answer: what the line's keys did is said once they are all in
                // (a name typed into the search is not spelt out letter by letter).
                holding = true
                for action in actions {
                    if case .input(let event, _) = action { engine.input(event) } else { engine.send(action) }
                }
                holding = false
                announce()
            case .say(let text):
                speak(text)
            case .again:
                for text in Announcer.whereabouts(engine.state) { speak(text) }
            case .help:
                for text in LinearInput.helpLines { speak(text) }
            case .wait(let seconds):
                waiting = true
                _ = scheduler.after(seconds) { [weak self] in
                    guard let self else { return }
                    self.waiting = false
                    self.takeQueued()
                }
            case .quit:
                engine.send(.command(.quit))
                return
            }
        }
        if inputEnded, queue.isEmpty, !waiting { end(0) }
    }

    /// Ends the run now (a signal), as `quit` would.
    public func quit(status: Int32) {
        end(status)
    }

    /// Says what changed since the last turn.
    private func announce() {
        guard !holding else { return }
        let now = SpokenScreen(engine.state)
        guard now != said else { return }
        for text in Announcer.lines(from: said, to: now, state: engine.state) { speak(text) }
        said = now
    }

    private func speak(_ text: String) {
        number += 1
        say("\(number). \(text)")
    }

    private var ended = false
    private func end(_ status: Int32) {
        guard !ended else { return }
        ended = true
        engine.stop()
        finish(status)
    }
}
