import StoriesCore
import Foundation

/// What a photo says about itself that a photo folder needs: when it was taken and its
/// caption, read from a JPEG's EXIF (`DateTimeOriginal` with `OffsetTimeOriginal`, else
/// `DateTime`; `ImageDescription`, else `UserComment`). Hostile input: every offset and count
/// is checked against the bytes there are, strings are bounded and made printable, and
/// anything wrong only means "not known".
public struct PhotoMetadata: Equatable, Sendable {
    public var captured: Date?
    public var caption: String?
    /// The day the camera's clock showed when it was taken ("2023-05-01"), whatever the
    /// time zone here: the day a person remembers it by.
    public var day: String?
    /// A GIF of more than one frame (played as a video item); nil for other files.
    public var animated: Bool?

    public init(captured: Date? = nil, caption: String? = nil, day: String? = nil, animated: Bool? = nil) {
        self.captured = captured
        self.caption = caption
        self.day = day
        self.animated = animated
    }

    /// The most of a file's start that is looked at: EXIF is one APP1 segment (at most
    /// 64 KB) among the first segments.
    public static let headerBytes = 128 << 10
    /// The most IFD entries read in one directory, and the longest caption kept.
    static let maxEntries = 512
    static let maxCaptionBytes = 2000

    /// Reads the metadata of a JPEG from its first bytes (`headerBytes` are enough); a file
    /// that is not a JPEG, or has no EXIF, gives an empty value. `timeZone` is where a date
    /// without an offset was taken (a camera's clock is local).
    public static func read(_ data: Data, timeZone: TimeZone = .current) -> PhotoMetadata {
        guard let tiff = exifBlock(in: data) else { return PhotoMetadata() }
        return TIFFReader(tiff)?.metadata(timeZone: timeZone) ?? PhotoMetadata()
    }

    /// The metadata of the photo at `path`, reading only as much of its start as its
    /// segments need (a few KB for most files; never more than `headerBytes`), through no link.
    public static func read(path: String, timeZone: TimeZone = .current) -> PhotoMetadata {
        guard let file = try? SafeFile.open(path) else { return PhotoMetadata() }
        return read(file: file, timeZone: timeZone)
    }

    /// The same from a file already open (from its folder's descriptor).
    public static func read(file: SafeFile.Opened, timeZone: TimeZone = .current) -> PhotoMetadata {
        read(size: file.size, timeZone: timeZone) { offset, count in try? file.read(at: offset, count: count) }
    }

    /// The same over any way of reading `count` bytes at `offset` of a file of `size` bytes
    /// (tests count what is read).
    static func read(size: Int, timeZone: TimeZone, reading: (Int, Int) -> Data?) -> PhotoMetadata {
        guard var data = reading(0, min(size, 8 << 10)) else { return PhotoMetadata() }
        if GIFInfo.read(data) != nil {
            // A GIF has no EXIF: what matters is whether it moves (a second frame, or a loop
            // extension, within its first `headerBytes`).
            if data.count < min(size, headerBytes), let more = reading(data.count, min(size, headerBytes) - data.count) { data += more }
            return PhotoMetadata(animated: GIFInfo.read(data)?.isAnimated ?? false)
        }
        while let needed = bytesNeeded(data), needed > data.count, data.count < size {
            // At least doubling: a file of many tiny segments is read in a few steps, not one per segment.
            let count = min(size - data.count, max(needed - data.count, min(data.count, headerBytes - data.count)))
            guard count > 0, let more = reading(data.count, count), !more.isEmpty else { break }
            data += more
        }
        return read(data, timeZone: timeZone)
    }

    /// How much of the file's start the marker walk needs to reach the end of its EXIF
    /// segment: nil when `data` already has it, or when there is none to find.
    static func bytesNeeded(_ data: Data) -> Int? {
        guard case .needs(let count) = walk([UInt8](data.prefix(headerBytes))) else { return nil }
        return count <= headerBytes ? count : nil
    }

    /// The TIFF block of the first `Exif\0\0` APP1 segment.
    static func exifBlock(in data: Data) -> Data? {
        let bytes = [UInt8](data.prefix(headerBytes))
        guard case .exif(let range) = walk(bytes) else { return nil }
        return Data(bytes[range])
    }

    enum Walk: Equatable {
        /// Where the TIFF block is.
        case exif(Range<Int>)
        /// The walk ran off the bytes there are: this many would take it one segment further.
        case needs(Int)
        /// Not a JPEG, or its picture starts with no EXIF before it.
        case none
    }

    /// Walks a JPEG's markers from the start to the first `Exif\0\0` APP1 segment.
    static func walk(_ bytes: [UInt8]) -> Walk {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .none }
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return .none }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue } // fill byte
            if marker == 0xDA || marker == 0xD9 { return .none } // the picture starts: no EXIF before it
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2 else { return .none }
            // The segment runs past what was read: to its end and the next marker's header.
            if at + 2 + length > bytes.count { return .needs(at + 2 + length + 4) }
            if marker == 0xE1, length >= 8, bytes[(at + 4)..<(at + 10)].elementsEqual(Array("Exif\0\0".utf8)) {
                return .exif((at + 10)..<(at + 2 + length))
            }
            at += 2 + length
        }
        return .needs(at + 4)
    }
}

/// A bounds-checked reader of one TIFF block (EXIF's container).
struct TIFFReader {
    let bytes: [UInt8]
    let littleEndian: Bool

    init?(_ data: Data) {
        bytes = [UInt8](data)
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        guard u16(2) == 42 else { return nil }
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return littleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return littleEndian ? a | b << 16 : a << 16 | b
    }

    /// One directory's entries: tag → (type, count, the offset of its value).
    func directory(at offset: Int) -> [Int: (type: Int, count: Int, value: Int)] {
        guard let count = u16(offset) else { return [:] }
        var entries: [Int: (type: Int, count: Int, value: Int)] = [:]
        for index in 0..<min(count, PhotoMetadata.maxEntries) {
            let entry = offset + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { break }
            // Values of four bytes or fewer sit in the entry itself; longer ones elsewhere.
            let unit: Int
            switch type {
            case 3, 8: unit = 2
            case 4, 9, 11: unit = 4
            case 5, 10, 12: unit = 8
            default: unit = 1 // BYTE, ASCII, SBYTE, UNDEFINED (and unknown types, read as bytes)
            }
            let size = n.multipliedReportingOverflow(by: unit)
            guard !size.overflow else { continue }
            let value = size.partialValue <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
            if entries[tag] == nil { entries[tag] = (type, n, value) }
        }
        return entries
    }

    /// The bytes of an entry's value, when all of them are inside the block.
    func raw(_ entry: (type: Int, count: Int, value: Int), limit: Int) -> [UInt8]? {
        let count = min(entry.count, limit)
        guard entry.value >= 0, count >= 0, entry.value <= bytes.count, count <= bytes.count - entry.value else { return nil }
        return Array(bytes[entry.value..<(entry.value + count)])
    }

    /// An ASCII value, up to its first NUL, made printable; nil when empty.
    func text(_ entry: (type: Int, count: Int, value: Int)?, limit: Int = PhotoMetadata.maxCaptionBytes) -> String? {
        guard let entry, entry.type == 2 || entry.type == 7, let raw = raw(entry, limit: limit) else { return nil }
        let bytes = raw.prefix { $0 != 0 }
        let line = SafeText.line(String(decoding: bytes, as: UTF8.self)).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : line
    }

    func metadata(timeZone: TimeZone) -> PhotoMetadata {
        guard let first = u32(4) else { return PhotoMetadata() }
        let ifd0 = directory(at: first)
        let exif = ifd0[0x8769].flatMap { u32($0.value) }.map { directory(at: $0) } ?? [:]
        var result = PhotoMetadata()
        let offset = text(exif[0x9011], limit: 16)
        if let stamp = text(exif[0x9003], limit: 32) ?? text(ifd0[0x0132], limit: 32) {
            result.captured = Self.date(stamp, offset: offset, timeZone: timeZone)
            // Valid (a date came of it): its first ten characters are the camera's day.
            if result.captured != nil { result.day = String(stamp.prefix(10)).replacingOccurrences(of: ":", with: "-") }
        }
        result.caption = text(ifd0[0x010E]) ?? userComment(exif[0x9286])
        return result
    }

    /// `UserComment`: an 8-byte character code, then the text (ASCII or UTF-8 here; UCS-2
    /// in the byte order of the block).
    func userComment(_ entry: (type: Int, count: Int, value: Int)?) -> String? {
        guard let entry, entry.count > 8, let raw = raw(entry, limit: PhotoMetadata.maxCaptionBytes + 8) else { return nil }
        let code = raw.prefix(8), body = Array(raw.dropFirst(8))
        let decoded: String
        if code.elementsEqual(Array("UNICODE\0".utf8)) {
            var units: [UInt16] = []
            var index = 0
            while index + 1 < body.count {
                units.append(littleEndian ? UInt16(body[index]) | UInt16(body[index + 1]) << 8
                                          : UInt16(body[index]) << 8 | UInt16(body[index + 1]))
                index += 2
            }
            decoded = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        } else {
            decoded = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        }
        let line = SafeText.line(decoded).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : line
    }

    /// "YYYY:MM:DD HH:MM:SS", at `offset` ("+01:00") when given, else in `timeZone`; nil for
    /// anything else (cameras write zeros or spaces when they do not know).
    static func date(_ text: String, offset: String?, timeZone: TimeZone) -> Date? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == " " }).map { Int($0) }
        guard parts.count == 6, let year = parts[0], let month = parts[1], let day = parts[2],
              let hour = parts[3], let minute = parts[4], let second = parts[5],
              (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var zone = timeZone
        if let offset, offset.count == 6, let sign = offset.first, sign == "+" || sign == "-",
           let hours = Int(offset.dropFirst().prefix(2)), let minutes = Int(offset.suffix(2)), hours <= 14, minutes < 60,
           let fixed = TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)) {
            zone = fixed
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }
}
