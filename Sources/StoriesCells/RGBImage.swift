/// An 8-bit RGB picture, rows top to bottom, three bytes a pixel.
public struct RGBImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]
    /// Why only part of the picture decoded (a file cut short), when that is so: it is shown
    /// as it decoded, with a notice.
    public var damage: String?

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "pixel buffer does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: RGBPixel = RGBPixel(0, 0, 0)) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        // Black (most pictures' backdrop) is what the array already holds.
        if fill.r != 0 || fill.g != 0 || fill.b != 0 {
            for i in stride(from: 0, to: pixels.count, by: 3) {
                pixels[i] = fill.r; pixels[i + 1] = fill.g; pixels[i + 2] = fill.b
            }
        }
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> RGBPixel {
        get {
            let i = (y * width + x) * 3
            return RGBPixel(pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.r; pixels[i + 1] = newValue.g; pixels[i + 2] = newValue.b
        }
    }

    /// Bytes this image holds (for cache budgets).
    public var byteCount: Int { pixels.count }

    /// The picture turned upright according to an EXIF orientation (1–8).
    public func oriented(_ orientation: Int) -> RGBImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let w = swaps ? height : width, h = swaps ? width : height
        var out = RGBImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                // Where the upright pixel (x, y) is stored in the file.
                let (sx, sy): (Int, Int) = switch orientation {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)
                case 6: (y, height - 1 - x)
                case 7: (width - 1 - y, height - 1 - x)
                default: (width - 1 - y, x) // 8
                }
                out[x, y] = self[sx, sy]
            }
        }
        return out
    }
}

public struct RGBPixel: Equatable, Hashable, Sendable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r; self.g = g; self.b = b
    }
}
