import StoriesCore
import Dispatch
import Foundation

/// Keeps seen state on disk, one file per feed, under `$XDG_STATE_HOME/stories/` (or
/// `~/.local/state/stories/`). Writes are atomic (temporary file, fsync, rename), happen on
/// a utility queue, and are batched: changes within `delay` become one write. A file that
/// cannot be read is moved aside with a warning and the app starts clean; the last good
/// file is only ever replaced by a complete new one.
public final class SeenStore: Sendable {
    public let file: URL
    private let feedKey: String
    private let delay: DispatchTimeInterval
    /// Seconds to wait between the fsync and the rename: only for the test that kills the
    /// app mid-write (`STORIES_TEST_PAUSE_BEFORE_RENAME`); 0 otherwise.
    private let pauseBeforeRename: Double
    /// Pending state and the write scheduled for it; touched only on `queue`.
    private let queue = DispatchQueue(label: "stories.seen", qos: .utility)
    private let pending = PendingWrite()

    /// What `load` found.
    public struct Loaded: Sendable {
        public var state: SeenState
        public var warning: FeedWarning?
    }

    /// `feedKey` identifies the feed (its folder's path); the file name is a hash of it.
    public init(feedKey: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                delay: DispatchTimeInterval = .milliseconds(500)) {
        self.feedKey = feedKey
        self.delay = delay
        pauseBeforeRename = environment["STORIES_TEST_PAUSE_BEFORE_RENAME"].flatMap(Double.init).map { min(max(0, $0), 60) } ?? 0
        file = Self.directory(environment: environment).appendingPathComponent("seen-\(Self.hash(feedKey)).json")
    }

    public static func directory(environment: [String: String]) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("stories")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/stories")
    }

    /// Reads the file. Missing: a clean start. Unreadable or malformed: moved aside to
    /// `<name>.corrupt-<time>`, with a warning that says where.
    public func load() -> Loaded {
        removeAbandonedTemporaryFiles()
        // The one safe way: not through a link, not a FIFO, at most 64 MB. A file that cannot
        // be opened is left where it is (it may be fine, or not ours); one that opens and is
        // not a seen state is moved aside.
        let data: Data
        switch Result(catching: { () throws(SafeFile.Failure) -> Data in try SafeFile.read(file.path, maxBytes: Self.maxFileBytes).0 }) {
        case .success(let read): data = read
        case .failure(.missing): return Loaded(state: SeenState(), warning: nil)
        case .failure(.tooLarge(let size)):
            // Larger than this app ever writes: damaged or not ours, set aside unread.
            return Loaded(state: SeenState(), warning: FeedWarning("seen state \(file.path) is \(size) bytes, more than the \(SafeFile.megabytes(Self.maxFileBytes)) it is ever written with; starting clean (\(setAside()))"))
        case .failure(let failure):
            return Loaded(state: SeenState(), warning: FeedWarning("seen state \(file.path) \(SafeFile.describe(failure, maxBytes: Self.maxFileBytes)); starting clean, the file is left as it is"))
        }
        guard let state = Self.state(from: data) else {
            return Loaded(state: SeenState(), warning: FeedWarning("seen state \(file.path) could not be read; starting clean (\(setAside()))"))
        }
        return Loaded(state: state, warning: nil)
    }

    /// The largest seen state written (and so read): a write that would be larger fails,
    /// and is said, instead of leaving a file that could not be read back.
    public static let maxFileBytes = 64 << 20

    /// Moves the file to `<name>.corrupt-<time>`: what happened, in words.
    private func setAside() -> String {
        let aside = file.appendingPathExtension("corrupt-\(Int(Date().timeIntervalSince1970))")
        return rename(file.path, aside.path) == 0 ? "moved it to \(aside.path)" : "could not move it aside"
    }

    /// Asks for `state` to be written soon; later calls within the delay replace it.
    public func save(_ state: SeenState) {
        queue.async { [self] in
            let first = pending.state == nil
            pending.state = state
            guard first else { return }
            queue.asyncAfter(deadline: .now() + delay) { [self] in writePending() }
        }
    }

    /// Writes anything pending now and waits for it (before the process exits).
    public func flush() {
        queue.sync { writePending() }
    }

    /// The result of the last write: nil when it worked.
    public var lastError: String? { queue.sync { pending.error } }

    /// Told (on the store's queue) when a write fails after writes that worked: the app
    /// says it once on its problems line.
    public var onWriteFailure: (@Sendable (String) -> Void)? {
        get { pending.lock.withLock { pending.onFailure } }
        set { pending.lock.withLock { pending.onFailure = newValue } }
    }

    private func writePending() {
        guard let state = pending.state else { return }
        pending.state = nil
        do {
            try write(state)
            pending.error = nil
        } catch {
            let first = pending.error == nil
            pending.error = (error as? AtomicFile.Failure)?.reason ?? "\(error)"
            if first, let tell = pending.lock.withLock({ pending.onFailure }), let reason = pending.error { tell(reason) }
        }
    }

    private func write(_ state: SeenState) throws {
        var document: [String: JSONValue] = ["version": 1, "feed": .string(feedKey),
                                             "seen": .object(state.items.mapValues { .strings($0.sorted()) })]
        if !state.tooltips.isEmpty { document["tooltips"] = .strings(state.tooltips.sorted()) }
        let data = JSONValue.object(document).data(pretty: true)
        guard data.count <= Self.maxFileBytes else {
            throw AtomicFile.Failure(description: "cannot write \(SafeText.line(file.path)): \(data.count) bytes is more than the \(SafeFile.megabytes(Self.maxFileBytes)) a seen state may be")
        }
        try AtomicFile.write(data, to: file, pauseBeforeRename: pauseBeforeRename)
    }

    private func removeAbandonedTemporaryFiles() {
        AtomicFile.removeAbandonedTemporaryFiles(in: file.deletingLastPathComponent(), prefix: ".\(file.lastPathComponent).")
    }

    /// The state a file holds (`{"version":1,"feed":…,"seen":{story:[item…]},"tooltips":[…]}`,
    /// tooltips absent in files written before there were any); nil when it is not one.
    static func state(from data: Data) -> SeenState? {
        guard let document = try? JSONValue.parse(data, file: ""), document["version"] == 1,
              document["feed"]?.stringValue != nil, let seen = document["seen"]?.objectValue else { return nil }
        var items: [StoryID: Set<ItemID>] = [:]
        for (story, list) in seen {
            guard let ids = list.arrayValue?.compactMap(\.stringValue), ids.count == list.arrayValue?.count else { return nil }
            items[story] = Set(ids)
        }
        var tooltips: Set<String> = []
        if let list = document["tooltips"], list != .null {
            guard let names = list.arrayValue?.compactMap(\.stringValue), names.count == list.arrayValue?.count else { return nil }
            tooltips = Set(names)
        }
        return SeenState(items: items, tooltips: tooltips)
    }

    /// FNV-1a, 64 bits: a stable file name for a feed path.
    public static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(value, radix: 16)
    }
}

/// The state waiting to be written. `@unchecked Sendable`: `state` and `error` are only
/// ever touched on `SeenStore.queue`, a serial queue; `onFailure` only under `lock`.
private final class PendingWrite: @unchecked Sendable {
    var state: SeenState?
    var error: String?
    let lock = NSLock()
    var onFailure: (@Sendable (String) -> Void)?
}
