/// How a picture meets a frame of another shape.
public enum FitMode: String, Sendable, CaseIterable {
    /// Cover the frame, cropped where the picture has the most detail (a face, not the
    /// wall beside it), near the centre when nothing stands out.
    case fill
    /// Show all of it, over a backdrop made from the picture itself: stretched to cover the
    /// frame, blurred and darkened (as story apps do on a wide screen).
    case fit
}

/// Area-averaging resize: every output pixel is the mean of the source area it covers,
/// with fractional edges weighted, so detail averages out instead of aliasing.
public enum ImageScaler {
    /// Resizes `image` into `width`×`height` output pixels. `pixelAspect` is the width of one
    /// output pixel over its height (1 for square; half-block cells on a typical terminal
    /// are close to 1).
    public static func scale(_ image: RGBImage, width: Int, height: Int, fit: FitMode = .fill,
                             pixelAspect: Double = 1) -> RGBImage {
        guard width > 0, height > 0, image.width > 0, image.height > 0 else { return RGBImage(width: max(0, width), height: max(0, height)) }
        // The frame's shape in square units.
        let frameAspect = Double(width) * pixelAspect / Double(height)
        let imageAspect = Double(image.width) / Double(image.height)
        switch fit {
        case .fill:
            var cropW = Double(image.width), cropH = Double(image.height)
            if imageAspect > frameAspect { cropW = cropH * frameAspect } else { cropH = cropW / frameAspect }
            let origin = detailedCrop(image, width: cropW, height: cropH)
            return resample(image, from: (origin.x, origin.y, cropW, cropH), width: width, height: height)
        case .fit:
            let (ox, oy, w, h) = fitRect(imageWidth: image.width, imageHeight: image.height, width: width, height: height,
                                         pixelAspect: pixelAspect)
            let inner = resample(image, from: (0, 0, Double(image.width), Double(image.height)), width: w, height: h)
            var out = w == width && h == height ? inner : backdrop(image, width: width, height: height, frameAspect: frameAspect)
            for y in 0..<h {
                let src = y * w * 3, dst = ((y + oy) * width + ox) * 3
                out.pixels.replaceSubrange(dst..<(dst + w * 3), with: inner.pixels[src..<(src + w * 3)])
            }
            return out
        }
    }

    /// Where a fitted picture lies in a frame of `width`×`height` output pixels: whole, as
    /// large as fits, centred.
    public static func fitRect(imageWidth: Int, imageHeight: Int, width: Int, height: Int,
                               pixelAspect: Double) -> (x: Int, y: Int, width: Int, height: Int) {
        guard imageWidth > 0, imageHeight > 0, width > 0, height > 0 else { return (0, 0, max(0, width), max(0, height)) }
        let frameAspect = Double(width) * pixelAspect / Double(height)
        let imageAspect = Double(imageWidth) / Double(imageHeight)
        var innerW = Double(width), innerH = Double(height)
        if imageAspect > frameAspect { innerH = Double(width) * pixelAspect / imageAspect } else { innerW = Double(height) * imageAspect / pixelAspect }
        let w = max(1, min(width, Int(innerW.rounded()))), h = max(1, min(height, Int(innerH.rounded())))
        return ((width - w) / 2, (height - h) / 2, w, h)
    }

    /// The picture stretched to cover the frame, blurred and darkened: what surrounds a
    /// fitted photo. Made at an eighth of the frame's size and scaled back up smoothly, so
    /// it costs little and shows no detail to compete with the photo.
    static func backdrop(_ image: RGBImage, width: Int, height: Int, frameAspect: Double) -> RGBImage {
        let imageAspect = Double(image.width) / Double(image.height)
        var cropW = Double(image.width), cropH = Double(image.height)
        if imageAspect > frameAspect { cropW = cropH * frameAspect } else { cropH = cropW / frameAspect }
        let smallW = max(2, width / 8), smallH = max(2, height / 8)
        var small = resample(image, from: ((Double(image.width) - cropW) / 2, (Double(image.height) - cropH) / 2, cropW, cropH),
                             width: smallW, height: smallH)
        for _ in 0..<2 { small = boxBlur(small) }
        // Darker and a little greyer, so the photo stands out and text on it reads.
        for i in stride(from: 0, to: small.pixels.count, by: 3) {
            let r = Float(small.pixels[i]), g = Float(small.pixels[i + 1]), b = Float(small.pixels[i + 2])
            let grey = (r + g + b) / 3
            small.pixels[i] = UInt8(max(0, min(255, (r * 0.7 + grey * 0.3) * 0.42)))
            small.pixels[i + 1] = UInt8(max(0, min(255, (g * 0.7 + grey * 0.3) * 0.42)))
            small.pixels[i + 2] = UInt8(max(0, min(255, (b * 0.7 + grey * 0.3) * 0.42)))
        }
        return bilinear(small, width: width, height: height)
    }

    /// A 3×3 box blur, edges clamped.
    static func boxBlur(_ image: RGBImage) -> RGBImage {
        let w = image.width, h = image.height
        var out = image.pixels
        for y in 0..<h {
            for x in 0..<w {
                var sum = (0, 0, 0), n = 0
                for dy in -1...1 {
                    for dx in -1...1 {
                        let sx = min(w - 1, max(0, x + dx)), sy = min(h - 1, max(0, y + dy))
                        let i = (sy * w + sx) * 3
                        sum.0 += Int(image.pixels[i]); sum.1 += Int(image.pixels[i + 1]); sum.2 += Int(image.pixels[i + 2])
                        n += 1
                    }
                }
                let o = (y * w + x) * 3
                out[o] = UInt8(sum.0 / n); out[o + 1] = UInt8(sum.1 / n); out[o + 2] = UInt8(sum.2 / n)
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// Smooth enlargement (bilinear, pixel centres aligned).
    static func bilinear(_ image: RGBImage, width: Int, height: Int) -> RGBImage {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        for y in 0..<height {
            let fy = max(0, min(Double(image.height - 1), (Double(y) + 0.5) * sy - 0.5))
            let y0 = Int(fy), y1 = min(image.height - 1, y0 + 1), ty = Float(fy - Double(y0))
            for x in 0..<width {
                let fx = max(0, min(Double(image.width - 1), (Double(x) + 0.5) * sx - 0.5))
                let x0 = Int(fx), x1 = min(image.width - 1, x0 + 1), tx = Float(fx - Double(x0))
                for c in 0..<3 {
                    let a = Float(image.pixels[(y0 * image.width + x0) * 3 + c]), b = Float(image.pixels[(y0 * image.width + x1) * 3 + c])
                    let d = Float(image.pixels[(y1 * image.width + x0) * 3 + c]), e = Float(image.pixels[(y1 * image.width + x1) * 3 + c])
                    let top = a + (b - a) * tx, bottom = d + (e - d) * tx
                    out[(y * width + x) * 3 + c] = UInt8(max(0, min(255, (top + (bottom - top) * ty).rounded())))
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// Where a crop of `width`×`height` source pixels goes: along the axis the picture is
    /// cut on, the window holding the most of what people look at — detail (the sum of luma
    /// gradients on a small copy) and, weighted well above it, skin (so a face survives
    /// beside a busier sleeve) — a little in favour of the usual place of a subject (the
    /// centre across, the upper third down), which wins when nothing stands out.
    static func detailedCrop(_ image: RGBImage, width cropW: Double, height cropH: Double) -> (x: Double, y: Double) {
        let spareX = Double(image.width) - cropW, spareY = Double(image.height) - cropH
        guard spareX > 0.5 || spareY > 0.5 else { return (max(0, spareX / 2), max(0, spareY / 2)) }
        let alongX = spareX > spareY
        // A small grey copy: at most 128 pixels on its long side.
        let scale = min(1, 128 / Double(max(image.width, image.height)))
        let gw = max(2, Int(Double(image.width) * scale)), gh = max(2, Int(Double(image.height) * scale))
        let small = resample(image, from: (0, 0, Double(image.width), Double(image.height)), width: gw, height: gh)
        var luma = [Float](repeating: 0, count: gw * gh)
        for i in 0..<(gw * gh) {
            luma[i] = 0.299 * Float(small.pixels[i * 3]) + 0.587 * Float(small.pixels[i * 3 + 1]) + 0.114 * Float(small.pixels[i * 3 + 2])
        }
        // Detail per column (or row) of the small copy.
        let lines = alongX ? gw : gh
        var detail = [Float](repeating: 0, count: lines)
        var skin = [Float](repeating: 0, count: lines)
        for y in 0..<(gh - 1) {
            for x in 0..<(gw - 1) {
                let i = y * gw + x
                let g = abs(luma[i + 1] - luma[i]) + abs(luma[i + gw] - luma[i])
                detail[alongX ? x : y] += g
                // Skin, by its chroma (YCbCr), in light enough pixels.
                let r = Float(small.pixels[i * 3]), gr = Float(small.pixels[i * 3 + 1]), b = Float(small.pixels[i * 3 + 2])
                let cb = 128 - 0.1687 * r - 0.3313 * gr + 0.5 * b, cr = 128 + 0.5 * r - 0.4187 * gr - 0.0813 * b
                if luma[i] > 60, (77...127).contains(cb), (133...173).contains(cr) { skin[alongX ? x : y] += 1 }
            }
        }
        let window = max(1, min(lines, Int(((alongX ? cropW / Double(image.width) : cropH / Double(image.height)) * Double(lines)).rounded())))
        var prefix = [Float](repeating: 0, count: lines + 1), skinPrefix = [Float](repeating: 0, count: lines + 1)
        for i in 0..<lines {
            prefix[i + 1] = prefix[i] + detail[i]
            skinPrefix[i + 1] = skinPrefix[i] + skin[i]
        }
        let positions = lines - window
        guard positions > 0 else { return (max(0, spareX / 2), max(0, spareY / 2)) }
        let total = max(1, prefix[lines]), skinTotal = skinPrefix[lines]
        // Skin, when there is any worth counting, weighs more than detail: a face is what
        // people look for in a story photo.
        let skinCounts = skinTotal >= 4
        var best = positions / 2, bestScore = -Float.greatestFiniteMagnitude
        for start in 0...positions {
            let detailShare = (prefix[start + window] - prefix[start]) / total
            let skinShare = skinCounts ? (skinPrefix[start + window] - skinPrefix[start]) / skinTotal : 0
            let share = skinCounts ? 0.35 * detailShare + 0.65 * skinShare : detailShare
            // The usual place is worth a little: 5% of everything there, none at the far edge.
            let place = alongX ? 0.5 : 1.0 / 3
            let t = Float(start) / Float(positions)
            let near = 1 - min(1, abs(t - Float(place)) / Float(max(place, 1 - place)))
            let score = share + 0.05 * near
            if score > bestScore { bestScore = score; best = start }
        }
        let fraction = Double(best) / Double(positions)
        return alongX ? (spareX * fraction, max(0, spareY / 2)) : (max(0, spareX / 2), spareY * fraction)
    }

    /// The most common colour, by a coarse histogram (4 bits a channel) on a sample grid,
    /// averaged within its bucket.
    public static func dominantColor(of image: RGBImage) -> RGBPixel {
        guard image.width > 0, image.height > 0 else { return RGBPixel(0, 0, 0) }
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        let stepX = max(1, image.width / 64), stepY = max(1, image.height / 64)
        for y in stride(from: 0, to: image.height, by: stepY) {
            for x in stride(from: 0, to: image.width, by: stepX) {
                let p = image[x, y]
                let bucket = Int(p.r >> 4) << 8 | Int(p.g >> 4) << 4 | Int(p.b >> 4)
                counts[bucket] += 1
                sums[bucket].0 += Int(p.r); sums[bucket].1 += Int(p.g); sums[bucket].2 += Int(p.b)
            }
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return RGBPixel(0, 0, 0) }
        let n = counts[best]
        return RGBPixel(UInt8(sums[best].0 / n), UInt8(sums[best].1 / n), UInt8(sums[best].2 / n))
    }

    /// One output pixel's span of source pixels with their weights, for each output index.
    private static func spans(start: Double, length: Double, sourceCount: Int, outputCount: Int) -> [(first: Int, weights: [Float])] {
        let step = length / Double(outputCount)
        return (0..<outputCount).map { i in
            let a = start + Double(i) * step, b = a + step
            let first = max(0, Int(a.rounded(.down)))
            let last = min(sourceCount - 1, max(first, Int((b - 1e-9).rounded(.down))))
            var weights: [Float] = []
            weights.reserveCapacity(last - first + 1)
            for s in first...last {
                let covered = min(b, Double(s + 1)) - max(a, Double(s))
                weights.append(Float(max(0, covered) / step))
            }
            return (first, weights)
        }
    }

    private static func resample(_ image: RGBImage, from crop: (x: Double, y: Double, w: Double, h: Double),
                                 width: Int, height: Int) -> RGBImage {
        let columns = spans(start: crop.x, length: crop.w, sourceCount: image.width, outputCount: width)
        let rows = spans(start: crop.y, length: crop.h, sourceCount: image.height, outputCount: height)
        let firstRow = rows.first?.first ?? 0
        let lastRow = rows.last.map { $0.first + $0.weights.count - 1 } ?? 0
        // Horizontal pass over just the source rows the crop needs.
        var horizontal = [Float](repeating: 0, count: (lastRow - firstRow + 1) * width * 3)
        image.pixels.withUnsafeBufferPointer { src in
            for sy in firstRow...lastRow {
                let rowBase = sy * image.width * 3
                let outBase = (sy - firstRow) * width * 3
                for (x, span) in columns.enumerated() {
                    var r: Float = 0, g: Float = 0, b: Float = 0
                    for (k, w) in span.weights.enumerated() {
                        let i = rowBase + (span.first + k) * 3
                        r += Float(src[i]) * w; g += Float(src[i + 1]) * w; b += Float(src[i + 2]) * w
                    }
                    horizontal[outBase + x * 3] = r; horizontal[outBase + x * 3 + 1] = g; horizontal[outBase + x * 3 + 2] = b
                }
            }
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for (y, span) in rows.enumerated() {
            for x in 0..<width {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (k, w) in span.weights.enumerated() {
                    let i = ((span.first + k - firstRow) * width + x) * 3
                    r += horizontal[i] * w; g += horizontal[i + 1] * w; b += horizontal[i + 2] * w
                }
                let o = (y * width + x) * 3
                out[o] = UInt8(min(255, max(0, r.rounded())))
                out[o + 1] = UInt8(min(255, max(0, g.rounded())))
                out[o + 2] = UInt8(min(255, max(0, b.rounded())))
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}
