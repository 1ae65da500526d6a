import StoriesCells

/// Where a fill's crop goes (issue 49): the window that keeps the subject whole.
///
/// On a small copy of the picture (128 pixels on its long side):
///
/// 1. **What stands out from the picture's edges.** Each pixel's colour (a light and two
///    opponent-colour axes) is compared with the colours along each of the four edges (its
///    third-nearest sample there, so one stray pixel does not count): background is what
///    three edges or more also show — a sky, a floor, a wall, black around a fundus photo,
///    and texture that runs everywhere (gravel, leaves, vessels) — and a subject is what at
///    most two edges show, so one that touches an edge or sits in a corner still counts.
///    That distance, weighed up by local contrast (a fine blur against a coarse one, less
///    the picture's median contrast, so texture spread all over adds nothing), is the
///    saliency.
/// 2. **The subject's extent.** The salient region (above 45% of the most salient) is
///    split into connected parts (after closing gaps of two pixels): the part with most
///    weight and those with at least 30% of it are the subject; its extent along the cut
///    axis is where 98% of its saliency lies, counting the fainter pixels next to it.
/// 3. **The window.** A face (skin with detail inside it, where skin is not a third of the
///    picture) is kept whole first, unless the subject, kept whole, holds it. When the
///    subject fits, with a margin of 12% of its size where there is room, the window keeps
///    it whole and stays as near the centre as that allows; when it does not, the window
///    holds most of it (its saliency weighed by its detail, squared), a little (5%)
///    towards the centre — which is all there is to go on when nothing stands out, so a
///    picture without a subject is cropped about its middle.
///
/// Measured on 28 photos with hand-drawn subject boxes at six frame shapes
/// (`SubjectCropTests`, numbers in docs/architecture.md).
enum SubjectCrop {
    /// The crop's origin, in source pixels, for a window of `cropW`×`cropH`.
    static func origin(_ image: RGBImage, width cropW: Double, height cropH: Double) -> (x: Double, y: Double) {
        let spareX = Double(image.width) - cropW, spareY = Double(image.height) - cropH
        // Nothing (or under 2% of the picture) to choose: the middle, without looking.
        guard spareX > max(0.5, 0.02 * Double(image.width)) || spareY > max(0.5, 0.02 * Double(image.height)) else {
            return (max(0, spareX / 2), max(0, spareY / 2))
        }
        let alongX = spareX > spareY
        let map = Saliency(image)
        let length = Double(alongX ? image.width : image.height), window = alongX ? cropW : cropH
        let start = place(map, alongX: alongX, length: length, window: window)
        return alongX ? (start, max(0, spareY / 2)) : (max(0, spareX / 2), start)
    }

    /// Where the window of `window` source pixels starts along an axis `length` long.
    static func place(_ map: Saliency, alongX: Bool, length: Double, window: Double) -> Double {
        let n = alongX ? map.width : map.height
        let scale = length / Double(n)
        let centre = (length - window) / 2
        var low = 0.0, high = length - window
        let subject = map.subject()
        guard let subject else { return centre } // nothing stands out
        // Along the axis: the subject's saliency and its extent's.
        let extentProfile = map.profile(subject.extent, alongX: alongX)
        var (a, b) = interval(extentProfile, trim: 0.01)
        a *= scale
        b *= scale
        let fits = b - a <= window
        // A subject at most a quarter longer than the window is centred on (it loses little);
        // a longer one is shown by its part that holds most.
        let nearlyFits = b - a < 1.25 * window
        var face: (a: Double, b: Double)?
        if let found = map.face(alongX: alongX) {
            let f = (a: max(0, found.a * scale), b: min(length, found.b * scale))
            face = f
            let overlap = max(0, min(f.b, b) - max(f.a, a))
            if f.b - f.a <= window, !(nearlyFits && overlap >= 0.5 * (f.b - f.a)) {
                low = max(low, f.b - window)
                high = min(high, f.a)
            }
        }
        var want: Double
        if fits {
            let margin = min(0.12 * (b - a), max(0, (window - (b - a)) / 2))
            a -= margin
            b += margin
            want = min(max(centre, b - window), a)
        } else if nearlyFits {
            want = (a + b) / 2 - window / 2
        } else {
            if let face, face.b - face.a > window {
                low = min(max(0, (face.a + face.b) / 2 - window / 2), length - window)
                high = low
            }
            let weights = map.profile(subject.kept, alongX: alongX, detailWeighted: true)
            var prefix = [Double](repeating: 0, count: n + 1)
            for i in 0..<n { prefix[i + 1] = prefix[i] + weights[i] }
            let total = max(1e-9, prefix[n])
            let w = max(1, min(n, Int((window / scale).rounded())))
            var best = 0, bestScore = -Double.greatestFiniteMagnitude
            for start in 0...(n - w) {
                let near = 1 - abs(Double(start) * scale - centre) / max(1, centre)
                let score = (prefix[start + w] - prefix[start]) / total + 0.05 * near
                if score > bestScore + 1e-12 {
                    bestScore = score
                    best = start
                }
            }
            want = Double(best) * scale
        }
        let placed = low <= high ? min(max(low, want), high) : want
        return min(max(0, placed), max(0, length - window))
    }

    /// The smallest span of `profile` (in its own units) holding all but `trim` of its
    /// weight at either end.
    static func interval(_ profile: [Double], trim: Double) -> (Double, Double) {
        let total = profile.reduce(0, +)
        guard total > 0 else { return (0, Double(profile.count)) }
        var sum = 0.0, first: Int?, last = profile.count - 1
        for (i, value) in profile.enumerated() {
            sum += value
            if first == nil, sum >= total * trim { first = i }
            if sum >= total * (1 - trim) {
                last = i
                break
            }
        }
        return (Double(first ?? 0), Double(last + 1))
    }
}
