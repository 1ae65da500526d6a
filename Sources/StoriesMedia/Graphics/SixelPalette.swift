import StoriesCells
import CStoriesImage

/// A sixel picture's palette, kept from one picture to the next where they follow each other
/// in the same place (a video's frames): making a palette (`SixelEncoder.medianCut`) is the
/// largest part of encoding a frame, and the frames of one shot share their colours.
///
/// A kept palette is used again while it shows the new picture nearly as well as it showed
/// the one it was made for — the mean difference a pixel (the three channels' levels added)
/// at most `worseBy` times that, plus `slack` — and for at most `maxUses` pictures after its
/// own; then a new one is made. A colour bin the palette was not made with is given its
/// nearest colour when first met.
public struct SixelPalette: Sendable {
    public let colours: [RGBPixel]
    /// The same colours as the C functions take them: r, g, b, r, g, b, …
    private let rgb: [UInt8]
    /// Each 15-bit colour bin's palette index; `unmapped` until met.
    private(set) var indexOfBin: [UInt8]
    /// The mean difference a pixel on the picture it was made for.
    public private(set) var madeError = 0.0
    /// Pictures it has been used for since it was made.
    public private(set) var uses = 0

    static let unmapped: UInt8 = 255
    public static let worseBy = 1.25
    public static let slack = 1.5
    public static let maxUses = 30

    /// A palette made for `image` (at most 255 colours: index 255 marks a bin not met yet).
    init(made image: RGBImage, colours: Int) {
        let (palette, lookup) = SixelEncoder.medianCut(image, colours: max(2, min(255, colours)))
        self.colours = palette
        rgb = palette.flatMap { [$0.r, $0.g, $0.b] }
        indexOfBin = lookup
    }

    /// The palette for `image`: `kept` when it still shows it well enough, else a new one.
    /// `indices` gets each pixel's palette index. How well is judged on every
    /// `errorStep(width)`-th pixel.
    static func choose(for image: RGBImage, kept: SixelPalette?, colours: Int, indices: inout [UInt8]) -> SixelPalette {
        if var palette = kept, palette.uses < maxUses, palette.colours.count <= colours {
            if palette.error(image) <= palette.madeError * worseBy + slack {
                // Used again: every bin gets its colour now, once, rather than a few thousand
                // a picture as they are met.
                if palette.uses == 0 { palette.fillLookup() }
                palette.uses += 1
                palette.map(image, into: &indices)
                return palette
            }
        }
        var palette = SixelPalette(made: image, colours: colours)
        palette.madeError = palette.error(image)
        palette.map(image, into: &indices)
        return palette
    }

    /// Every `errorStep(width)`-th pixel is judged: 7, or the next prime that does not divide
    /// the width (so the samples do not fall in the same columns row after row).
    static func errorStep(_ width: Int) -> Int { [7, 11, 13, 17, 19].first { width % $0 != 0 } ?? 23 }

    /// Every bin's nearest colour (`stories_sixel_fill_lookup`).
    mutating func fillLookup() {
        guard !colours.isEmpty, colours.count <= 255 else { return }
        indexOfBin.withUnsafeMutableBufferPointer { lookup in
            stories_sixel_fill_lookup(lookup.baseAddress, rgb, Int32(colours.count))
        }
    }

    /// Each pixel's index (bins not met yet given their nearest colour, in C:
    /// `stories_sixel_map`).
    mutating func map(_ image: RGBImage, into indices: inout [UInt8]) {
        let count = image.width * image.height
        guard count > 0, image.pixels.count >= 3 * count, !colours.isEmpty, colours.count <= 255 else { return }
        if indices.count != count { indices = [UInt8](repeating: 0, count: count) }
        image.pixels.withUnsafeBufferPointer { pixels in
            indices.withUnsafeMutableBufferPointer { indices in
                indexOfBin.withUnsafeMutableBufferPointer { lookup in
                    stories_sixel_map(pixels.baseAddress, count, lookup.baseAddress, rgb, Int32(colours.count), indices.baseAddress)
                }
            }
        }
    }

    /// The mean difference a pixel (channels added) between the picture and its palette
    /// colours, over every `errorStep(width)`-th pixel.
    mutating func error(_ image: RGBImage) -> Double {
        let count = image.width * image.height
        guard count > 0, image.pixels.count >= 3 * count, !colours.isEmpty, colours.count <= 255 else { return 0 }
        return image.pixels.withUnsafeBufferPointer { pixels in
            indexOfBin.withUnsafeMutableBufferPointer { lookup in
                stories_sixel_error(pixels.baseAddress, count, Self.errorStep(image.width), lookup.baseAddress, rgb, Int32(colours.count))
            }
        }
    }
}
