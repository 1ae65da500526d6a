import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

/// What the API has already worked out: pages by cursor and limit (with the fingerprint of
/// their files), and the tags of story files that were checked and found readable.
final class Memo: @unchecked Sendable {
    // The tables are guarded by `lock` and bounded (cleared when full).
    private let lock = NSLock()
    private var pages: [String: (fingerprint: String, body: Data, tag: String, checked: UInt64)] = [:]
    private var valid: Set<String> = []
    /// Stories' item ids by id and file tag (seen batches are checked against them).
    private var itemSets: [String: Set<ItemID>] = [:]
    let recheckAfter: Double

    init(recheckAfter: Double) { self.recheckAfter = recheckAfter }

    /// A page whose files were checked less than `recheckAfter` seconds ago.
    func recentPage(_ key: String) -> (body: Data, tag: String)? {
        guard recheckAfter > 0 else { return nil }
        let now = ConfinedFiles.now()
        return lock.withLock {
            guard let kept = pages[key], Double(now &- kept.checked) / 1e9 < recheckAfter else { return nil }
            return (kept.body, kept.tag)
        }
    }

    /// The page kept under `key` when its files are still `fingerprint`, taken at `checkedAt`
    /// (the time of the look, not of the answer: a page is never newer than its files).
    func page(_ key: String, fingerprint: String, checkedAt: UInt64) -> (body: Data, tag: String)? {
        lock.withLock {
            guard let kept = pages[key], kept.fingerprint == fingerprint else { return nil }
            pages[key]?.checked = checkedAt
            return (kept.body, kept.tag)
        }
    }

    /// Keeps a page built from files looked at from `checkedAt` on: it is recent for
    /// `recheckAfter` from then, so it never outlives a file read for it.
    func keep(_ key: String, fingerprint: String, body: Data, tag: String, checkedAt: UInt64) {
        lock.withLock {
            if pages.count >= 1024 { pages.removeAll() }
            pages[key] = (fingerprint, body, tag, checkedAt)
        }
    }

    func isValid(_ tag: String) -> Bool { lock.withLock { valid.contains(tag) } }

    func markValid(_ tag: String) {
        lock.withLock {
            if valid.count >= 65536 { valid.removeAll() }
            valid.insert(tag)
        }
    }

    func items(_ key: String) -> Set<ItemID>? { lock.withLock { itemSets[key] } }

    func keepItems(_ key: String, _ items: Set<ItemID>) {
        lock.withLock {
            if itemSets.count >= 4096 { itemSets.removeAll() }
            itemSets[key] = items
        }
    }
}
