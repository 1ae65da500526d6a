import CZlib
import Foundation

/// gzip bodies (RFC 1952) unpacked through the system's zlib, bounded: the client asks for
/// gzip itself (AsyncHTTPClient's own decompression reports bodies that inflate to more
/// than 16 KB from their last packet as truncated, swift-nio-extras 1.35), so a document
/// travels packed and is unpacked here, never past `maxBytes`.
enum Gunzip {
    enum Failure: Error, Equatable {
        /// It would unpack to more than the bound.
        case tooLarge(Int)
        /// Not gzip, damaged, or cut short.
        case damaged
    }

    static func unpack(_ packed: Data, maxBytes: Int) throws(Failure) -> Data {
        var stream = z_stream()
        guard stories_inflate_init_gzip(&stream) == Z_OK else { throw .damaged }
        defer { inflateEnd(&stream) }
        let limit = max(0, maxBytes)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status: Int32 = Z_OK
        var tooLarge = false
        packed.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                if status != Z_OK && status != Z_STREAM_END { return }
                if output.count + produced > limit {
                    tooLarge = true
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END {
                    // gzip may hold several members one after another (RFC 1952 2.2): the
                    // next one, if any bytes are left, else the end.
                    guard stream.avail_in > 0 else { return }
                    guard inflateReset(&stream) == Z_OK else { status = Z_DATA_ERROR; return }
                    status = Z_OK
                    continue
                }
                // No progress with room to spare: the stream wants more than there is.
                if produced == 0 { status = Z_BUF_ERROR; return }
            }
        }
        if tooLarge { throw .tooLarge(limit) }
        guard status == Z_STREAM_END else { throw .damaged }
        return output
    }
}
