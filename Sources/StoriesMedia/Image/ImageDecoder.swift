import StoriesCells
import StoriesFeedIO
import CStoriesImage
import Foundation
import StoriesCore

public enum ImageFormat: String, Sendable, Equatable {
    case jpeg, png, webp

    /// Decides by content, never by file name: a PNG named `.jpg` is a PNG.
    public static func sniff(_ data: Data) -> ImageFormat? {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // RIFF, a length, then WEBP.
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)),
           data[data.startIndex + 8..<data.startIndex + 12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }
}

/// Limits checked before anything big is allocated: the file size before reading or
/// decoding, the pixel count from the header before the pixel buffer.
public struct MediaLimits: Sendable, Equatable {
    public var maxBytes: Int
    /// Pixels decoded. A JPEG counts after DCT scaling (a 48 MP phone photo is decoded at
    /// an eighth of its size for a terminal), a WebP after libwebp's scaling, a PNG after
    /// the box it is averaged by as its rows are read.
    public var maxPixels: Int
    /// What a JPEG's, PNG's or WebP's header may declare: the ceiling that refuses a decompression bomb
    /// before anything is allocated (108 MP phone cameras and panoramas fit under it).
    public var maxSourcePixels: Int

    public init(maxBytes: Int = 64 << 20, maxPixels: Int = 40_000_000, maxSourcePixels: Int = 250_000_000) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.maxSourcePixels = max(maxPixels, maxSourcePixels)
    }

    public static let standard = MediaLimits()
}

/// Turns JPEG, PNG and WebP bytes into upright RGB pixels. JPEGs decode at the smallest DCT
/// scale that still covers `minimumSize` (the pixels the screen will show), which is most
/// of the speed: 1/8 of a 1080×1920 photo is 135×240.
public enum ImageDecoder {
    public static func decode(_ data: Data, minimumSize: (width: Int, height: Int)? = nil,
                              limits: MediaLimits = .standard,
                              background: RGBPixel = RGBPixel(0, 0, 0)) throws(MediaError) -> RGBImage {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= limits.maxBytes else { throw .fileTooLarge(bytes: data.count, limit: limits.maxBytes) }
        guard let format = ImageFormat.sniff(data) else { throw .unknownFormat }

        var decoded = stories_image()
        let rgb = UInt32(background.r) << 16 | UInt32(background.g) << 8 | UInt32(background.b)
        let status: Int32 = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress
            switch format {
            case .jpeg:
                // The DCT scale is chosen in the file's own orientation.
                return stories_jpeg_decode(bytes, raw.count, Int32(clamping: minimumSize?.width ?? 0),
                                           Int32(clamping: minimumSize?.height ?? 0), Int64(limits.maxPixels),
                                           Int64(limits.maxSourcePixels), &decoded)
            case .png:
                return stories_png_decode(bytes, raw.count, Int32(clamping: minimumSize?.width ?? 0),
                                          Int32(clamping: minimumSize?.height ?? 0), Int64(limits.maxPixels),
                                          Int64(limits.maxSourcePixels), rgb, &decoded)
            case .webp:
                return stories_webp_decode(bytes, raw.count, Int32(clamping: minimumSize?.width ?? 0),
                                           Int32(clamping: minimumSize?.height ?? 0), Int64(limits.maxPixels),
                                           Int64(limits.maxSourcePixels), rgb, &decoded)
            }
        }
        defer { stories_image_free(&decoded) }
        let message = withUnsafeBytes(of: decoded.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch Int(status) {
        case STORIES_IMAGE_OK:
            break
        case STORIES_IMAGE_TOO_LARGE:
            let declared = Int(decoded.source_width) * Int(decoded.source_height)
            let limit = declared > limits.maxSourcePixels ? limits.maxSourcePixels : limits.maxPixels
            throw .tooManyPixels(width: Int(decoded.source_width), height: Int(decoded.source_height), limit: limit)
        case STORIES_IMAGE_NO_MEMORY:
            throw .outOfMemory(message)
        default:
            // libjpeg's words for a progressive file that needs more than its working memory.
            if message.contains("Backing store") {
                throw .outOfMemory("a progressive JPEG of \(decoded.source_width)×\(decoded.source_height) needs more than \(Int(STORIES_JPEG_WORK_MEMORY) >> 20) MB to decode")
            }
            throw .corrupt(format: format, reason: message.isEmpty ? "cannot be decoded" : message)
        }
        guard let pixels = decoded.pixels else { throw .corrupt(format: format, reason: "no pixels") }
        let width = Int(decoded.width), height = Int(decoded.height)
        let buffer = Array(UnsafeBufferPointer(start: pixels, count: width * height * 3))
        var image = RGBImage(width: width, height: height, pixels: buffer).oriented(Int(decoded.orientation))
        let damage = withUnsafeBytes(of: decoded.damage) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        if !damage.isEmpty { image.damage = SafeText.line(damage, maxColumns: 200) }
        return image
    }

    /// Reads a file with the byte limit checked first (from the file's size, before reading).
    public static func decodeFile(at url: URL, minimumSize: (width: Int, height: Int)? = nil,
                                  limits: MediaLimits = .standard) throws(MediaError) -> RGBImage {
        try decode(readFile(at: url, limits: limits), minimumSize: minimumSize, limits: limits)
    }

    /// A file's bytes, refused before reading when the file is larger than the limit: opened
    /// the one safe way (`SafeFile`), following a link since a person named the file, but
    /// never reading a FIFO, device or folder ("is a FIFO, not a file").
    public static func readFile(at url: URL, limits: MediaLimits = .standard) throws(MediaError) -> Data {
        do {
            return try SafeFile.read(url.path, maxBytes: limits.maxBytes, followLinks: true).0
        } catch .tooLarge(let size) {
            throw .fileTooLarge(bytes: size, limit: limits.maxBytes)
        } catch {
            throw .unreadable(error.description)
        }
    }
}
