import CNcursesw
import CStoriesSupport
import Dispatch
import Foundation
import StoriesCore
import StoriesMedia
import StoriesUI

/// The run loop of DESIGN.md: everything happens on the main queue (`dispatchMain`), fed by
/// Dispatch sources — stdin (drained to ERR), SIGWINCH, SIGINT/SIGTERM/SIGHUP, SIGTSTP — and by a
/// frame timer that exists only while something on screen moves. State changes go through
/// `AppReducer`; its effects run here, background work on global queues.
@MainActor
public final class TerminalApp {
    private let client: FeedClient
    private let viewModels = ViewModelBuilder()
    /// Story item requests in flight, so one nobody waits for can be cancelled.
    private var storyRequests: [StoryID: FeedRequest] = [:]
    private let clock: any Clock
    private let bindings: KeyBindings
    private let terminal: CursesScreen
    private var state: AppState
    private var decoder = InputDecoder()
    private var sources: [any DispatchSourceProtocol] = []
    private var frameTimer: (any DispatchSourceTimer)?
    private var redrawScheduled = false
    private let pictures: PicturePipeline

    /// The shortest gap between frames (about 30 a second). Frames come only when the screen
    /// will change: `AppView.secondsUntilNextChange` says when.
    static let minimumFrameInterval = 1.0 / 30

    private let seenStore: SeenStore?

    /// `seenStore` keeps what was watched between runs; its state is read before the screen
    /// is touched (a corrupt file becomes a warning on the home screen).
    public init(client: FeedClient, seenStore: SeenStore? = nil, clock: any Clock = SystemClock(),
                bindings: KeyBindings = .standard) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        guard let input = fdopen(STDIN_FILENO, "r"), let output = fdopen(STDOUT_FILENO, "w") else {
            throw TerminalError.notATerminal
        }
        stories_install_crash_restore(STDOUT_FILENO)
        terminal = try CursesScreen(input: input, output: output)
        self.client = client
        pictures = PicturePipeline(cache: RenditionCache()) { location, maxBytes, done in
            client.media(at: location, maxBytes: maxBytes, deliverOn: .global(qos: .userInitiated)) { result in
                done(result.mapError { MediaError.unreadable($0.reason) })
            }
        }
        self.clock = clock
        self.bindings = bindings
        self.seenStore = seenStore
        let loaded = seenStore?.load()
        state = AppState(title: client.source.title, now: clock.now(), seen: loaded?.state ?? SeenState(),
                         warnings: loaded?.warning.map { [$0] } ?? [])
        if client.profile != .local { state.network = client.profile.name }
    }

    /// Starts the app and never returns; the process ends through `quit(status:)`.
    public func run() -> Never {
        installSources()
        send(.resized(width: terminal.size.width))
        send(.start)
        redraw()
        dispatchMain()
    }

    // MARK: - Actions and effects

    private func send(_ action: AppAction) {
        let before = state
        let effects = AppReducer.reduce(&state, action, at: clock.now())
        for effect in effects { perform(effect) }
        if state != before { setNeedsDisplay() }
        updateFrameTimer()
    }

    private func perform(_ effect: AppEffect) {
        switch effect {
        case .loadPage(let cursor):
            client.page(after: cursor, limit: StoryStore.pageSize) { result in
                MainActor.assumeIsolated {
                    switch result {
                    case .success(let page): self.send(.pageLoaded(page))
                    case .failure(let error): self.send(.pageFailed(error.reason))
                    }
                }
            }
        case .loadStory(let id):
            storyRequests[id] = client.story(id: id) { result in
                MainActor.assumeIsolated {
                    self.storyRequests[id] = nil
                    switch result {
                    case .success(let load): self.send(.storyLoaded(load))
                    case .failure(let error): self.send(.storyFailed(id, error.description))
                    }
                }
            }
        case .cancelStory(let id):
            storyRequests.removeValue(forKey: id)?.cancel()
        case .retryPage(let delay):
            DispatchQueue.main.asyncAfter(deadline: .now() + delay) {
                MainActor.assumeIsolated { self.send(.retryPage) }
            }
        case .buildViewModels(let job):
            viewModels.submit(job) { update in
                MainActor.assumeIsolated { self.send(.viewModelsBuilt(update)) }
            }
        case .quit:
            quit(status: 0)
        case .persistSeen(let seen):
            seenStore?.save(seen)
        }
    }

    // MARK: - Input

    private func handleInput() {
        let raw = terminal.readAvailable()
        if raw.isEmpty && Self.inputHungUp() {
            quit(status: 0) // the terminal went away; without this the source would fire forever
        }
        for input in raw { decoder.feed(input) }
        for event in decoder.flush() { handle(event) }
    }

    private func handle(_ event: InputEvent) {
        let size = terminal.size
        InputRouting.route(event, bindings: bindings, width: size.width, height: size.height,
                           state: { state }, send: { send($0) })
    }

    // MARK: - Drawing

    private func setNeedsDisplay() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated { self.redraw() }
        }
    }

    private func redraw() {
        redrawScheduled = false
        let size = terminal.size
        terminal.draw(AppView.render(state, width: size.width, height: size.height, bindings: bindings,
                                     pictures: { media, width, height, fit in
                                         MainActor.assumeIsolated { self.picture(media, width: width, height: height, fit: fit) }
                                     }))
    }

    /// The picture for the screen, from the cache; when it is missing, decoding starts in
    /// the background and a redraw follows.
    private func picture(_ media: Media, width: Int, height: Int, fit: FitMode) -> PictureState {
        let key = RenditionKey(location: media.location, width: width, height: height, depth: terminal.colorDepth, fit: fit)
        return pictures.picture(key, blurhash: media.blurhash, cellAspect: terminal.cellAspect) { [weak self] in
            self?.setNeedsDisplay()
        }
    }

    /// Arms a one-shot timer for the moment the screen next changes by itself, or removes
    /// it when nothing moves.
    private func updateFrameTimer() {
        let size = terminal.size
        guard let delay = AppView.secondsUntilNextChange(state, width: size.width, height: size.height) else {
            frameTimer?.cancel()
            frameTimer = nil
            return
        }
        let timer: any DispatchSourceTimer
        if let existing = frameTimer {
            timer = existing
        } else {
            timer = DispatchSource.makeTimerSource(queue: .main)
            timer.setEventHandler {
                MainActor.assumeIsolated { self.send(.tick) }
            }
            timer.resume()
            frameTimer = timer
        }
        let seconds = max(delay, Self.minimumFrameInterval)
        timer.schedule(deadline: .now() + seconds, repeating: .never, leeway: .milliseconds(2))
    }

    // MARK: - Sources and exit

    private func installSources() {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler {
            MainActor.assumeIsolated { self.handleInput() }
        }
        input.resume()
        sources.append(input)

        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        resize.setEventHandler {
            MainActor.assumeIsolated {
                self.terminal.updateSize()
                // `send` re-arms the frame timer: the bar's cells, and so its pace, changed.
                self.send(.resized(width: self.terminal.size.width))
                self.setNeedsDisplay()
            }
        }
        resize.resume()
        sources.append(resize)

        signal(SIGTSTP, SIG_IGN)
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .main)
        stop.setEventHandler {
            MainActor.assumeIsolated { self.suspend() }
        }
        stop.resume()
        sources.append(stop)

        let exits: [(signal: Int32, status: Int32)] = [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129)]
        for (signalNumber, status) in exits {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated { () -> Void in self.quit(status: status) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True when stdin is at end of file or its terminal hung up (a wake-up with nothing
    /// to read is otherwise harmless and ignored).
    private static func inputHungUp() -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return false }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// Ctrl-Z: give the terminal back, stop, and redraw in full when the shell resumes us.
    /// A playing story is paused first, so after `fg` it waits where it was.
    private func suspend() {
        if let viewer = state.viewer, !viewer.isPaused { send(.command(.togglePause)) }
        terminal.suspend()
        // libdispatch reads signals through signalfd, which keeps SIGTSTP blocked: raising
        // it would only leave it pending. SIGSTOP cannot be blocked; the shell sees a stop.
        kill(getpid(), SIGSTOP)  // execution continues here after SIGCONT (`fg`)
        terminal.resume()
        setNeedsDisplay()
    }

    private func quit(status: Int32) -> Never {
        seenStore?.flush()
        terminal.restore()
        exit(status)
    }
}
