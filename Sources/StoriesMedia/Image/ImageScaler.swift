import StoriesCells

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
            let origin = SubjectCrop.origin(image, width: cropW, height: cropH)
            return resample(image, from: (origin.x, origin.y, cropW, cropH), width: width, height: height)
        case .fit:
            let (ox, oy, w, h) = fitRect(imageWidth: image.width, imageHeight: image.height, width: width, height: height,
                                         pixelAspect: pixelAspect)
            let inner = resample(image, from: (0, 0, Double(image.width), Double(image.height)), width: w, height: h)
            var out = w == width && h == height ? inner
                : backdrop(image, width: width, height: height, frameAspect: frameAspect, around: (ox, oy, w, h))
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
    /// Only the pixels `around` the picture's place are made (the rest stay black, for the
    /// picture to cover).
    static func backdrop(_ image: RGBImage, width: Int, height: Int, frameAspect: Double,
                         around inner: (x: Int, y: Int, width: Int, height: Int)? = nil) -> RGBImage {
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
        return bilinear(small, width: width, height: height, around: inner)
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
    /// `around`: only the pixels outside this rectangle are made (the rest stay black).
    static func bilinear(_ image: RGBImage, width: Int, height: Int,
                         around inner: (x: Int, y: Int, width: Int, height: Int)? = nil) -> RGBImage {
        guard width > 0, height > 0, image.width > 0, image.height > 0 else { return RGBImage(width: max(0, width), height: max(0, height)) }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        // Every source row stretched across first (each source row once), then each output
        // row a blend of two of them.
        var across = [Float](repeating: 0, count: image.height * width * 3)
        image.pixels.withUnsafeBufferPointer { src in
            across.withUnsafeMutableBufferPointer { rows in
                for x in 0..<width {
                    let fx = max(0, min(Double(image.width - 1), (Double(x) + 0.5) * sx - 0.5))
                    let x0 = Int(fx), x1 = min(image.width - 1, x0 + 1), tx = Float(fx - Double(x0))
                    for y in 0..<image.height {
                        let row = y * image.width * 3, o = (y * width + x) * 3
                        for c in 0..<3 {
                            let a = Float(src[row + x0 * 3 + c]), b = Float(src[row + x1 * 3 + c])
                            rows[o + c] = a + (b - a) * tx
                        }
                    }
                }
            }
        }
        across.withUnsafeBufferPointer { rows in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let fy = max(0, min(Double(image.height - 1), (Double(y) + 0.5) * sy - 0.5))
                    let y0 = Int(fy), ty = Float(fy - Double(y0))
                    let top = y0 * width * 3, bottom = min(image.height - 1, y0 + 1) * width * 3
                    let skipped = inner.flatMap { y >= $0.y && y < $0.y + $0.height ? ($0.x * 3)..<(($0.x + $0.width) * 3) : nil }
                    let o = y * width * 3
                    for i in 0..<(width * 3) {
                        if let skipped, skipped.contains(i) { continue }
                        let t = rows[top + i], b = rows[bottom + i]
                        dst[o + i] = UInt8(max(0, min(255, t + (b - t) * ty + 0.5)))
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// `image` cropped about its centre to the frame's shape and resized to it: a plain
    /// centre crop (what `stories bench fidelity` gives every renderer alike).
    public static func centreCropped(_ image: RGBImage, width: Int, height: Int) -> RGBImage {
        guard width > 0, height > 0, image.width > 0, image.height > 0 else { return RGBImage(width: max(0, width), height: max(0, height)) }
        let frameAspect = Double(width) / Double(height), imageAspect = Double(image.width) / Double(image.height)
        var cropW = Double(image.width), cropH = Double(image.height)
        if imageAspect > frameAspect { cropW = cropH * frameAspect } else { cropH = cropW / frameAspect }
        return resample(image, from: ((Double(image.width) - cropW) / 2, (Double(image.height) - cropH) / 2, cropW, cropH),
                        width: width, height: height)
    }

    /// The crop a fill of `image` into a frame of this shape (width over height, square
    /// units) takes, in source pixels: what `scale(_:fit: .fill)` shows.
    public static func fillCrop(_ image: RGBImage, frameAspect: Double) -> (x: Double, y: Double, width: Double, height: Double) {
        guard image.width > 0, image.height > 0, frameAspect.isFinite, frameAspect > 0 else {
            return (0, 0, Double(image.width), Double(image.height))
        }
        let imageAspect = Double(image.width) / Double(max(1, image.height))
        var cropW = Double(image.width), cropH = Double(image.height)
        if imageAspect > frameAspect { cropW = cropH * frameAspect } else { cropH = cropW / frameAspect }
        let origin = SubjectCrop.origin(image, width: cropW, height: cropH)
        return (origin.x, origin.y, cropW, cropH)
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

    static func resample(_ image: RGBImage, from crop: (x: Double, y: Double, w: Double, h: Double),
                                 width: Int, height: Int) -> RGBImage {
        let columns = spans(start: crop.x, length: crop.w, sourceCount: image.width, outputCount: width)
        let rows = spans(start: crop.y, length: crop.h, sourceCount: image.height, outputCount: height)
        let firstRow = rows.first?.first ?? 0
        let lastRow = rows.last.map { $0.first + $0.weights.count - 1 } ?? 0
        // The spans flattened (first source pixel, where its weights start, how many), so
        // the passes below touch no array of arrays (a retain and release a pixel).
        func flat(_ spans: [(first: Int, weights: [Float])]) -> (first: [Int], start: [Int], count: [Int], weights: [Float]) {
            var result = (first: [Int](), start: [Int](), count: [Int](), weights: [Float]())
            for span in spans {
                result.first.append(span.first); result.start.append(result.weights.count); result.count.append(span.weights.count)
                result.weights += span.weights
            }
            return result
        }
        let across = flat(columns), down = flat(rows)
        // Horizontal pass over just the source rows the crop needs.
        var horizontal = [Float](repeating: 0, count: (lastRow - firstRow + 1) * width * 3)
        image.pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { horizontal in
                across.weights.withUnsafeBufferPointer { weights in
                    for sy in firstRow...lastRow {
                        let rowBase = sy * image.width * 3
                        var o = (sy - firstRow) * width * 3
                        for x in 0..<width {
                            var r: Float = 0, g: Float = 0, b: Float = 0
                            var i = rowBase + across.first[x] * 3
                            let start = across.start[x]
                            for k in start..<(start + across.count[x]) {
                                let w = weights[k]
                                r += Float(src[i]) * w; g += Float(src[i + 1]) * w; b += Float(src[i + 2]) * w
                                i += 3
                            }
                            horizontal[o] = r; horizontal[o + 1] = g; horizontal[o + 2] = b
                            o += 3
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        horizontal.withUnsafeBufferPointer { horizontal in
            out.withUnsafeMutableBufferPointer { out in
                down.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<height {
                        let start = down.start[y], count = down.count[y], top = (down.first[y] - firstRow) * width * 3
                        var o = y * width * 3
                        for x in 0..<width {
                            var r: Float = 0, g: Float = 0, b: Float = 0
                            var i = top + x * 3
                            for k in start..<(start + count) {
                                let w = weights[k]
                                r += horizontal[i] * w; g += horizontal[i + 1] * w; b += horizontal[i + 2] * w
                                i += width * 3
                            }
                            // Rounded half up (the sums are never negative; no call to the C library's roundf).
                            out[o] = UInt8(min(255, max(0, r + 0.5)))
                            out[o + 1] = UInt8(min(255, max(0, g + 0.5)))
                            out[o + 2] = UInt8(min(255, max(0, b + 0.5)))
                            o += 3
                        }
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}
