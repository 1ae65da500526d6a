import StoriesCells
import CStoriesImage
import Foundation
/// A picture as sixel graphics (issue 31, point 2: the first of the three encoders): real
/// pixels for terminals that draw them (xterm `-ti vt340`, foot, mlterm, WezTerm, Konsole).
///
/// The palette is the picture's own, at most 255 colours, by median cut over a histogram of
/// 5 bits a channel: the box of colours with the most pixels times the widest spread is cut
/// at its median, on its widest channel, until there are enough boxes; each box's colour is
/// its pixels' mean. No dithering (a pattern laid over a smooth photo is what stories'
/// cells avoid too). Each band of six rows then writes, for each colour in it, its sixels
/// run-length coded, colours joined by `$` and bands by `-`.
public enum SixelEncoder {
    /// The sixel stream for `image`: DCS … ST, with its size said up front (raster
    /// attributes), so the terminal keeps its aspect 1:1 and clears nothing outside it.
    public static func encode(_ image: RGBImage, colours maxColours: Int = 255) -> [UInt8] {
        var palette: SixelPalette?
        return encode(image, colours: maxColours, palette: &palette)
    }

    /// The same, with the palette kept from the picture before in the same place (a video's
    /// frames): used again while it still shows this one well (`SixelPalette`), else made
    /// anew; `palette` is then the one used.
    public static func encode(_ image: RGBImage, colours maxColours: Int = 255, palette kept: inout SixelPalette?) -> [UInt8] {
        let width = image.width, height = image.height
        guard width > 0, height > 0 else { return [] }
        var indices: [UInt8] = []
        let chosen = SixelPalette.choose(for: image, kept: kept, colours: max(2, min(255, maxColours)), indices: &indices)
        kept = chosen
        let palette = chosen.colours
        var out: [UInt8] = []
        out.reserveCapacity(width * height) // a photo's stream is a little under a byte a pixel
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        // P2 = 1: pixels no colour sets are left as they are (not painted in colour 0).
        append("\u{1B}P0;1;0q\"1;1;\(width);\(height)")
        for (index, colour) in palette.enumerated() {
            out.append(UInt8(ascii: "#")); appendNumber(&out, index)
            append(";2;")
            appendNumber(&out, (Int(colour.r) * 100 + 127) / 255); out.append(UInt8(ascii: ";"))
            appendNumber(&out, (Int(colour.g) * 100 + 127) / 255); out.append(UInt8(ascii: ";"))
            appendNumber(&out, (Int(colour.b) * 100 + 127) / 255)
        }
        // The bands, in parts encoded at once on a large picture (each part's bands are
        // independent given the palette), joined in order.
        let bands = (height + 5) / 6
        let parts = width * height >= Self.parallelPixels ? min(Self.parts, bands) : 1
        let streams = Streams(count: parts)
        let colours = palette.count
        indices.withUnsafeBufferPointer { indices in
            let shared = ReadOnly(indices)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let range = (bands * part / parts)..<(bands * (part + 1) / parts)
                streams.set(part, encodeBands(range, indices: shared.buffer, width: width, height: height, colours: colours))
            }
        }
        for part in 0..<parts { out += streams.get(part) }
        append("\u{1B}\\")
        return out
    }

    /// Writes `value` (not negative) in decimal.
    static func appendNumber(_ out: inout [UInt8], _ value: Int) {
        switch value {
        case ..<10: out.append(UInt8(48 + max(0, value)))
        case ..<100: out.append(UInt8(48 + value / 10)); out.append(UInt8(48 + value % 10))
        case ..<1000: out.append(UInt8(48 + value / 100)); out.append(UInt8(48 + value / 10 % 10)); out.append(UInt8(48 + value % 10))
        default: out.append(contentsOf: String(value).utf8)
        }
    }

    /// Pictures of at least this many pixels are encoded in `parts` at once.
    static let parallelPixels = 1 << 18
    static let parts = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    /// The pixels' palette indices, shared by the parts. `@unchecked Sendable`: nothing writes
    /// them while the parts read, and `concurrentPerform` returns only after every part has
    /// finished, inside the buffer's `withUnsafeBufferPointer`.
    private struct ReadOnly: @unchecked Sendable {
        let buffer: UnsafeBufferPointer<UInt8>
        init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }
    }

    /// The parts' streams, each written by its own iteration of `concurrentPerform` and read
    /// after it returns. `@unchecked Sendable`: `lock` guards `slots`.
    private final class Streams: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [[UInt8]]
        init(count: Int) { slots = Array(repeating: [], count: count) }
        func set(_ index: Int, _ bytes: [UInt8]) { lock.lock(); slots[index] = bytes; lock.unlock() }
        func get(_ index: Int) -> [UInt8] { lock.lock(); defer { lock.unlock() }; return slots[index] }
    }

    /// Bands `bands` (of six rows each): for each, each colour's sixels (6 bits, one byte a
    /// column) from the band's first column to the last column it has, run-length coded
    /// (runs of more than three as `!n`), colours in the order they first appear row by row,
    /// joined by `$`, bands by `-` (none after the picture's last: a terminal may count it as
    /// a line and move, or scroll, one further).
    ///
    /// Each band is written by `stories_sixel_band` (C): one pass down each column finds its
    /// (at most six) colours and their bits; the entries are grouped by colour (a counting
    /// sort keeps them in column order) and each colour's run written from its own entries.
    /// The cost follows the pixels, not the colours times the width.
    static func encodeBands(_ bands: Range<Int>, indices: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                            colours: Int) -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max) / 84, height <= Int(Int32.max) - 6,
              indices.count >= width * height, let base = indices.baseAddress else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(width * 6 * bands.count)
        var band = [UInt8](repeating: 0, count: stories_sixel_band_bound(Int32(width)))
        // 32-bit words: the C keeps column numbers in it (4-byte aligned).
        var scratch = [UInt32](repeating: 0, count: (stories_sixel_scratch_bound(Int32(width)) + 3) / 4)
        band.withUnsafeMutableBufferPointer { band in
            scratch.withUnsafeMutableBytes { scratch in
                let words = scratch.baseAddress?.assumingMemoryBound(to: UInt8.self)
                for index in bands where index >= 0 && index * 6 < height {
                    let written = stories_sixel_band(base, Int32(width), Int32(height), Int32(index), band.baseAddress, words)
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: band[0..<min(written, band.count)]))
                    if index * 6 + 6 < height { out.append(UInt8(ascii: "-")) }
                }
            }
        }
        return out
    }

    /// The palette (at most `colours`) and, for each 15-bit colour bin the picture has, its
    /// palette index (`SixelPalette.unmapped` for the bins it has not).
    public static func medianCut(_ image: RGBImage, colours: Int) -> (palette: [RGBPixel], indexOfBin: [UInt8]) {
        // Each bin's pixels and their sums (a box's colour is its pixels' true mean).
        var counts = [Int](repeating: 0, count: 1 << 15)
        var sums = [Int](repeating: 0, count: 3 << 15)
        image.pixels.withUnsafeBufferPointer { pixels in
            counts.withUnsafeMutableBufferPointer { counts in
                sums.withUnsafeMutableBufferPointer { sums in
                    for i in stride(from: 0, to: pixels.count - 2, by: 3) {
                        let r = Int(pixels[i]), g = Int(pixels[i + 1]), b = Int(pixels[i + 2])
                        let bin = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                        counts[bin] += 1
                        sums[3 * bin] += r; sums[3 * bin + 1] += g; sums[3 * bin + 2] += b
                    }
                }
            }
        }
        var bins = (0..<(1 << 15)).filter { counts[$0] > 0 }
        func channel(_ bin: Int, _ c: Int) -> Int { (bin >> (10 - 5 * c)) & 31 }
        // Boxes as ranges of `bins`, each with its pixel count.
        struct Box { var start: Int, end: Int, pixels: Int, spread: Int, axis: Int }
        func box(_ start: Int, _ end: Int) -> Box {
            var low = (31, 31, 31), high = (0, 0, 0), pixels = 0
            for bin in bins[start..<end] {
                pixels += counts[bin]
                let r = bin >> 10, g = (bin >> 5) & 31, b = bin & 31
                low = (min(low.0, r), min(low.1, g), min(low.2, b))
                high = (max(high.0, r), max(high.1, g), max(high.2, b))
            }
            let spreads = (high.0 - low.0, high.1 - low.1, high.2 - low.2)
            let axis = spreads.0 >= spreads.1 && spreads.0 >= spreads.2 ? 0 : spreads.1 >= spreads.2 ? 1 : 2
            return Box(start: start, end: end, pixels: pixels, spread: [spreads.0, spreads.1, spreads.2][axis], axis: axis)
        }
        var boxes = bins.isEmpty ? [] : [box(0, bins.count)]
        var scratch = [Int](repeating: 0, count: bins.count)
        while boxes.count < colours {
            // The box most worth cutting: many pixels over a wide spread.
            guard let pick = boxes.indices.filter({ boxes[$0].end - boxes[$0].start > 1 && boxes[$0].spread > 0 })
                .max(by: { boxes[$0].pixels * boxes[$0].spread < boxes[$1].pixels * boxes[$1].spread }) else { break }
            let chosen = boxes[pick]
            // Ordered on the box's widest channel: a counting sort over its 32 values.
            var tally = [Int](repeating: 0, count: 33)
            for bin in bins[chosen.start..<chosen.end] { tally[channel(bin, chosen.axis) + 1] += 1 }
            for value in 1..<33 { tally[value] += tally[value - 1] }
            for bin in bins[chosen.start..<chosen.end] {
                let value = channel(bin, chosen.axis)
                scratch[tally[value]] = bin
                tally[value] += 1
            }
            bins.replaceSubrange(chosen.start..<chosen.end, with: scratch[0..<(chosen.end - chosen.start)])
            // The median by pixels, never at either end.
            var seen = 0, cut = chosen.start + 1
            for i in chosen.start..<chosen.end {
                seen += counts[bins[i]]
                if seen * 2 >= chosen.pixels { cut = min(max(i + 1, chosen.start + 1), chosen.end - 1); break }
            }
            boxes[pick] = box(chosen.start, cut)
            boxes.append(box(cut, chosen.end))
        }
        var palette: [RGBPixel] = []
        var indexOfBin = [UInt8](repeating: SixelPalette.unmapped, count: 1 << 15)
        for (index, b) in boxes.enumerated() {
            var sum = (0, 0, 0)
            for bin in bins[b.start..<b.end] {
                sum.0 += sums[3 * bin]; sum.1 += sums[3 * bin + 1]; sum.2 += sums[3 * bin + 2]
                indexOfBin[bin] = UInt8(index)
            }
            let n = max(1, b.pixels)
            palette.append(RGBPixel(UInt8(min(255, (sum.0 + n / 2) / n)), UInt8(min(255, (sum.1 + n / 2) / n)),
                                    UInt8(min(255, (sum.2 + n / 2) / n))))
        }
        return (palette.isEmpty ? [RGBPixel(0, 0, 0)] : palette, indexOfBin)
    }
}
