import CZlib
import Foundation

/// gzip (RFC 1952) through the system's zlib, for JSON answers to clients that accept it.
/// Compressed bodies are kept by ETag (documents repeat: every client asks for the same
/// first page), up to a small budget.
final class Gzip: @unchecked Sendable {
    // `cache` and `cachedBytes` are guarded by `lock`.
    private let lock = NSLock()
    private var cache: [String: Data] = [:]
    private var cachedBytes = 0
    static let budget = 16 << 20

    /// The gzip form of `bytes` whose ETag is `tag`.
    func compressed(_ bytes: Data, tag: String) -> Data? {
        if let hit = lock.withLock({ cache[tag] }) { return hit }
        guard let result = Self.compress(bytes) else { return nil }
        lock.withLock {
            if cachedBytes + result.count > Self.budget { cache.removeAll(); cachedBytes = 0 }
            cache[tag] = result
            cachedBytes += result.count
        }
        return result
    }

    static func compress(_ input: Data, level: Int32 = 6) -> Data? {
        var stream = z_stream()
        guard stories_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let status: Int32 = input.withUnsafeBytes { (source: UnsafeRawBufferPointer) -> Int32 in
            output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.count = Int(stream.total_out)
        return output
    }
}
