import StoriesFeedIO
import Dispatch
import Foundation
import StoriesCore

/// `--screen-reader` (issue 33): the app without a full screen, for screen readers, braille
/// displays and speech synthesisers reading standard output (`| espeak-ng`). The same
/// engine and reducer as the terminal's; instead of frames, numbered lines that say what
/// changed (`Announcer`), and instead of keys as they are pressed, lines typed as words or
/// key names (`ScreenReaderInput`). No spinners or pictures: a photo is its `alt` text and
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
                           reduceMotion: true, preload: options.preload, photosFit: true, pauseOnBlur: false, sound: options.sound,
                           waitsAtItemEnd: true)
        engine.afterTurn = { [weak self] in self?.announce() }
        // No terminal to put a link on the clipboard of (and no escape sequence may reach a
        // speech synthesiser): `y` says the address instead.
        engine.copyToClipboard = { [weak self] text in self?.speak("The link's address: " + SafeText.line(text, maxColumns: 2_048)) }
        engine.quit = { [weak self] status in self?.end(status) }
    }

    public var persistSeen: (@MainActor (SeenState) -> Void)? {
        get { engine.persistSeen }
        set { engine.persistSeen = newValue }
    }

    public var state: AppState { engine.state }

    /// What is seen here is also kept by `remote` (a server's `/v1/seen`) as well as by
    /// `keep` (the seen file), and what the same viewer sees on another terminal arrives
    /// as news, merged by the reducer — as in the full screen (`TerminalApp.syncSeen`).
    /// A problem syncing is said as a notice; `finish` sends what is left before the end.
    public func syncSeen(with remote: any SeenRemote, keep: @escaping @MainActor (SeenState) -> Void) {
        self.remote = remote
        engine.syncSeen(with: remote, keep: keep)
    }
    private var remote: (any SeenRemote)?

    /// Sends what is left to `remote` (at most a second; the rest stays queued on disk).
    public func finishSync() {
        remote?.finish(timeout: 1)
    }

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

    /// Lines for the app wait while the feed's first page, a story being opened or the item's
    /// photo is on its way (a script's `open` then `pause` acts on the story, not on the
    /// loading row, and is said after the item is); Esc
    /// and everything said rather than done go at once.
    private var busy: Bool {
        let state = engine.state
        return state.isLoading || state.row.opening != nil || state.viewer?.isWaiting == true || state.mediaOnItsWay != nil
    }
    /// When the first line in the queue began to wait for the app, and how many waits began.
    private var heldSince: Double?
    private var holds = 0
    /// How long a line waits for the feed or a story before it is given up.
    static let longestHold = 10.0
    private var taking = false

    private func takeQueued() {
        guard !taking else { return }
        taking = true
        defer { taking = false }
        while !waiting, let line = queue.first {
            let input = ScreenReaderInput.parse(line, state: engine.state)
            // What acts on the app, or is answered from where it is, waits its turn (quit too:
            // a script's last line comes after what it asked for); Esc, which stops a story
            // opening, help, where and wait go at once.
            var acts: Bool
            switch input {
            case .send(let actions): acts = !actions.allSatisfy { $0 == .input(.key(.escape), readAt: 0) }
            case .say, .quit: acts = true
            case .help, .again, .wait: acts = false
            }
            if acts, busy {
                let now = scheduler.now().uptime
                guard let since = heldSince else {
                    heldSince = now
                    holds += 1
                    let hold = holds
                    // Said only when the wait is long enough to notice.
                    _ = scheduler.after(0.5) { [weak self] in
                        guard let self, self.holds == hold, self.heldSince != nil else { return }
                        self.speak("One moment: still loading.")
                    }
                    // Looked at again when the wait is up, if nothing moves before.
                    _ = scheduler.after(Self.longestHold) { [weak self] in self?.takeQueued() }
                    return // taken when the state moves on (`announce`)
                }
                guard now - since >= Self.longestHold - 0.01 else { return }
                if input == .quit {
                    heldSince = nil
                    queue.removeFirst()
                    engine.send(.command(.quit))
                    return
                }
                // Held long enough: dropped, so what comes after it (quit) is not stuck behind it.
                speak("‘\(SafeText.line(line, maxColumns: 40))’ was not done: still loading after \(Int(Self.longestHold)) seconds.")
                heldSince = nil
                queue.removeFirst()
                continue
            }
            heldSince = nil
            queue.removeFirst()
            switch input {
            case .send(let actions):
                // One line, one answer: what the line's keys did is said once they are all in
                // (a name typed into the search is not spelt out letter by letter).
                holding = true
                let before = SpokenScreen(engine.state)
                for action in actions {
                    if case .input(let event, _) = action { engine.input(event) } else { engine.send(action) }
                }
                holding = false
                announce()
                // A command that changed nothing a listener is told of still gets an answer.
                if SpokenScreen(engine.state).tellsTheSame(as: before) { speak("Nothing happened there.") }
            case .say(let text):
                speak(text)
            case .again:
                for text in Announcer.whereabouts(engine.state) { speak(text) }
            case .help:
                for text in ScreenReaderInput.helpLines { speak(text) }
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
        // The input is over: the run ends once what the last line asked for is said (a
        // story opening, its photo), `longestHold` at most.
        if inputEnded, queue.isEmpty, !waiting {
            if !busy { end(0) } else if !endScheduled {
                endScheduled = true
                _ = scheduler.after(Self.longestHold) { [weak self] in self?.end(0) }
            }
        }
    }
    private var endScheduled = false

    /// Ends the run now (a signal), as `quit` would.
    public func quit(status: Int32) {
        end(status)
    }

    /// Says what changed since the last turn.
    private func announce() {
        guard !holding else { return }
        let now = SpokenScreen(engine.state)
        guard now != said else {
            if !queue.isEmpty || inputEnded, !busy { takeQueued() }
            return
        }
        for text in Announcer.lines(from: said, to: now, state: engine.state) { speak(text) }
        said = now
        if !queue.isEmpty || inputEnded, !busy { takeQueued() }
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
