@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// A video's recording time from its movie header, walked box by box, safe on any bytes.
@Suite struct VideoMetadataTests {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = 8 + body.count
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    static func be(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }
    }

    /// ftyp, a large mdat first (as a camera writes it), then moov/mvhd.
    static func movie(seconds: UInt64, version: UInt8 = 0, largeMdat: Bool = false) -> [UInt8] {
        let mvhd = box("mvhd", [version, 0, 0, 0] + be(seconds, bytes: version == 1 ? 8 : 4) + [UInt8](repeating: 0, count: 80))
        let moov = box("moov", box("trak", []) + mvhd)
        let mdat: [UInt8] = largeMdat ? [0, 0, 0, 1] + Array("mdat".utf8) + be(16 + 1000, bytes: 8) + [UInt8](repeating: 7, count: 1000)
            : box("mdat", [UInt8](repeating: 7, count: 1000))
        return box("ftyp", Array("isom".utf8) + [0, 0, 2, 0]) + mdat + moov
    }

    static func read(_ bytes: [UInt8]) -> Date? {
        VideoMetadata.creationTime { offset, count in
            guard offset >= 0, offset < bytes.count else { return Data() }
            return Data(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    // 2024-06-02T10:00:00Z in QuickTime's seconds.
    let june = UInt64(1_717_322_400) + VideoMetadata.quickTimeEpoch

    @Test func theMovieHeaderGivesTheTimeInBothVersionsAndAfterALargeBox() {
        #expect(Self.read(Self.movie(seconds: june))?.timeIntervalSince1970 == 1_717_322_400)
        #expect(Self.read(Self.movie(seconds: june, version: 1))?.timeIntervalSince1970 == 1_717_322_400)
        #expect(Self.read(Self.movie(seconds: june, largeMdat: true))?.timeIntervalSince1970 == 1_717_322_400)
    }

    @Test func unsetOrAbsurdTimesAndOtherContainersGiveNothing() {
        #expect(Self.read(Self.movie(seconds: 0)) == nil, "0: not set")
        #expect(Self.read(Self.movie(seconds: 1000)) == nil, "1904: a clock never set")
        #expect(Self.read(Self.movie(seconds: UInt64.max, version: 1)) == nil)
        #expect(Self.read([0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 40)) == nil, "Matroska")
        #expect(Self.read([]) == nil)
    }

    @Test func anyBytesEndTheWalkWithoutACrashOrALoop() {
        let good = Self.movie(seconds: june)
        // Every single byte set to 0x00 and to 0xFF in turn.
        for index in good.indices {
            for value: UInt8 in [0x00, 0xFF] {
                var bad = good
                bad[index] = value
                _ = Self.read(bad)
            }
        }
        // Boxes that claim less than their own header, or point past the file.
        #expect(Self.read(Self.be(4, bytes: 4) + Array("moov".utf8)) == nil)
        let moov = Self.box("moov", Self.box("mvhd", [0, 0, 0, 0] + Self.be(june, bytes: 4)))
        #expect(Self.read(moov) != nil, "the moov below is found on its own")
        #expect(Self.read(Self.be(1 << 31, bytes: 4) + Array("free".utf8) + moov) == nil, "a box claiming more than the file hides it")
        #expect(Self.read(Self.be(3, bytes: 4) + Array("free".utf8) + moov) == nil, "a box smaller than its header ends the walk")
        // Thousands of empty boxes: the walk stops at its limit.
        let many = [UInt8]((0..<5000).flatMap { _ in Self.box("free", []) }) + Self.box("moov", Self.box("mvhd", [0, 0, 0, 0] + Self.be(june, bytes: 4)))
        #expect(Self.read(many) == nil)
    }

    @Test func aFileIsOpenedTheSafeWay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("video-meta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("clip.mp4")
        try Data(Self.movie(seconds: june)).write(to: file)
        #expect(VideoMetadata.creationTime(path: file.path)?.timeIntervalSince1970 == 1_717_322_400)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link.mp4").path, withDestinationPath: file.path)
        #expect(VideoMetadata.creationTime(path: folder.appendingPathComponent("link.mp4").path) == nil)
        #expect(mkfifo(folder.appendingPathComponent("pipe.mp4").path, 0o600) == 0)
        #expect(VideoMetadata.creationTime(path: folder.appendingPathComponent("pipe.mp4").path) == nil, "a FIFO: no hang")
    }
}
