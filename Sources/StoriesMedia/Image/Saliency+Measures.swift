/// The measures `Saliency` is made of: blurs, distances from the edges, percentiles, and
/// the salient region's connected parts.
extension Saliency {
    /// A box blur of `radius` (a (2r+1)² mean), edges clamped, across then down.
    static func blur(_ plane: [Float], _ w: Int, _ h: Int, radius r: Int) -> [Float] {
        guard r > 0, w > 0, h > 0 else { return plane }
        var across = [Float](repeating: 0, count: plane.count), out = across
        let scale = 1 / Float(2 * r + 1)
        plane.withUnsafeBufferPointer { src in
            across.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<w {
                        var sum: Float = 0
                        for dx in -r...r { sum += src[row + min(w - 1, max(0, x + dx))] }
                        dst[row + x] = sum * scale
                    }
                }
            }
        }
        across.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        var sum: Float = 0
                        for dy in -r...r { sum += src[min(h - 1, max(0, y + dy)) * w + x] }
                        dst[y * w + x] = sum * scale
                    }
                }
            }
        }
        return out
    }

    /// For each pixel, how far its colour is from what the edges show: its distance to
    /// each edge's strip (5% of the short side deep; the third-nearest of at most
    /// `edgeSamples` samples), and of the four the third smallest — near three edges or
    /// more is background.
    static func distanceFromEdges(_ features: [[Float]], _ w: Int, _ h: Int) -> [Float] {
        let n = w * h
        let depth = max(2, Int((0.05 * Double(min(w, h))).rounded()))
        func strip(_ indices: [Int]) -> [Float] {
            var chosen = indices
            if indices.count > edgeSamples {
                chosen = (0..<edgeSamples).map { indices[Int(Double($0) * Double(indices.count - 1) / Double(edgeSamples - 1))] }
            }
            return chosen.flatMap { [features[0][$0], features[1][$0], features[2][$0]] }
        }
        let rows = min(depth, h), columns = min(depth, w)
        let edges = [
            strip((0..<rows).flatMap { y in (0..<w).map { y * w + $0 } }),
            strip(((h - rows)..<h).flatMap { y in (0..<w).map { y * w + $0 } }),
            strip((0..<h).flatMap { y in (0..<columns).map { y * w + $0 } }),
            strip((0..<h).flatMap { y in ((w - columns)..<w).map { y * w + $0 } }),
        ]
        var nearest = [[Float]](repeating: [Float](repeating: 0, count: n), count: 4)
        for (side, samples) in edges.enumerated() {
            let count = samples.count / 3
            let k = min(3, count)
            samples.withUnsafeBufferPointer { s in
                nearest[side].withUnsafeMutableBufferPointer { out in
                    for i in 0..<n {
                        let f0 = features[0][i], f1 = features[1][i], f2 = features[2][i]
                        // The three smallest squared distances, in order.
                        var best: (Float, Float, Float) = (.greatestFiniteMagnitude, .greatestFiniteMagnitude, .greatestFiniteMagnitude)
                        var j = 0
                        while j < count * 3 {
                            let d0 = f0 - s[j], d1 = f1 - s[j + 1], d2 = f2 - s[j + 2]
                            let d = d0 * d0 + d1 * d1 + d2 * d2
                            if d < best.2 {
                                if d < best.0 {
                                    best = (d, best.0, best.1)
                                } else if d < best.1 {
                                    best = (best.0, d, best.1)
                                } else {
                                    best.2 = d
                                }
                            }
                            j += 3
                        }
                        let kth = k >= 3 ? best.2 : k == 2 ? best.1 : best.0
                        out[i] = k > 0 ? kth.squareRoot() : 0
                    }
                }
            }
        }
        return (0..<n).map { i in
            let sorted = [nearest[0][i], nearest[1][i], nearest[2][i], nearest[3][i]].sorted()
            return sorted[2]
        }
    }

    /// The `fraction` percentile of `values`, interpolated between neighbours.
    static func percentile(_ values: [Float], _ fraction: Double) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let at = fraction * Double(sorted.count - 1)
        let low = Int(at.rounded(.down)), high = min(sorted.count - 1, low + 1)
        let t = Float(at - Double(low))
        return sorted[low] + (sorted[high] - sorted[low]) * t
    }

    /// `values` over their 99th percentile, clipped to 0…1.
    static func normalised(_ values: [Float]) -> [Float] {
        let top = percentile(values, 0.99) + 1e-3
        return values.map { min(1, max(0, $0 / top)) }
    }

    /// `mask` grown by `radius` pixels every way (a square).
    static func dilate(_ mask: [Bool], _ w: Int, _ h: Int, radius r: Int) -> [Bool] {
        var across = [Bool](repeating: false, count: mask.count)
        for y in 0..<h {
            for x in 0..<w where mask[y * w + x] {
                for dx in max(0, x - r)...min(w - 1, x + r) { across[y * w + dx] = true }
            }
        }
        var out = [Bool](repeating: false, count: mask.count)
        for y in 0..<h {
            for x in 0..<w where across[y * w + x] {
                for dy in max(0, y - r)...min(h - 1, y + r) { out[dy * w + x] = true }
            }
        }
        return out
    }

    /// The connected parts of `mask` (four neighbours), each as its pixels' indices.
    static func components(_ mask: [Bool], _ w: Int, _ h: Int) -> [[Int]] {
        var seen = [Bool](repeating: false, count: mask.count)
        var parts: [[Int]] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && !seen[start] {
            var members: [Int] = []
            seen[start] = true
            stack.append(start)
            while let i = stack.popLast() {
                members.append(i)
                let x = i % w, y = i / w
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < w && ny >= 0 && ny < h {
                    let j = ny * w + nx
                    if mask[j], !seen[j] {
                        seen[j] = true
                        stack.append(j)
                    }
                }
            }
            parts.append(members)
        }
        return parts
    }
}
