import StoriesFeedIO
import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

/// A folder of photos as the server reads it: the `PhotoFolder` made at start, made again
/// when the folder's own listing changes (a story folder or a loose photo added or taken
/// away changes its modification time), looked at no more often than `recheckAfter`.
public final class FolderSource: @unchecked Sendable {
    // @unchecked Sendable: `feed`, `stamp` and `checked` are touched only under `lock`.
    public let directory: URL
    let cache: PhotoFolderCache?
    let recheckAfter: Double
    private let lock = NSLock()
    private var feed: PhotoFolder
    private var stamp: Int64
    private var checked: UInt64

    init(root: NamedFolder, directory: URL, cache: PhotoFolderCache?, recheckAfter: Double) {
        self.directory = directory.standardizedFileURL
        self.cache = cache
        self.recheckAfter = recheckAfter
        feed = PhotoFolder(root: root, directory: directory, cache: cache)
        stamp = Self.stamp(of: feed.root)
        checked = ConfinedFiles.now()
    }

    /// The feed as the folder is now (a folder that cannot be listed again keeps the last one).
    public func current() -> PhotoFolder {
        let now = ConfinedFiles.now()
        let due: Int64? = lock.withLock {
            guard Double(now &- checked) / 1e9 >= recheckAfter else { return nil }
            checked = now
            let seen = Self.stamp(of: feed.root)
            return seen == stamp ? nil : seen
        }
        guard let seen = due else { return lock.withLock { feed } }
        // Listed before it replaces the last one: a folder that cannot be listed keeps it.
        // The same descriptor: the folder served is the one opened at the start.
        let fresh: PhotoFolder? = PhotoFolder(root: lock.withLock { feed.named }, directory: directory, cache: cache)
        if let fresh, (try? fresh.prepare()) == nil { return lock.withLock { feed } }
        return lock.withLock {
            if let fresh {
                feed = fresh
                stamp = seen
            }
            return feed
        }
    }

    /// The folder's modification time in nanoseconds, from its descriptor (0 when it cannot be looked at).
    static func stamp(of folder: OpenFolder) -> Int64 {
        folder.status().map { PhotoFolderCache.nanoseconds($0.st_mtim) } ?? 0
    }
}
