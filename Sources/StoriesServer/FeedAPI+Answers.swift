import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore

extension FeedAPI {
    // MARK: - Answers

    /// A JSON document, revalidated on every use (`no-cache`), 304 when the client has it;
    /// gzip when the client takes it and the document is worth it (its own ETag, `Vary`).
    func document(_ bytes: Data, _ request: APIRequest, head: Bool, etag: String? = nil) -> APIResponse {
        var tag = etag ?? ETag.strong(for: bytes)
        var body = bytes
        var headers = [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-cache"), ("Vary", "Accept-Encoding")]
        if request.acceptsGzip, bytes.count >= Self.gzipThreshold, let packed = gzip.compressed(bytes, tag: tag) {
            tag = ETag.coded(tag, "gzip")
            body = packed
            headers.append(("Content-Encoding", "gzip"))
        }
        headers.append(("ETag", tag))
        if ETag.matches(request.ifNoneMatch, tag) { return APIResponse(status: 304, headers: headers, body: Data()) }
        return APIResponse(status: 200, headers: headers + [("Content-Length", String(body.count))], body: head ? Data() : body)
    }

    func failure(_ failure: ConfinedFiles.Failure, what: String, head: Bool) -> APIResponse {
        switch failure {
        case .notFound: error(404, "no \(what)", head: head)
        case .forbidden(let why): error(404, "no \(what): \(why)", head: head)
        case .tooLarge: error(413, "\(what): \(failure)", head: head)
        case .unreadable: error(500, "\(what): \(failure)", head: head)
        }
    }

    func error(_ status: Int, _ message: String, extra: [(String, String)] = [], head: Bool) -> APIResponse {
        let body = FeedWire.error(message, status: status)
        return APIResponse(status: status,
                           headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"),
                                     ("Content-Length", String(body.count))] + extra,
                           body: head ? Data() : body)
    }

    /// By content first (a wrong extension does not change what the bytes are).
    static func mediaType(of path: String, bytes: [UInt8]) -> String {
        let start = bytes.prefix(12)
        if start.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if start.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if start.count >= 12, start.starts(with: Array("RIFF".utf8)), start[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        if start.count >= 8, start[4..<8].elementsEqual("ftyp".utf8) { return path.lowercased().hasSuffix(".m4a") ? "audio/mp4" : "video/mp4" }
        if start.starts(with: Array("GIF87a".utf8)) || start.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if start.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return path.hasSuffix(".webm") ? "video/webm" : "video/x-matroska" }
        // Voice notes' sound.
        if start.starts(with: Array("OggS".utf8)) { return "audio/ogg" }
        if start.starts(with: Array("fLaC".utf8)) { return "audio/flac" }
        if start.count >= 12, start.starts(with: Array("RIFF".utf8)), start[8..<12].elementsEqual("WAVE".utf8) { return "audio/wav" }
        if start.starts(with: Array("ID3".utf8)) || (start.count >= 2 && start[0] == 0xFF && start[1] & 0xE0 == 0xE0 && start[1] & 0x06 != 0) {
            return "audio/mpeg"
        }
        return "application/octet-stream"
    }
}
