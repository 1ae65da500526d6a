import StoriesCells

/// A picture's saliency on a small copy of it (`SubjectCrop` says what it measures): per
/// pixel, how much it stands out (`values`), its local contrast beyond the picture's usual
/// (`contrast`), and skin with detail inside it (`face`).
struct Saliency {
    let width: Int
    let height: Int
    private(set) var values: [Float]
    private(set) var contrast: [Float]
    private(set) var face: [Float]

    /// The long side of the copy measured.
    static let side = 128.0
    /// Samples kept of each edge's strip.
    static let edgeSamples = 160
    /// The least distance from the edges' colours (the 99th percentile's) for anything to
    /// stand out: noise reaches 18, gravel and brick 5–11, the faintest subject of the
    /// test set (a heading on a page) 22.
    static let standOut: Float = 20

    /// The radius of a face's neighbourhood on the copy.
    static func faceRadius(_ w: Int, _ h: Int) -> Int { max(1, Int(0.06 * Double(max(w, h)))) }

    init(_ image: RGBImage) {
        let scale = min(1, Self.side / Double(max(1, max(image.width, image.height))))
        width = max(2, Int(Double(image.width) * scale))
        height = max(2, Int(Double(image.height) * scale))
        let small = ImageScaler.resample(image, from: (0, 0, Double(image.width), Double(image.height)), width: width, height: height)
        let n = width * height
        var light = [Float](repeating: 0, count: n), redGreen = light, yellowBlue = light, skin = light
        for i in 0..<n {
            let r = Float(small.pixels[i * 3]), g = Float(small.pixels[i * 3 + 1]), b = Float(small.pixels[i * 3 + 2])
            let l = 0.299 * r + 0.587 * g + 0.114 * b
            light[i] = l
            redGreen[i] = 0.7 * (r - g)
            yellowBlue[i] = 0.7 * ((r + g) / 2 - b)
            let cb = 128 - 0.1687 * r - 0.3313 * g + 0.5 * b, cr = 128 + 0.5 * r - 0.4187 * g - 0.0813 * b
            if l > 60, (77...127).contains(cb), (133...173).contains(cr) { skin[i] = 1 }
        }
        let (w, h) = (width, height)
        let features = [light, redGreen, yellowBlue].map { Self.blur($0, w, h, radius: 1) }
        let fromEdges = Self.distanceFromEdges(features, w, h)
        // Local contrast: a fine blur against a coarse one, less the picture's median.
        let coarseRadius = max(2, Int(0.08 * Double(max(w, h))))
        let coarse = features.map { Self.blur($0, w, h, radius: coarseRadius) }
        var local = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let d0 = features[0][i] - coarse[0][i], d1 = features[1][i] - coarse[1][i], d2 = features[2][i] - coarse[2][i]
            local[i] = (d0 * d0 + d1 * d1 + d2 * d2).squareRoot()
        }
        // Each sorted once: the median and the 99th percentile of the contrast (less its
        // median), the 99th of the distances from the edges.
        let sortedLocal = local.sorted()
        let median = Self.percentile(sorted: sortedLocal, 0.5)
        for i in 0..<n { local[i] = max(0, local[i] - median) }
        let edgesTop = Self.percentile(sorted: fromEdges.sorted(), 0.99)
        // Nothing stands out from the edges anywhere (texture all over, noise): no subject.
        let standsOut = edgesTop < Self.standOut ? [Float](repeating: 0, count: n) : Self.normalised(fromEdges, top: edgesTop)
        let contrastShare = Self.normalised(local, top: max(0, Self.percentile(sorted: sortedLocal, 0.99) - median))
        values = (0..<n).map { standsOut[$0] * (0.5 + 0.5 * contrastShare[$0]) }
        contrast = contrastShare
        // Skin with detail inside it: light changes between neighbouring skin pixels (a
        // face's features, not the edge of skin against black), against the picture's detail.
        var gradient = [Float](repeating: 0, count: n), inside = gradient
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if x + 1 < w {
                    let d = abs(light[i + 1] - light[i])
                    gradient[i] += d
                    inside[i] += d * skin[i] * skin[i + 1]
                }
                if y + 1 < h {
                    let d = abs(light[i + w] - light[i])
                    gradient[i] += d
                    inside[i] += d * skin[i] * skin[i + w]
                }
            }
        }
        let detail = Self.blur(Self.blur(gradient, w, h, radius: 1), w, h, radius: 1)
        let detailMean = detail.reduce(0, +) / Float(n) + 1e-3
        let skinDetail = Self.blur(Self.blur(inside, w, h, radius: 1), w, h, radius: 1)
        let skinShare = skin.reduce(0, +) / Float(n)
        // A face is mostly skin: where skin is only scattered (speckle, noise) there is none.
        let dense = Self.blur(skin, w, h, radius: Self.faceRadius(w, h))
        face = (0..<n).map { dense[$0] >= 0.5 ? skinDetail[$0] / detailMean * skin[$0] : 0 }
        if skinShare > 0.35 { face = [Float](repeating: 0, count: n) }
    }

    /// The subject: its most salient parts (`kept`) and the fainter pixels beside them
    /// that its extent counts (`extent`); nil when nothing stands out.
    func subject() -> (kept: [Bool], extent: [Bool])? {
        let n = width * height
        guard let most = values.max(), most > 0 else { return nil }
        let salient = values.map { $0 > 0.45 * most }
        let parts = Self.components(Self.dilate(salient, width, height, radius: 2), width, height)
        var weights = [Float](repeating: 0, count: parts.count)
        for (label, members) in parts.enumerated() {
            for i in members where salient[i] { weights[label] += values[i] }
        }
        guard let heaviest = weights.max(), heaviest > 0 else { return nil }
        var kept = [Bool](repeating: false, count: n)
        for (label, members) in parts.enumerated() where weights[label] >= 0.3 * heaviest {
            for i in members where salient[i] { kept[i] = true }
        }
        let near = Self.dilate(kept, width, height, radius: 2)
        let extent = (0..<n).map { near[$0] && values[$0] > 0.2 * most }
        return (kept, extent)
    }

    /// Saliency within `mask` summed across the other axis, for each column (or row);
    /// `detailWeighted`: each pixel's saliency weighed up by its contrast, squared (so the
    /// densest part of a large subject leads).
    func profile(_ mask: [Bool], alongX: Bool, detailWeighted: Bool = false) -> [Double] {
        var result = [Double](repeating: 0, count: alongX ? width : height)
        for y in 0..<height {
            for x in 0..<width where mask[y * width + x] {
                let i = y * width + x
                var v = Double(values[i])
                if detailWeighted {
                    v *= 1 + Double(contrast[i])
                    v *= v
                }
                result[alongX ? x : y] += v
            }
        }
        return result
    }

    /// A face's span along the axis (in the copy's pixels, a margin of 15% added): where
    /// skin with detail is densest, and as far each way as it stays above 40% of that.
    func face(alongX: Bool) -> (a: Double, b: Double)? {
        let total = face.reduce(0, +)
        guard total >= 0.003 * Float(width * height) else { return nil }
        let smooth = Self.blur(face, width, height, radius: Self.faceRadius(width, height))
        guard let peak = smooth.indices.max(by: { smooth[$0] < smooth[$1] }) else { return nil }
        let (px, py) = (peak % width, peak / width)
        let line = alongX ? (0..<width).map { smooth[py * width + $0] } : (0..<height).map { smooth[$0 * width + px] }
        let at = alongX ? px : py
        let threshold = 0.4 * line[at]
        var a = at, b = at + 1
        while a > 0, line[a - 1] >= threshold { a -= 1 }
        while b < line.count, line[b] >= threshold { b += 1 }
        let margin = 0.15 * Double(b - a)
        return (Double(a) - margin, Double(b) + margin)
    }
}
