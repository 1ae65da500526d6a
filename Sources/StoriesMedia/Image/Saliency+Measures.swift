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
            // The samples in order of light: a pixel's search goes out from its own light
            // and stops where the light alone is farther than the third-nearest found (the
            // same answer as comparing with every sample, for a fraction of the work).
            let count = samples.count / 3
            let order = (0..<count).sorted { samples[$0 * 3] < samples[$1 * 3] }
            let sorted = order.flatMap { [samples[$0 * 3], samples[$0 * 3 + 1], samples[$0 * 3 + 2]] }
            let k = min(3, count)
            sorted.withUnsafeBufferPointer { s in
                features[0].withUnsafeBufferPointer { f0 in
                    features[1].withUnsafeBufferPointer { f1 in
                        features[2].withUnsafeBufferPointer { f2 in
                            nearest[side].withUnsafeMutableBufferPointer { out in
                                for i in 0..<n {
                                    out[i] = k > 0 ? Self.thirdNearest(s, count: count, k: k, f0[i], f1[i], f2[i]) : 0
                                }
                            }
                        }
                    }
                }
            }
        }
        return (0..<n).map { i in
            let sorted = [nearest[0][i], nearest[1][i], nearest[2][i], nearest[3][i]].sorted()
            return sorted[2]
        }
    }

    /// The distance from (f0, f1, f2) to its `k`-th nearest (at most the third) of `count`
    /// samples sorted by their first value.
    @inline(__always)
    private static func thirdNearest(_ s: UnsafeBufferPointer<Float>, count: Int, k: Int, _ f0: Float, _ f1: Float, _ f2: Float) -> Float {
        // Where f0 falls among the samples.
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if s[mid * 3] < f0 { low = mid + 1 } else { high = mid }
        }
        var best = Three()
        var down = low - 1, up = low
        while down >= 0 || up < count {
            let below = down >= 0 ? f0 - s[down * 3] : Float.greatestFiniteMagnitude
            let above = up < count ? s[up * 3] - f0 : Float.greatestFiniteMagnitude
            let limit = best.kth(k)
            let j: Int
            if below <= above {
                if below * below >= limit { break }
                j = down
                down -= 1
            } else {
                if above * above >= limit { break }
                j = up
                up += 1
            }
            let d0 = f0 - s[j * 3], d1 = f1 - s[j * 3 + 1], d2 = f2 - s[j * 3 + 2]
            best.add(d0 * d0 + d1 * d1 + d2 * d2)
        }
        return best.kth(k).squareRoot()
    }

    /// The three smallest values seen, in order.
    private struct Three {
        var a = Float.greatestFiniteMagnitude, b = Float.greatestFiniteMagnitude, c = Float.greatestFiniteMagnitude

        mutating func add(_ d: Float) {
            guard d < c else { return }
            if d < a {
                (a, b, c) = (d, a, b)
            } else if d < b {
                (b, c) = (d, b)
            } else {
                c = d
            }
        }

        func kth(_ k: Int) -> Float { k >= 3 ? c : k == 2 ? b : a }
    }

    /// The `fraction` percentile of values in ascending order, interpolated between
    /// neighbours.
    static func percentile(sorted: [Float], _ fraction: Double) -> Float {
        guard !sorted.isEmpty else { return 0 }
        let at = fraction * Double(sorted.count - 1)
        let low = Int(at.rounded(.down)), high = min(sorted.count - 1, low + 1)
        let t = Float(at - Double(low))
        return sorted[low] + (sorted[high] - sorted[low]) * t
    }

    /// `values` over `top` (their 99th percentile), clipped to 0…1.
    static func normalised(_ values: [Float], top: Float) -> [Float] {
        let scale = 1 / (top + 1e-3)
        return values.map { min(1, max(0, $0 * scale)) }
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
