import StoriesCells
import CStoriesImage
import Foundation

/// Writes exact JPEG, PNG and WebP files, for tests (known pixels, every PNG colour type, CMYK,
/// progressive, EXIF orientation) and for benchmarks that need full-size photos.
public enum ImageEncoder {
    public enum PNGLayout: Sendable {
        case grey, greyAlpha, rgb, rgba, grey16, rgb16
        case palette([RGBPixel])

        var format: UInt32 {
            switch self {
            case .grey: 0                                    // PNG_FORMAT_GRAY
            case .greyAlpha: 1                               // PNG_FORMAT_GA
            case .rgb: 2                                     // PNG_FORMAT_RGB
            case .rgba: 3                                    // PNG_FORMAT_RGBA
            case .grey16: 4                                  // PNG_FORMAT_LINEAR_Y
            case .rgb16: 6                                   // PNG_FORMAT_LINEAR_RGB
            case .palette: 2 | 8                             // PNG_FORMAT_RGB_COLORMAP
            }
        }
    }

    /// `samples` in the layout's own channels (16-bit layouts: native-endian UInt16 pairs;
    /// palette: one index a pixel).
    /// `fast`: zlib's fastest level (a picture for a terminal, made while it waits).
    public static func png(_ samples: [UInt8], width: Int, height: Int, layout: PNGLayout, fast: Bool = false) -> Data? {
        var colormap: [UInt8] = []
        if case .palette(let colours) = layout { colormap = colours.flatMap { [$0.r, $0.g, $0.b] } }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = samples.withUnsafeBufferPointer { pixels in
            colormap.withUnsafeBufferPointer { map in
                stories_png_encode(pixels.baseAddress, Int32(width), Int32(height), layout.format,
                                   map.isEmpty ? nil : map.baseAddress, Int32(map.count / 3), fast ? 1 : 0, &out, &size)
            }
        }
        guard status == 0, let out else { return nil }
        defer { stories_buffer_free(out) }
        return Data(bytes: out, count: size)
    }

    public static func png(_ image: RGBImage, fast: Bool = false) -> Data? {
        png(image.pixels, width: image.width, height: image.height, layout: .rgb, fast: fast)
    }

    /// `components`: 1 grey, 3 RGB, 4 CMYK.
    public static func jpeg(_ samples: [UInt8], width: Int, height: Int, components: Int = 3, quality: Int = 90,
                            progressive: Bool = false, orientation: Int = 0) -> Data? {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = samples.withUnsafeBufferPointer { pixels in
            stories_jpeg_encode(pixels.baseAddress, Int32(width), Int32(height), Int32(components), Int32(quality),
                                progressive ? 1 : 0, Int32(orientation), &out, &size)
        }
        guard status == 0, let out else { return nil }
        defer { stories_buffer_free(out) }
        return Data(bytes: out, count: size)
    }

    public static func jpeg(_ image: RGBImage, quality: Int = 90, progressive: Bool = false, orientation: Int = 0) -> Data? {
        jpeg(image.pixels, width: image.width, height: image.height, quality: quality, progressive: progressive, orientation: orientation)
    }

    /// Lossless WebP of RGB (3 bytes a pixel) or RGBA (4) samples.
    public static func webp(_ samples: [UInt8], width: Int, height: Int, alpha: Bool = false) -> Data? {
        guard samples.count == width * height * (alpha ? 4 : 3) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = samples.withUnsafeBufferPointer { pixels in
            stories_webp_encode_lossless(pixels.baseAddress, Int32(width), Int32(height), alpha ? 1 : 0, &out, &size)
        }
        guard status == 0, let out else { return nil }
        defer { stories_webp_free(out) }
        return Data(bytes: out, count: size)
    }

    public static func webp(_ image: RGBImage) -> Data? {
        webp(image.pixels, width: image.width, height: image.height)
    }
}
