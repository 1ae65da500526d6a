import StoriesFeedIO
import Dispatch
import Foundation
import StoriesCore
import StoriesMedia

/// Something in flight that nobody may want any more.
@MainActor
public protocol Cancellable: AnyObject {
    func cancel()
}

/// The work behind the reducer's effects: the feed through the network profile, view-model
/// builds and pictures. Every answer arrives on the main actor.
@MainActor
public protocol EngineServices: AnyObject {
    var feedTitle: String { get }
    var network: NetworkProfile { get }
    func loadPage(_ cursor: FeedCursor?, done: @escaping @MainActor (Result<FeedPage, FeedError>) -> Void)
    /// The first page from the source's cache; `done` is called only when there is one.
    func loadCachedPage(done: @escaping @MainActor (FeedPage) -> Void)
    func loadStory(_ id: StoryID, done: @escaping @MainActor (Result<StoryLoad, FeedError>) -> Void) -> any Cancellable
    func loadHome(done: @escaping @MainActor (Result<HomeLoad, FeedError>) -> Void)
    func buildViewModels(_ job: ViewModelJob, done: @escaping @MainActor (ViewModelUpdate) -> Void)
    /// Opens a web page (an http or https URL the home decoder checked) and says what
    /// happened, in words for the home screen's notice line.
    func openLink(_ url: String, done: @escaping @MainActor (String) -> Void)
    /// Work scheduled but not answered yet (headless runs wait for it before printing).
    var pendingWork: Int { get }
    var pictures: PicturePipeline { get }
    /// The live video players (at most two).
    var players: PlayerPool { get }
    /// Where videos' sound goes (nil: nowhere — replays, tests that do not ask).
    var soundOutput: SoundOutputFactory? { get }
}

extension EngineServices {
    public var soundOutput: SoundOutputFactory? { nil }
}

/// The app's services: FeedClient on its Dispatch queues, the view-model builder's serial
/// queue, the picture pipeline's decode queue.
@MainActor
public final class LiveServices: EngineServices {
    private let client: FeedClient
    private let builder = ViewModelBuilder()
    public let pictures: PicturePipeline
    public let players = PlayerPool()
    private let work = WorkCount()
    public var pendingWork: Int { work.pending }
    /// The desktop's sound server.
    public let soundOutput: SoundOutputFactory? = { rate, channels throws(AudioProblem) in
        try PulseOutput(rate: rate, channels: channels)
    }

    public init(client: FeedClient) {
        self.client = client
        pictures = PicturePipeline(cache: RenditionCache()) { location, maxBytes, done in
            let request = client.media(at: location, maxBytes: maxBytes, deliverOn: .global(qos: .userInitiated)) { result in
                done(result.mapError(MediaError.init(fetching:)))
            }
            return { request.cancel() }
        }
        pictures.cache.reserved = { [players] in players.estimatedBytes }
    }

    public var feedTitle: String { client.source.title }
    public var network: NetworkProfile { client.profile }

    /// Work counted until its answer comes (on the main queue, where every answer comes).
    private func counted<T: Sendable>(_ done: @escaping @MainActor (T) -> Void) -> @Sendable (T) -> Void {
        let piece = work.begin()
        return { value in
            MainActor.assumeIsolated {
                if piece.finish() { done(value) }
            }
        }
    }

    public func loadPage(_ cursor: FeedCursor?, done: @escaping @MainActor (Result<FeedPage, FeedError>) -> Void) {
        client.page(after: cursor, limit: StoryStore.pageSize, completion: counted(done))
    }

    public func loadCachedPage(done: @escaping @MainActor (FeedPage) -> Void) {
        client.cachedFirstPage(limit: StoryStore.pageSize, completion: counted { page in if let page { done(page) } })
    }

    public func loadHome(done: @escaping @MainActor (Result<HomeLoad, FeedError>) -> Void) {
        client.home(completion: counted(done))
    }

    public func openLink(_ url: String, done: @escaping @MainActor (String) -> Void) {
        LinkOpener.open(url, done: done)
    }

    public func loadStory(_ id: StoryID, done: @escaping @MainActor (Result<StoryLoad, FeedError>) -> Void) -> any Cancellable {
        let piece = work.begin()
        let request = client.story(id: id) { result in
            MainActor.assumeIsolated {
                if piece.finish() { done(result) } // an answer after a cancel is not news
            }
        }
        piece.undo = { request.cancel() }
        return piece
    }

    public func buildViewModels(_ job: ViewModelJob, done: @escaping @MainActor (ViewModelUpdate) -> Void) {
        builder.submit(job, deliver: counted(done))
    }
}

/// The one count of work scheduled but not answered yet, for the live and the virtual
/// services alike (headless runs wait for it to reach zero before printing). A piece counts
/// from `begin` until it is answered (`finish`) or called off (`cancel`), whichever comes
/// first, once.
@MainActor
final class WorkCount {
    private(set) var pending = 0

    func begin() -> Piece {
        pending += 1
        return Piece(count: self)
    }

    @MainActor
    final class Piece: Cancellable {
        private weak var count: WorkCount?
        private var isOpen = true
        /// What calling it off undoes (the request, the timer).
        var undo: (@MainActor () -> Void)?

        fileprivate init(count: WorkCount) { self.count = count }

        /// The answer came: true when it is still news (not called off before).
        @discardableResult
        func finish() -> Bool {
            guard isOpen else { return false }
            isOpen = false
            undo = nil
            count?.pending -= 1
            return true
        }

        func cancel() {
            guard isOpen else { return }
            let undo = self.undo
            finish()
            undo?()
        }
    }
}

/// Services for a replay on the virtual clock: the feed is read at once and its answer
/// delivered after the network's delay in virtual time; view models are built at once;
/// pictures are decoded inline. Everything happens in one order, every time.
@MainActor
public final class VirtualServices: EngineServices {
    private let client: FeedClient
    private let scheduler: VirtualScheduler
    public let pictures: PicturePipeline
    /// Players decode inline: a replay shows the same frames every time.
    public let players = PlayerPool(execution: .inline)
    private let work = WorkCount()
    public var pendingWork: Int { work.pending }

    public init(client: FeedClient, scheduler: VirtualScheduler) {
        self.client = client
        self.scheduler = scheduler
        pictures = PicturePipeline(cache: RenditionCache(), execution: .inline) { location, maxBytes, done in
            // The bytes are read at once and handed over after the network's delay in
            // virtual time; decoding then runs inline, in that moment.
            MainActor.assumeIsolated {
                let (result, delay) = client.mediaNow(at: location, maxBytes: maxBytes)
                let token = scheduler.after(delay) { done(result.mapError(MediaError.init(fetching:))) }
                return { MainActor.assumeIsolated { token.cancel() } }
            }
        }
    }

    public var feedTitle: String { client.source.title }
    public var network: NetworkProfile { client.profile }

    public func loadPage(_ cursor: FeedCursor?, done: @escaping @MainActor (Result<FeedPage, FeedError>) -> Void) {
        let (result, delay) = client.pageNow(after: cursor, limit: StoryStore.pageSize)
        deliver(after: delay) { done(result) }
    }

    /// The cache is on this machine: its page comes at once, before any network delay.
    public func loadCachedPage(done: @escaping @MainActor (FeedPage) -> Void) {
        guard let page = client.cachedFirstPageNow(limit: StoryStore.pageSize) else { return }
        deliver(after: 0) { done(page) }
    }

    public func loadHome(done: @escaping @MainActor (Result<HomeLoad, FeedError>) -> Void) {
        let (result, delay) = client.homeNow()
        deliver(after: delay) { done(result) }
    }

    /// A replay never launches a browser: it says which page the link names.
    public func openLink(_ url: String, done: @escaping @MainActor (String) -> Void) {
        deliver(after: 0) { done(LinkOpener.notOpened(url)) }
    }

    public func loadStory(_ id: StoryID, done: @escaping @MainActor (Result<StoryLoad, FeedError>) -> Void) -> any Cancellable {
        let (result, delay) = client.storyNow(id: id)
        return deliver(after: delay) { done(result) }
    }

    public func buildViewModels(_ job: ViewModelJob, done: @escaping @MainActor (ViewModelUpdate) -> Void) {
        let update = ViewModelFactory.build(job)
        deliver(after: 0) { done(update) }
    }

    @discardableResult
    private func deliver(after delay: Double, _ work: @escaping @MainActor () -> Void) -> any Cancellable {
        let piece = self.work.begin()
        let token = scheduler.after(delay) {
            if piece.finish() { work() }
        }
        piece.undo = { token.cancel() }
        return piece
    }
}

