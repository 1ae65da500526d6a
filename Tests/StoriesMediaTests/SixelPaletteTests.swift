import StoriesCells
import Foundation
import Testing
@testable import StoriesMedia

/// Issue 48, point 4: a video's frames in sixel keep their palette while it still shows
/// them well, and the pictures come back as faithfully as with a palette made for each.
@Suite struct SixelPaletteTests {
    /// The demo's deep-field.mp4 (a slow zoom through stars) at 160×90: the palette is made
    /// again only now and then, each frame drawn back from its stream is within a level and a
    /// half of what a palette of its own gives (a level on average), and a new shot (a photo) gets a palette of its own.
    @Test func aVideosFramesKeepTheirPaletteAndComeBackAsWell() throws {
        let decoder = try VideoDecoder(data: VideoFixture.demo("deep-field.mp4"))
        var kept: SixelPalette?
        var made = 0, frames = 0
        var keptError = 0.0, ownError = 0.0
        while frames < 40, try decoder.decodeNext() != nil {
            let frame = try #require(decoder.picture(width: 160, height: 90, fit: .fill, pixelAspect: 1))
            let before = kept
            let stream = SixelEncoder.encode(frame, palette: &kept)
            let palette = try #require(kept)
            if palette.uses == 0 { made += 1 } else { #expect(palette.colours == before?.colours) }
            let kept = Self.error(frame, try SixelEncoderTests.decode(stream).image)
            let own = Self.error(frame, try SixelEncoderTests.decode(SixelEncoder.encode(frame)).image)
            #expect(kept <= own + 1.5, "frame \(frames): mean error a channel \(kept) kept, \(own) its own")
            keptError += kept
            ownError += own
            frames += 1
        }
        #expect(frames == 40)
        #expect(made >= 2 && made <= 10, "made \(made) palettes for \(frames) frames (at most \(SixelPalette.maxUses) uses each)")
        let perFrame = (kept: keptError / Double(frames), own: ownError / Double(frames))
        #expect(perFrame.kept <= perFrame.own + 1, "mean error a channel: \(perFrame.kept) kept, \(perFrame.own) each its own")

        // Another picture altogether: the kept palette would show it badly; a new one is made.
        let photo = ImageScaler.scale(try ImageDecoder.decode(try VideoFixture.data("subjects/astronaut.jpg")), width: 160, height: 90)
        _ = SixelEncoder.encode(photo, palette: &kept)
        #expect(kept?.uses == 0)
        #expect(Self.error(photo, try SixelEncoderTests.decode(SixelEncoder.encode(photo, palette: &kept)).image) < 6)
    }

    /// Bins a kept palette was not made with get their nearest colour: a frame with a colour
    /// the last had not is drawn in the nearest one, never in colour 0 by default.
    @Test func aColourNotMetBeforeGetsItsNearest() throws {
        var first = RGBImage(width: 60, height: 12, fill: RGBPixel(0, 0, 0))
        for x in 30..<60 { for y in 0..<12 { first[x, y] = RGBPixel(250, 250, 250) } }
        var kept: SixelPalette?
        _ = SixelEncoder.encode(first, palette: &kept)
        var second = first
        second[0, 0] = RGBPixel(235, 235, 235) // near white, in a bin the palette never met
        let back = try SixelEncoderTests.decode(SixelEncoder.encode(second, palette: &kept))
        #expect(kept?.uses == 1)
        #expect(back.image[0, 0].r > 200, "drawn in the nearest colour (white), not black")
    }

    /// Mean difference a channel between two pictures of one size.
    static func error(_ a: RGBImage, _ b: RGBImage) -> Double {
        var total = 0
        for i in a.pixels.indices { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(a.pixels.count)
    }
}
