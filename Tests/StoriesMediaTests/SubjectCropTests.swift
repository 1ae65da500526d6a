import StoriesCells
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 49, point 1: a fill that keeps the subject whole. Twenty-eight photos with their
/// subject boxes drawn by hand (`Fixtures/subjects/boxes.tsv`, in each photo's own pixels):
/// seven of scikit-image's sample photos and thirteen made from them by placing a subject
/// off-centre (issue 30's set), the demo feed's six photos with subjects as they ship, a
/// horse, and a whole fundus photograph; and the demo's retina made 1080×1920, as the
/// issue met it. Filled into six frame shapes (5:2 to 1:2, as a 120×30 terminal or a tall
/// one makes them), the crop keeps at least 90% of every box that fits in its window — but
/// for the few said in `knownMisses`, measured and kept in view.
@Suite struct SubjectCropTests {
    struct Marked: Sendable, CustomStringConvertible {
        var name: String
        var file: String
        var box: (x0: Double, y0: Double, x1: Double, y1: Double)
        var description: String { name }
    }

    static let shapes = [2.5, 2.0, 5.0 / 3, 1.0, 2.0 / 3, 0.5]

    /// The boxes as drawn, from the file kept beside the photos.
    static let photos: [Marked] = {
        guard let url = Bundle.module.url(forResource: "Fixtures/subjects/boxes", withExtension: "tsv"),
              let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 6, let x0 = Double(fields[2]), let y0 = Double(fields[3]), let x1 = Double(fields[4]),
                  let y1 = Double(fields[5]) else { return nil }
            return Marked(name: fields[0], file: fields[1], box: (x0, y0, x1, y1))
        }
    }()

    /// Where the crop keeps less than 90% of a box that fits, and why (docs/architecture.md):
    /// a grey coin on grey gravel (nothing stands out from the edges; centred, as the
    /// centre crop is); the cameraman in greyscale, whose head and camera are a part of a
    /// taller subject (no skin to find a face by); a page whose heading is text like the
    /// rest, in the widest shapes.
    static let knownMisses: Set<String> = [
        "coin-corner-square@2.50", "coin-corner-square@2.00", "coin-corner-square@1.67", "coin-corner-square@0.67",
        "coin-corner-square@0.50", "camera@2.50", "camera@2.00", "camera@0.50", "page@2.50", "page@1.67",
    ]

    static func image(_ photo: Marked) throws -> RGBImage {
        let data = photo.file.hasPrefix("demo:") ? try VideoFixture.demo(String(photo.file.dropFirst(5)))
            : try VideoFixture.data("subjects/\(photo.file)")
        return try ImageDecoder.decode(data)
    }

    /// The share of `box` inside `crop`.
    static func kept(_ box: (x0: Double, y0: Double, x1: Double, y1: Double), _ crop: (x: Double, y: Double, width: Double, height: Double)) -> Double {
        let w = max(0, min(box.x1, crop.x + crop.width) - max(box.x0, crop.x))
        let h = max(0, min(box.y1, crop.y + crop.height) - max(box.y0, crop.y))
        return w * h / ((box.x1 - box.x0) * (box.y1 - box.y0))
    }

    static func fits(_ box: (x0: Double, y0: Double, x1: Double, y1: Double), _ crop: (x: Double, y: Double, width: Double, height: Double)) -> Bool {
        box.x1 - box.x0 <= crop.width + 0.5 && box.y1 - box.y0 <= crop.height + 0.5
    }

    struct Tally {
        var cases = 0, kept = 0, centreKept = 0
        var share = 0.0, centreShare = 0.0
    }

    /// Every photo at every shape: each box that fits kept (but the known misses), and the
    /// whole set against the centre crop.
    @Test func theCropKeepsTheSubjectWhole() throws {
        try #require(Self.photos.count >= 28, "the boxes file is read: \(Self.photos.count)")
        var tally = Tally()
        var missed: [String] = []
        for photo in Self.photos {
            let image = try Self.image(photo)
            for aspect in Self.shapes {
                let crop = ImageScaler.fillCrop(image, frameAspect: aspect)
                guard Self.fits(photo.box, crop) else { continue }
                let centred = (x: (Double(image.width) - crop.width) / 2, y: (Double(image.height) - crop.height) / 2,
                               width: crop.width, height: crop.height)
                let share = Self.kept(photo.box, crop), centreShare = Self.kept(photo.box, centred)
                let label = "\(photo.name)@" + String(format: "%.2f", aspect)
                tally.cases += 1
                tally.share += share
                tally.centreShare += centreShare
                if share >= 0.9 { tally.kept += 1 } else { missed.append(label) }
                if centreShare >= 0.9 { tally.centreKept += 1 }
                if !Self.knownMisses.contains(label) {
                    #expect(share >= 0.9, "\(label): \(Int(share * 100))% of the subject kept (the centre crop: \(Int(centreShare * 100))%), \(crop)")
                }
            }
        }
        let stale = Self.knownMisses.subtracting(missed)
        #expect(stale.isEmpty, "kept now, no longer misses: \(stale.sorted())")
        // The set as a whole, against the centre crop (the figures docs/architecture.md gives).
        #expect(tally.cases == 134)
        #expect(tally.kept >= 124 && tally.centreKept == 59, "\(tally.kept) of \(tally.cases) kept; the centre crop \(tally.centreKept)")
        #expect(tally.share / Double(tally.cases) >= 0.95, "mean kept \(tally.share / Double(tally.cases))")
    }

    /// The issue's retina: a 1080×1920 fundus photograph at 120×30 cells (a 2:1 window)
    /// keeps the macula, the dark centre, not the black band below the fundus.
    @Test func aTallRetinaKeepsItsMacula() throws {
        let photo = try #require(Self.photos.first { $0.name == "demo-retina" })
        let small = try Self.image(photo)
        let image = ImageScaler.scale(small, width: 1080, height: 1920)
        let s = 1080 / Double(small.width)
        let box = (x0: photo.box.x0 * s, y0: photo.box.y0 * s, x1: photo.box.x1 * s, y1: photo.box.y1 * s)
        let crop = ImageScaler.fillCrop(image, frameAspect: 120.0 / 60)
        #expect(Self.kept(box, crop) >= 0.9, "\(crop): the macula at \(box)")
        #expect(crop.y + crop.height < 1500, "not the bottom band: \(crop)")
    }

    /// Nothing to find: a flat picture, a picture of noise and the demo's textures (gravel,
    /// grass, brick) are cropped about their middle.
    @Test func withNothingToFindTheCropIsTheMiddle() throws {
        let flat = RGBImage(width: 300, height: 100, fill: RGBPixel(90, 120, 150))
        let crop = ImageScaler.fillCrop(flat, frameAspect: 1)
        #expect(abs(crop.x - 100) < 2, "\(crop)")
        var noise = RGBImage(width: 100, height: 300)
        var seed: UInt32 = 7
        for i in noise.pixels.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise.pixels[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let tall = ImageScaler.fillCrop(noise, frameAspect: 1)
        #expect(abs(tall.y - 100) < 2, "noise: the middle (\(tall))")
        for name in ["gravel.jpg", "grass.jpg", "brick.jpg"] {
            let texture = try ImageDecoder.decode(try VideoFixture.demo(name))
            let wide = ImageScaler.fillCrop(texture, frameAspect: 2)
            #expect(abs(wide.y - (Double(texture.height) - wide.height) / 2) < 2, "\(name): texture all over is no subject (\(wide))")
        }
    }
}
