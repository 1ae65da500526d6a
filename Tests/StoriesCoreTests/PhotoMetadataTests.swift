@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// EXIF written by the test itself, in both byte orders, read back; and hostile blocks.
@Suite struct PhotoMetadataTests {
    enum Value {
        case ascii(String)
        case undefined([UInt8])
    }

    /// A JPEG start (SOI, an APP1 `Exif` segment, then SOS) whose TIFF block holds `ifd0`
    /// and, when given, an Exif sub-directory.
    static func jpeg(littleEndian: Bool, ifd0: [(Int, Value)], exif: [(Int, Value)] = []) -> Data {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        func payload(_ value: Value) -> (type: Int, bytes: [UInt8]) {
            switch value {
            case .ascii(let text): return (2, Array(text.utf8) + [0])
            case .undefined(let bytes): return (7, bytes)
            }
        }
        let ifd0Count = ifd0.count + (exif.isEmpty ? 0 : 1)
        let ifd0Size = 2 + ifd0Count * 12 + 4
        let exifOffset = 8 + ifd0Size
        let exifSize = exif.isEmpty ? 0 : 2 + exif.count * 12 + 4
        let dataOffset = exifOffset + exifSize // where the longer values go, after both directories
        var values: [UInt8] = []
        func entries(_ list: [(Int, Value)], extra: [UInt8]) -> [UInt8] {
            var out = u16(list.count + extra.count / 12)
            for (tag, value) in list {
                let (type, bytes) = payload(value)
                out += u16(tag) + u16(type) + u32(bytes.count)
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += u32(dataOffset + values.count)
                    values += bytes
                }
            }
            return out + extra + u32(0)
        }
        let pointer = exif.isEmpty ? [] : u16(0x8769) + u16(4) + u32(1) + u32(exifOffset)
        var tiff = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        tiff += entries(ifd0, extra: pointer)
        if !exif.isEmpty { tiff += entries(exif, extra: []) }
        tiff += values
        let segment = Array("Exif\0\0".utf8) + tiff
        let length = segment.count + 2
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + segment + [0xFF, 0xDA, 0, 2])
    }

    let utc = TimeZone(identifier: "UTC") ?? .current

    @Test(arguments: [true, false])
    func datesAndCaptionsInEitherByteOrder(littleEndian: Bool) throws {
        let data = Self.jpeg(littleEndian: littleEndian, ifd0: [(0x010E, .ascii("Sunset over the bay"))],
                             exif: [(0x9003, .ascii("2024:06:01 19:45:30")), (0x9011, .ascii("+02:00"))])
        let meta = PhotoMetadata.read(data, timeZone: utc)
        #expect(meta.caption == "Sunset over the bay")
        #expect(meta.captured == Date(timeIntervalSince1970: 1_717_263_930), "19:45:30 at +02:00 is 17:45:30 UTC")
    }

    @Test func aDateWithoutAnOffsetIsTheCamerasLocalTimeAndUserCommentIsTheFallbackCaption() throws {
        let comment = Array("ASCII\0\0\0".utf8) + Array("Our first hike".utf8)
        let data = Self.jpeg(littleEndian: true, ifd0: [(0x0132, .ascii("2024:06:01 19:45:30"))],
                             exif: [(0x9286, .undefined(comment))])
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let meta = PhotoMetadata.read(data, timeZone: tokyo)
        #expect(meta.captured == Date(timeIntervalSince1970: 1_717_238_730), "DateTime, read in the camera's zone (+09:00)")
        #expect(meta.caption == "Our first hike")

        var unicode = Array("UNICODE\0".utf8)
        for unit in "Café ☕".utf16 { unicode += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let wide = PhotoMetadata.read(Self.jpeg(littleEndian: true, ifd0: [], exif: [(0x9286, .undefined(unicode))]))
        #expect(wide.caption == "Café ☕")
    }

    @Test func unknownOrZeroDatesAndHostileTextAreNotKnown() {
        for stamp in ["0000:00:00 00:00:00", "    :  :     :  :  ", "2024:13:01 10:00:00", "garbage", "2024:06:01 25:00:00"] {
            let meta = PhotoMetadata.read(Self.jpeg(littleEndian: true, ifd0: [], exif: [(0x9003, .ascii(stamp))]), timeZone: utc)
            #expect(meta.captured == nil, "\(stamp)")
        }
        let hostile = PhotoMetadata.read(Self.jpeg(littleEndian: false, ifd0: [(0x010E, .ascii("Hi\u{1B}]0;owned\u{07} there"))]))
        #expect(hostile.caption.map { !$0.contains("\u{1B}") && !$0.contains("\u{07}") } == true, "\(String(describing: hostile.caption))")
        let long = PhotoMetadata.read(Self.jpeg(littleEndian: true, ifd0: [(0x010E, .ascii(String(repeating: "x", count: 50_000)))]))
        #expect((long.caption?.utf8.count ?? 0) <= 2000)
    }

    /// Offsets past the block, counts in the billions, a loop back into the header, a
    /// truncated segment, no EXIF at all: nothing known, nothing crashes.
    @Test func brokenBlocksGiveNothing() {
        let good = Self.jpeg(littleEndian: true, ifd0: [(0x010E, .ascii("A caption long enough"))],
                             exif: [(0x9003, .ascii("2024:06:01 19:45:30"))])
        #expect(PhotoMetadata.read(good).caption == "A caption long enough")
        // Every single byte of the block set to 0xFF in turn: never a crash.
        for index in 6..<good.count {
            var broken = good
            broken[index] = 0xFF
            _ = PhotoMetadata.read(broken)
        }
        #expect(PhotoMetadata.read(good.prefix(20)) == PhotoMetadata())
        #expect(PhotoMetadata.read(Data([0xFF, 0xD8, 0xFF, 0xDA, 0, 2])) == PhotoMetadata())
        #expect(PhotoMetadata.read(Data("not a jpeg".utf8)) == PhotoMetadata())
        #expect(PhotoMetadata.read(Data()) == PhotoMetadata())
    }
}

/// Reading a photo's metadata from its file takes only the bytes its segments need.
@Suite struct PhotoMetadataFileTests {
    @Test func aFileIsReadAsFarAsItsEXIFWhereverThatIs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photo-meta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = PhotoMetadataTests.jpeg(littleEndian: false, ifd0: [(0x010E, .ascii("Far in"))], exif: [(0x9003, .ascii("2024:06:02 10:00:00"))])
        // A 40 KB APP2 segment before the EXIF one: past the first read.
        let filler: [UInt8] = [0xFF, 0xE2, 0x9C, 0x42] + [UInt8](repeating: 0x20, count: 0x9C42 - 2)
        let late = Data([0xFF, 0xD8] + filler) + jpeg.dropFirst(2)
        let utc = TimeZone(identifier: "UTC") ?? .current
        for (name, data) in [("near.jpg", jpeg), ("late.jpg", late)] {
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            let meta = PhotoMetadata.read(path: url.path, timeZone: utc)
            #expect(meta == PhotoMetadata.read(data, timeZone: utc) && meta.caption == "Far in", "\(name)")
        }
        // Many tiny segments: read in a few doubling steps, and the answer is the same.
        let tiny = Data([0xFF, 0xD8] + (0..<8000).flatMap { _ in [UInt8]([0xFF, 0xE3, 0x00, 0x02]) }) + jpeg.dropFirst(2)
        let url = folder.appendingPathComponent("tiny.jpg")
        try tiny.write(to: url)
        #expect(PhotoMetadata.read(path: url.path, timeZone: utc) == PhotoMetadata.read(tiny, timeZone: utc))
        #expect(PhotoMetadata.read(path: folder.path) == PhotoMetadata(), "a folder is not a photo")

        // What is read: 8 KB when the EXIF is near the start of a 3 MB photo; to the end of
        // the EXIF segment when a 40 KB segment comes first; a few doubling steps for tiny ones.
        func bytesRead(_ data: Data, size: Int) -> (total: Int, reads: Int) {
            var total = 0, reads = 0
            _ = PhotoMetadata.read(size: size, timeZone: utc) { offset, count in
                reads += 1
                total += count
                let end = min(data.count, offset + count)
                return offset < end ? data[offset..<end] : Data(count: count)
            }
            return (total, reads)
        }
        #expect(bytesRead(jpeg, size: 3_000_000) == (8 << 10, 1))
        let farther = bytesRead(late, size: 3_000_000)
        // Past the 40 KB segment, then at least doubling: never the whole 128 KB.
        #expect(farther.total >= late.count - jpeg.count && farther.total <= 2 * late.count && farther.reads <= 3, "\(farther)")
        let steps = bytesRead(tiny, size: 3_000_000)
        #expect(steps.reads <= 6 && steps.total <= PhotoMetadata.headerBytes, "\(steps)")
    }
}
