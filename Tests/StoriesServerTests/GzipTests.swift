import CZlib
import Foundation
import StoriesAssets
import Testing
@testable import StoriesServer

/// Unpacks gzip with zlib (the test's own way back).
func gunzip(_ data: Data) -> Data? {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var output = Data(count: max(1024, data.count * 30))
    let status: Int32 = data.withUnsafeBytes { (source: UnsafeRawBufferPointer) -> Int32 in
        output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
            stream.avail_out = uInt(target.count)
            return inflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { return nil }
    output.count = Int(stream.total_out)
    return output
}

@Suite struct GzipTests {
    let api: FeedAPI
    init() throws { api = try FeedAPI(directory: try #require(DemoFeed.directory)) }

    @Test func acceptEncodingIsReadAsTheRFCSays() {
        #expect(APIRequest.acceptsGzip("gzip"))
        #expect(APIRequest.acceptsGzip("br, gzip;q=0.5"))
        #expect(APIRequest.acceptsGzip("*"))
        #expect(APIRequest.acceptsGzip("GZIP"))
        #expect(!APIRequest.acceptsGzip("gzip;q=0"))
        #expect(!APIRequest.acceptsGzip("br, deflate"))
        #expect(!APIRequest.acceptsGzip(nil))
        #expect(!APIRequest.acceptsGzip(String(repeating: "x,", count: 2000) + "gzip"))
    }

    @Test func aLargeDocumentGoesOutGzippedWithItsOwnTag() throws {
        let plain = api.respond(APIRequest(path: "/v1/feed"))
        let packed = api.respond(APIRequest(path: "/v1/feed", acceptsGzip: true))
        #expect(plain.header("Content-Encoding") == nil && plain.header("Vary") == "Accept-Encoding")
        #expect(packed.header("Content-Encoding") == "gzip" && packed.header("Vary") == "Accept-Encoding")
        #expect(packed.body.count < plain.body.count / 2, "\(packed.body.count) of \(plain.body.count) bytes")
        #expect(gunzip(packed.body) == plain.body, "the same document once unpacked")
        let tag = try #require(packed.header("ETag"))
        #expect(tag != plain.header("ETag") && tag.hasSuffix("-gzip\""))
        #expect(api.respond(APIRequest(path: "/v1/feed", ifNoneMatch: tag, acceptsGzip: true)).status == 304)
        // Small documents and media are never packed.
        #expect(api.respond(APIRequest(path: "/v1/stories/maxi", acceptsGzip: true)).header("Content-Encoding") == nil)
        #expect(api.respond(APIRequest(path: "/v1/media/media/chelsea.jpg", acceptsGzip: true)).header("Content-Encoding") == nil)
    }
}
