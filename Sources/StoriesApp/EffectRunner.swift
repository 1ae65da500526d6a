import StoriesCore

/// Carries out the reducer's effects on the engine's services and scheduler, and sends
/// their results back as actions. Work with an `EffectID` (a story's items, a wake-up) is
/// kept by that id: `.cancel(id)` calls it off, and a new wake-up with the same id replaces
/// the old one (like a cancellable effect in the Composable Architecture), so a stale
/// answer can never arrive.
@MainActor
final class EffectRunner {
    private let services: any EngineServices
    private let scheduler: any EngineScheduler
    private var inFlight: [EffectID: any Cancellable] = [:]

    /// Where results go: the engine's `send`.
    var send: @MainActor (AppAction) -> Void = { _ in }
    var quit: @MainActor (Int32) -> Void = { _ in }
    var persistSeen: (@MainActor (SeenState) -> Void)?
    /// Puts text on the terminal's clipboard (the terminal writes OSC 52).
    var copyToClipboard: @MainActor (String) -> Void = { _ in }
    /// Ctrl-L: the screen forgets its last frame, and a frame is asked for.
    var redrawScreen: @MainActor () -> Void = {}
    /// Ctrl-Z: the terminal's runtime stops the process (nothing to stop elsewhere).
    var suspendProcess: @MainActor () -> Void = {}
    var showPictures: @MainActor (GraphicsChoice) -> Void = { _ in }

    /// The media effects' runtime: pictures and players.
    let media: MediaRuntime

    init(services: any EngineServices, scheduler: any EngineScheduler, media: MediaRuntime) {
        self.services = services
        self.scheduler = scheduler
        self.media = media
    }

    func perform(_ effect: AppEffect) {
        switch effect {
        case .loadPage(let cursor):
            services.loadPage(cursor) { [weak self] result in
                switch result {
                case .success(let page): self?.send(.pageLoaded(page))
                case .failure(let error): self?.send(.pageFailed(error.isTransient ? error.reason : error.description, retry: error.isTransient))
                }
            }
        case .loadCachedPage:
            services.loadCachedPage { [weak self] page in self?.send(.cachedPageLoaded(page)) }
        case .loadStory(let id):
            inFlight.removeValue(forKey: .story(id))?.cancel()
            inFlight[.story(id)] = services.loadStory(id) { [weak self] result in
                guard let self else { return }
                self.inFlight[.story(id)] = nil
                switch result {
                case .success(let load): self.send(.storyLoaded(load))
                case .failure(let error): self.send(.storyFailed(id, error.description, retry: error.isTransient))
                }
            }
        case .loadHome:
            services.loadHome { [weak self] result in
                switch result {
                case .success(let load): self?.send(.homeLoaded(load))
                case .failure(let error): self?.send(.homeFailed(error.description, retry: error.isTransient))
                }
            }
        case .openLink(let url):
            services.openLink(url) { [weak self] message in self?.send(.linkOpened(message)) }
        case .wake(let id, let delay):
            inFlight.removeValue(forKey: .wake(id))?.cancel()
            inFlight[.wake(id)] = scheduler.after(max(0, delay)) { [weak self] in
                guard let self else { return }
                self.inFlight[.wake(id)] = nil
                self.send(.wake(id))
            }
        case .cancel(let id):
            inFlight.removeValue(forKey: id)?.cancel()
        case .buildViewModels(let job):
            services.buildViewModels(job) { [weak self] in self?.send(.viewModelsBuilt($0)) }
        case .preload(let request):
            media.preload(request)
        case .players(let plan):
            media.follow(plan)
        case .videoClock(let location, let time):
            media.advance(location, to: time)
        case .quit:
            quit(0)
        case .redrawScreen:
            redrawScreen()
        case .suspendProcess:
            suspendProcess()
        case .showPictures(let choice):
            showPictures(choice)
        case .copyToClipboard(let text):
            copyToClipboard(text)
        case .persistSeen(let seen):
            persistSeen?(seen)
        }
    }

    /// Calls everything off (the engine stops).
    func cancelAll() {
        for work in inFlight.values { work.cancel() }
        inFlight = [:]
    }
}
