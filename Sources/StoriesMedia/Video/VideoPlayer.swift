import StoriesCells
import Dispatch
import Foundation
import StoriesCore

/// One frame ready to draw: when it is due and its cells.
public struct VideoFrame: Equatable, Sendable {
    public var time: Double
    public var cells: CellImage
}

/// Plays one video as cells, paced by presentation timestamps against a clock the app
/// owns: the app says what time it is in the video (`advance(to:)`) and the player shows
/// the newest frame due by then. Decoding runs ahead on the pool's serial queue into a
/// small bounded queue; a frame that is already late when decoded is dropped before it is
/// scaled. When no frame is there for the time shown, the player reports a stall, and the
/// app stops its clock until frames come.
///
/// `prepare`, `play`, `pause` and `stop` are idempotent: a second call changes nothing.
@MainActor
public final class VideoPlayer {
    public enum Phase: Equatable, Sendable {
        case idle, preparing, ready, failed(String), stopped
    }

    public let location: String
    public private(set) var key: RenditionKey
    public private(set) var phase = Phase.idle
    public private(set) var isPlaying = false
    /// Starts again at its end, its frames' times running on (an animation; the plan says,
    /// once the player's news that it is one has reached the app). Told after a short
    /// animation already ran to its end, it goes on from there.
    public var loops = false {
        didSet {
            guard loops, !oldValue, endedAt != nil, phase == .ready else { return }
            endedAt = nil
            pump()
        }
    }
    public private(set) var info: VideoInfo?
    /// The frame on screen (the first frame once prepared; the last one at the end).
    public private(set) var current: VideoFrame?
    public private(set) var framesShown = 0
    /// The first frame (decoded when the player opened) has been counted as shown.
    private var firstCounted = false
    /// Frames decoded but never shown: late when decoded (not even scaled) or overtaken
    /// in the queue.
    public private(set) var framesDropped = 0
    public private(set) var isStalled = false
    /// Where the stream ended (when its last frame gives way), once it has.
    public private(set) var endedAt: Double?
    /// Frames decoded ahead, at most `queueLimit`.
    public private(set) var queue: [VideoFrame] = []
    public static let queueLimit = 4

    /// About what this player holds: the decoder's reference frames and its own (eight
    /// frames of the source in YUV 4:2:0 once opened), the frame scaled for the cells, and
    /// the frames queued and on screen.
    public var estimatedBytes: Int {
        let source = info.map { max(0, $0.width) * max(0, $0.height) * 3 / 2 * 8 } ?? 0
        let (px, py) = key.symbols.pixelsPerCell
        let scaled = key.width * px * key.height * py * 4
        let frames = (queue.count + (current == nil ? 0 : 1)) * key.width * key.height * MemoryLayout<ImageCell>.stride
        return source + scaled + frames
    }

    /// News for the app: opened, stalled, resumed, ended, failed.
    public var onEvent: (@MainActor (VideoEvent) -> Void)?

    private let worker: VideoWorker
    private let execution: PicturePipeline.Execution
    private let decodeQueue: DispatchQueue
    private var inFlight = false
    /// Changes with every size and start: decode results for another one are dropped.
    private var generation = 0
    /// Changes when the stream is opened or rewound, or the player stops.
    private var lifecycle = 0
    private var time = 0.0

    init(location: String, data: Data, key: RenditionKey, limits: VideoLimits,
         execution: PicturePipeline.Execution, queue: DispatchQueue, count: DecoderCount) {
        self.location = location
        self.key = key
        self.execution = execution
        decodeQueue = queue
        worker = VideoWorker(data: data, limits: limits, count: count)
    }

    /// Opens the decoder and decodes the first frame (the poster, from the live stream).
    public func prepare() {
        guard phase == .idle else { return }
        begin { $0.open() }
    }

    /// Runs the video on: frames are decoded ahead and shown as `advance` moves time on.
    public func play() {
        guard !isPlaying, phase != .stopped else { return }
        prepare()
        isPlaying = true
        pump()
    }

    /// Holds the frame on screen; nothing more is decoded until `play`.
    public func pause() {
        guard isPlaying else { return }
        isPlaying = false
    }

    /// Releases the decoder (at once on the decode queue: the next player opened there
    /// finds it gone). The last frame stays for drawing.
    public func stop() {
        guard phase != .stopped else { return }
        phase = .stopped
        isPlaying = false
        generation += 1
        lifecycle += 1
        queue = []
        let worker = self.worker
        run { worker.close(); return {} }
    }

    /// The video's time is now `time` (seconds): the newest frame due is shown, older ones
    /// are dropped; a stall is reported when none is due and decoding is behind, and its
    /// end when it is over.
    public func advance(to time: Double) {
        let interval = info?.frameInterval ?? 1.0 / 30
        self.time = time
        worker.lateBefore = time
        // An item shown again starts over because the app says so (`restart`, from its plan),
        // not because the clock went back.
        guard phase == .ready else { return }
        if !firstCounted, current != nil {
            framesShown += 1
            firstCounted = true
        }
        var next: VideoFrame?
        while let first = queue.first, first.time <= time + 1e-6 {
            if next != nil { framesDropped += 1 }
            next = queue.removeFirst()
        }
        if let next {
            if current != next { framesShown += 1 }
            current = next
        }
        // A stall begins only while playing, and ends only when a frame comes (or the
        // stream ends) — never because the app paused: the app pauses a stalled video
        // itself, and a stall that ended on that pause would start the clock again at once.
        if !isStalled, isPlaying, queue.isEmpty, endedAt == nil, time >= (current?.time ?? 0) + 2 * interval {
            isStalled = true
            onEvent?(.stalled)
        }
        pump()
    }

    /// A new size (a resize, `f`): frames from now on are rendered for `key`.
    public func resize(_ key: RenditionKey) {
        guard key != self.key else { return }
        self.key = key
        generation += 1
        queue = []
        inFlight = false
        if phase == .ready { redraw() }
        pump()
    }

    /// Renders the frame on screen again, from the decoder's last picture, at `key`.
    private func redraw() {
        guard current != nil else { return }
        let (worker, key, aspect, generation) = (self.worker, self.key, self.key.cellAspect, self.generation)
        run { [weak self] in
            let cells = worker.redraw(key: key, cellAspect: aspect)
            return { self?.redrawn(cells, generation: generation) }
        }
    }

    /// Back to the first frame, for an item that starts over or a clip that loops.
    public func restart() {
        guard phase == .ready else { return }
        endedAt = nil
        time = 0
        worker.lateBefore = -1 // no frame of the new run is late yet
        begin { $0.rewind() }
    }

    // MARK: - Work

    /// Opens (or rewinds) the stream and decodes its first frame. A resize meanwhile does
    /// not lose it: `lifecycle` changes only when the player starts over or stops; a first
    /// frame rendered for an older size is rendered again for the new one.
    private func begin(_ open: @escaping @Sendable (VideoWorker) -> Result<VideoInfo, MediaError>) {
        phase = .preparing
        isStalled = false // `.opened` tells the app the same
        lifecycle += 1
        generation += 1
        queue = []
        inFlight = false
        let (worker, key, aspect, lifecycle) = (self.worker, self.key, self.key.cellAspect, self.lifecycle)
        run { [weak self] in
            let result = open(worker).flatMap { info in
                worker.next(key: key, cellAspect: aspect, lateBefore: -1).map { (info, $0) }
            }
            return { self?.opened(result, key: key, lifecycle: lifecycle) }
        }
    }

    /// Decodes ahead while playing, and while stalled (the app has stopped its clock and
    /// paused the player, but waits for this very frame).
    private func pump() {
        guard phase == .ready, isPlaying || isStalled, !inFlight, endedAt == nil, queue.count < Self.queueLimit else { return }
        inFlight = true
        let (worker, key, aspect, generation, late, loops) = (self.worker, self.key, self.key.cellAspect, self.generation, time, self.loops)
        run { [weak self] in
            let result = worker.next(key: key, cellAspect: aspect, lateBefore: late, loops: loops)
            return { self?.decoded(result, generation: generation) }
        }
    }

    private func opened(_ result: Result<(VideoInfo, VideoWorker.Step), MediaError>, key: RenditionKey, lifecycle: Int) {
        guard lifecycle == self.lifecycle, phase == .preparing else { return }
        switch result {
        case .failure(let error):
            phase = .failed(error.description)
            onEvent?(.failed(error.description))
        case .success(let (info, step)):
            self.info = info
            phase = .ready
            framesDropped += step.dropped
            onEvent?(.opened(duration: info.duration, frameInterval: info.frameInterval, hasAudio: info.hasAudio,
                             loops: info.loops))
            if let frame = step.frame {
                // Counted as shown when the app first moves its clock (a player held ready
                // for the next item shows nothing until then).
                current = frame
                if key != self.key { redraw() } // resized while it opened
            } else {
                finish(at: 0)
            }
            pump()
        }
    }

    private func decoded(_ result: Result<VideoWorker.Step, MediaError>, generation: Int) {
        guard generation == self.generation else { return }
        inFlight = false
        switch result {
        case .failure(let error):
            // Frames already shown stay; the stream ends where decoding could not go on.
            finish(at: (queue.last ?? current)?.time ?? 0, reason: error.description)
        case .success(let step):
            framesDropped += step.dropped
            if let frame = step.frame {
                queue.append(frame)
                if isStalled {
                    isStalled = false
                    onEvent?(.resumed)
                }
            } else {
                finish(at: step.end) // when the last frame gives way: its time and its own duration
            }
        }
        pump()
    }

    private func redrawn(_ cells: CellImage?, generation: Int) {
        guard generation == self.generation, let cells, let current else { return }
        self.current = VideoFrame(time: current.time, cells: cells)
        onEvent?(.redrawn(width: cells.width, height: cells.height)) // the app redraws on its news, not by itself
    }

    private func finish(at time: Double, reason: String? = nil) {
        guard endedAt == nil else { return }
        endedAt = max(time, info?.frameInterval ?? 0)
        if isStalled {
            isStalled = false
            onEvent?(.resumed)
        }
        onEvent?(.ended(at: endedAt ?? time))
    }

    /// Runs decode work on the pool's queue (or at once, inline) and its result on the main
    /// actor.
    private func run(_ work: @escaping @Sendable () -> (@MainActor () -> Void)) {
        switch execution {
        case .inline:
            work()()
        case .background:
            decodeQueue.async {
                let done = work()
                DispatchQueue.main.async { MainActor.assumeIsolated(done) }
            }
        case .manual(let executor):
            executor.enqueue { let done = work(); MainActor.assumeIsolated(done) }
        }
    }
}
