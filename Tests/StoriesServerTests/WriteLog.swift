import Foundation

/// What a slow route managed to send before its client went away; `lock` guards both fields.
final class WriteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var writes = 0
    private var failure = false
    func wrote() { lock.withLock { writes += 1 } }
    func failed() { lock.withLock { failure = true } }
    var count: Int { lock.withLock { writes } }
    var hasFailed: Bool { lock.withLock { failure } }
}
