/// How a picture meets a frame of another shape.
public enum FitMode: String, Sendable, CaseIterable {
    /// Cover the frame, cropping the centre (the story default: a 9:16 photo on a screen).
    case fill
    /// Show all of it, letterboxed on the picture's dominant colour.
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
            // Crop the source to the frame's shape, centred.
            var cropW = Double(image.width), cropH = Double(image.height)
            if imageAspect > frameAspect { cropW = cropH * frameAspect } else { cropH = cropW / frameAspect }
            let x0 = (Double(image.width) - cropW) / 2, y0 = (Double(image.height) - cropH) / 2
            return resample(image, from: (x0, y0, cropW, cropH), width: width, height: height)
        case .fit:
            var innerW = Double(width), innerH = Double(height)
            if imageAspect > frameAspect { innerH = Double(width) * pixelAspect / imageAspect } else { innerW = Double(height) * imageAspect / pixelAspect }
            let w = max(1, min(width, Int(innerW.rounded()))), h = max(1, min(height, Int(innerH.rounded())))
            let inner = resample(image, from: (0, 0, Double(image.width), Double(image.height)), width: w, height: h)
            var out = RGBImage(width: width, height: height, fill: dominantColor(of: image))
            let ox = (width - w) / 2, oy = (height - h) / 2
            for y in 0..<h {
                let src = y * w * 3, dst = ((y + oy) * width + ox) * 3
                out.pixels.replaceSubrange(dst..<(dst + w * 3), with: inner.pixels[src..<(src + w * 3)])
            }
            return out
        }
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
