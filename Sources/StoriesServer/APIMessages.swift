import Foundation
import NIOCore
import NIOFoundationCompat
import StoriesCore
import StoriesFeedIO

/// One request as the API sees it: the method, the path still percent-encoded, the query
/// and the few headers it reads.
public struct APIRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var ifNoneMatch: String?
    public var range: String?
    public var ifRange: String?
    /// `Accept-Encoding` names gzip (with a q above 0).
    public var acceptsGzip: Bool

    public init(method: String = "GET", path: String, query: [String: String] = [:], ifNoneMatch: String? = nil,
                range: String? = nil, ifRange: String? = nil, acceptsGzip: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.ifNoneMatch = ifNoneMatch
        self.range = range
        self.ifRange = ifRange
        self.acceptsGzip = acceptsGzip
    }

    /// Reads an `Accept-Encoding` value: gzip (or `*`) listed without `q=0`.
    public static func acceptsGzip(_ header: String?) -> Bool {
        guard let header, header.utf8.count <= 1024 else { return false }
        return header.lowercased().split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = pieces.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { return false }
            let q = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return q > 0
        }
    }
}

/// What goes back: a status, headers and a body (empty for HEAD and 304, with the length
/// the body would have in `Content-Length`).
public struct APIResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    /// A file too large to keep in memory: the part of it to send, read from the open file
    /// as the client takes it (`body` is then empty).
    public var file: FileSlice? = nil
    /// A file kept in memory: the bytes to send, sharing the kept storage (`body` is then empty).
    public var buffer: ByteBuffer? = nil
    /// Why, for the access log, when the answer is a failure of the server's own (the seen
    /// store's reason behind a 503).
    public var note: String? = nil

    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// The bytes the answer carries, read from its file when it has one (tests).
    public func wholeBody() -> Data {
        if let buffer { return Data(buffer: buffer) }
        guard let file else { return body }
        return (try? file.file.read(at: file.range.lowerBound, count: file.range.count)) ?? Data()
    }

    /// How many bytes the answer carries.
    public var length: Int { file?.range.count ?? buffer?.readableBytes ?? body.count }
}

/// Part of an open file, sent in chunks: the descriptor its checks were made on.
public struct FileSlice: Sendable {
    public let file: SafeFile.Opened
    public let range: Range<Int>
}
