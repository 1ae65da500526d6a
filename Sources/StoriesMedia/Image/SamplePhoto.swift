import StoriesCells

/// A photo-like test picture of any size, the same every time: smooth shapes for JPEG's
/// low frequencies plus fine grain so it compresses like a real photo. Used by
/// `stories bench render` (a 1080×1920 story photo) and by tests.
public enum SamplePhoto {
    public static func make(width: Int, height: Int, seed: UInt64 = 1) -> RGBImage {
        var image = RGBImage(width: width, height: height)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let grain = Int(state % 25) - 12
                let fx = Double(x) / Double(max(1, width)), fy = Double(y) / Double(max(1, height))
                let dx = fx - 0.5, dy = fy - 0.35
                let disc = dx * dx * 3 + dy * dy < 0.04 ? 1.0 : 0.0 // a bright disc, like a face
                let r = 40 + 150 * fy + 60 * disc, g = 70 + 90 * fx + 50 * disc, b = 160 - 100 * fy + 30 * disc
                image[x, y] = RGBPixel(clamp(Int(r) + grain), clamp(Int(g) + grain), clamp(Int(b) + grain))
            }
        }
        return image
    }

    private static func clamp(_ v: Int) -> UInt8 { UInt8(min(255, max(0, v))) }
}
