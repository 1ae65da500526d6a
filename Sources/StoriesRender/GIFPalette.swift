import StoriesCells

/// One palette for a whole GIF, made from every frame of it: `stories render` replays the
/// recording twice on the virtual clock (it plays the same both times), surveying the
/// colours the first time. The colours that cover the most of the screen (the text's, the
/// backgrounds') keep their exact values; median cut over the rest, at 5 bits a channel,
/// makes up the other entries; each pixel takes its exact entry or the nearest. No
/// dithering: text stays clean. One palette, the same in every frame, lets the encoder write
/// only the part of a frame that changed.
struct GIFPalette {
    /// Colours counted over every frame.
    struct Survey {
        var histogram = [Int64](repeating: 0, count: 32768)
        var exact: [UInt32: Int64] = [:]
        var pixels: Int64 = 0
        /// Exact colours counted at most (a photo has many more; they go to the cut).
        static let exactLimit = 4096

        mutating func add(_ image: RGBImage, weight: Int64) {
            let count = image.width * image.height
            pixels += Int64(count) * weight
            image.pixels.withUnsafeBufferPointer { p in
                var last: UInt32 = 0xFFFF_FFFF, run: Int64 = 0
                for i in 0..<count {
                    let r = p[i * 3], g = p[i * 3 + 1], b = p[i * 3 + 2]
                    histogram[GIFPalette.bin(r, g, b)] += weight
                    let rgb = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                    if rgb == last { run += weight; continue }
                    flush(last, run)
                    last = rgb
                    run = weight
                }
                flush(last, run)
            }
        }

        private mutating func flush(_ rgb: UInt32, _ run: Int64) {
            guard run > 0 else { return }
            if let known = exact[rgb] { exact[rgb] = known + run } else if exact.count < Self.exactLimit { exact[rgb] = run }
        }
    }

    /// 256 colours, 0xFFRRGGBB.
    let palette: [UInt32]
    private let exactIndex: [UInt32: UInt8]
    private let nearest: [UInt8]
    /// Exact entries at most: the rest of the 256 are the cut's.
    static let exactSlots = 96

    init(survey: Survey) {
        // The exact colours that cover at least 0.1% of all frames' pixels, the most first.
        let floor = max(1, survey.pixels / 1000)
        let chosen = survey.exact.filter { $0.value >= floor }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(Self.exactSlots)
        var histogram = survey.histogram
        var palette: [UInt32] = []
        var exactIndex: [UInt32: UInt8] = [:]
        for (rgb, count) in chosen {
            exactIndex[rgb] = UInt8(palette.count)
            palette.append(0xFF00_0000 | rgb)
            let bin = Self.bin(UInt8(rgb >> 16 & 0xFF), UInt8(rgb >> 8 & 0xFF), UInt8(rgb & 0xFF))
            histogram[bin] = max(0, histogram[bin] - count)
        }
        palette += Self.medianCut(histogram, entries: 256 - palette.count)
        // Each present bin's nearest entry.
        var nearest = [UInt8](repeating: 0, count: 32768)
        for value in survey.histogram.indices where survey.histogram[value] > 0 {
            let r = Self.component(value, 0) * 8 + 4, g = Self.component(value, 1) * 8 + 4, b = Self.component(value, 2) * 8 + 4
            var best = 0, bestDistance = Int.max
            for (index, colour) in palette.enumerated() {
                let dr = r - Int((colour >> 16) & 0xFF), dg = g - Int((colour >> 8) & 0xFF), db = b - Int(colour & 0xFF)
                let distance = 2 * dr * dr + 4 * dg * dg + 3 * db * db
                if distance < bestDistance { (best, bestDistance) = (index, distance) }
            }
            nearest[value] = UInt8(best)
        }
        self.palette = palette + [UInt32](repeating: 0xFF00_0000, count: max(0, 256 - palette.count))
        self.exactIndex = exactIndex
        self.nearest = nearest
    }

    /// The frame's pixels as indices into `palette`.
    func indices(_ image: RGBImage) -> [UInt8] {
        let count = image.width * image.height
        var indices = [UInt8](repeating: 0, count: count)
        image.pixels.withUnsafeBufferPointer { p in
            var last: UInt32 = 0xFFFF_FFFF, lastIndex: UInt8 = 0
            for i in 0..<count {
                let r = p[i * 3], g = p[i * 3 + 1], b = p[i * 3 + 2]
                let rgb = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                if rgb != last {
                    last = rgb
                    lastIndex = exactIndex[rgb] ?? nearest[Self.bin(r, g, b)]
                }
                indices[i] = lastIndex
            }
        }
        return indices
    }

    /// `entries` colours by median cut over the 5-bit histogram: the box with the most
    /// pixels split at its median along its widest channel, until there are enough.
    static func medianCut(_ histogram: [Int64], entries: Int) -> [UInt32] {
        let bins = histogram.indices.filter { histogram[$0] > 0 }
        guard !bins.isEmpty, entries > 0 else { return [] }
        func weight(_ box: ArraySlice<Int>) -> Int64 { box.reduce(0) { $0 + histogram[$1] } }
        var boxes: [(bins: ArraySlice<Int>, weight: Int64)] = [(bins[...], weight(bins[...]))]
        while boxes.count < entries {
            guard let pick = boxes.indices.filter({ boxes[$0].bins.count > 1 }).max(by: { boxes[$0].weight < boxes[$1].weight }) else { break }
            let box = boxes[pick].bins
            let channel = widest(box)
            let sorted = box.sorted { component($0, channel) < component($1, channel) }
            let half = boxes[pick].weight / 2
            var running: Int64 = 0, cut = 1
            for (offset, value) in sorted.enumerated() {
                running += histogram[value]
                if running >= half { cut = max(1, min(sorted.count - 1, offset + 1)); break }
            }
            boxes[pick] = (sorted[0..<cut], weight(sorted[0..<cut]))
            boxes.append((sorted[cut...], weight(sorted[cut...])))
        }
        return boxes.map { box in
            var sum: (Int64, Int64, Int64) = (0, 0, 0)
            for value in box.bins {
                let w = histogram[value]
                sum.0 += w * Int64(component(value, 0) * 8 + 4)
                sum.1 += w * Int64(component(value, 1) * 8 + 4)
                sum.2 += w * Int64(component(value, 2) * 8 + 4)
            }
            let n = max(1, box.weight)
            return 0xFF00_0000 | UInt32(sum.0 / n) << 16 | UInt32(sum.1 / n) << 8 | UInt32(sum.2 / n)
        }
    }

    @inline(__always) static func bin(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int { Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3) }
    @inline(__always) static func component(_ value: Int, _ channel: Int) -> Int { (value >> (10 - 5 * channel)) & 31 }

    static func widest(_ box: ArraySlice<Int>) -> Int {
        var low = [31, 31, 31], high = [0, 0, 0]
        for value in box {
            for channel in 0..<3 {
                let c = component(value, channel)
                low[channel] = min(low[channel], c)
                high[channel] = max(high[channel], c)
            }
        }
        let ranges = (0..<3).map { high[$0] - low[$0] }
        return ranges.indices.max { ranges[$0] < ranges[$1] } ?? 0
    }
}
