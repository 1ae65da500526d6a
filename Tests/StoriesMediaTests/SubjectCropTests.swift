import StoriesCells
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 30, point 3: a fill that keeps the subject. Twenty photos, each with its subject's
/// box marked (in the photo's own pixels): seven of scikit-image's sample photos, boxes
/// marked by hand on a grid; thirteen made for this test by placing a subject cut from them
/// off-centre on a background (blurred or sharp textures, gradients, a star field), boxed
/// where it was placed (Fixtures/subjects/README.md says how each was made). Filled into
/// 100×30 and 40×30 cells (a 5:3 and a 2:3 frame), the crop keeps at least 90% of the box,
/// and never less than a plain centre crop does.
@Suite struct SubjectCropTests {
    struct Marked: Sendable, CustomStringConvertible {
        var name: String
        var box: (x0: Double, y0: Double, x1: Double, y1: Double)
        var description: String { name }
    }

    static let photos: [Marked] = [
        // By hand: the face, the head and camera, the cat's eyes and nose, the cup, the
        // rocket, the blurred clock, the page's heading and first words.
        Marked(name: "astronaut", box: (100, 12, 190, 105)),
        Marked(name: "camera", box: (125, 40, 205, 120)),
        Marked(name: "chelsea", box: (115, 70, 235, 185)),
        Marked(name: "coffee", box: (90, 8, 222, 140)),
        Marked(name: "rocket", box: (148, 60, 178, 205)),
        Marked(name: "clock_motion", box: (115, 55, 205, 165)),
        Marked(name: "page", box: (5, 5, 100, 50)),
        // Made: where the subject was placed.
        Marked(name: "face-left-wide", box: (30, 60, 120, 155)),
        Marked(name: "cat-right-wide", box: (350, 80, 460, 184)),
        Marked(name: "cup-top-tall", box: (55, 20, 165, 130)),
        Marked(name: "rocket-bottom-tall", box: (130, 315, 165, 425)),
        Marked(name: "clock-left-wide", box: (20, 50, 100, 146)),
        Marked(name: "cameraman-right-wide", box: (370, 40, 465, 130)),
        Marked(name: "coin-corner-square", box: (280, 20, 342, 78)),
        Marked(name: "logo-lowleft-wide", box: (20, 120, 110, 210)),
        Marked(name: "heading-top-tall", box: (12, 14, 122, 30)),
        Marked(name: "face-top-tall", box: (65, 15, 155, 110)),
        Marked(name: "cat-bottom-tall", box: (50, 320, 160, 424)),
        Marked(name: "cup-right-wide", box: (360, 50, 460, 150)),
        Marked(name: "rocket-left-wide", box: (40, 60, 75, 170)),
    ]

    /// The one photo the method does not find its subject in: a grey coin on sharp grey
    /// gravel (no colour stands out, and the gravel is as busy as the coin). Kept, and held
    /// to the centre crop's share; said in docs/architecture.md.
    static let knownMiss: Set<String> = ["coin-corner-square"]

    /// The share of `box` inside `crop`.
    static func kept(_ box: Marked, _ crop: (x: Double, y: Double, width: Double, height: Double)) -> Double {
        let b = box.box
        let w = max(0, min(b.x1, crop.x + crop.width) - max(b.x0, crop.x))
        let h = max(0, min(b.y1, crop.y + crop.height) - max(b.y0, crop.y))
        return w * h / ((b.x1 - b.x0) * (b.y1 - b.y0))
    }

    @Test(arguments: photos)
    func theCropKeepsTheSubject(_ photo: Marked) throws {
        let image = try ImageDecoder.decode(try VideoFixture.data("subjects/\(photo.name).jpg"))
        for (columns, rows) in [(100, 30), (40, 30)] {
            let aspect = Double(columns) / Double(rows * 2) // cells twice as tall as wide
            let crop = ImageScaler.fillCrop(image, frameAspect: aspect)
            let centred = (x: (Double(image.width) - crop.width) / 2, y: (Double(image.height) - crop.height) / 2,
                           width: crop.width, height: crop.height)
            let share = Self.kept(photo, crop), centreShare = Self.kept(photo, centred)
            #expect(share >= centreShare - 0.02, "\(photo.name) at \(columns)×\(rows): \(share) kept, the centre crop keeps \(centreShare)")
            if !Self.knownMiss.contains(photo.name) {
                #expect(share >= 0.9, "\(photo.name) at \(columns)×\(rows): only \(Int(share * 100))% of the subject kept")
            }
        }
    }

    /// Nothing to find: a flat picture and a picture of noise are cropped about their middle.
    @Test func withNothingToFindTheCropIsNearTheMiddle() {
        let flat = RGBImage(width: 300, height: 100, fill: RGBPixel(90, 120, 150))
        let crop = ImageScaler.fillCrop(flat, frameAspect: 1)
        #expect(abs(crop.x - 100) < 10, "\(crop)")
        var noise = RGBImage(width: 100, height: 300)
        var seed: UInt32 = 7
        for i in noise.pixels.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise.pixels[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let tall = ImageScaler.fillCrop(noise, frameAspect: 1)
        #expect(tall.y > 30 && tall.y < 170, "noise: about the middle, a little above it (\(tall))")
    }
}
