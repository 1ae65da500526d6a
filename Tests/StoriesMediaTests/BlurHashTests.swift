import StoriesCells
@testable import StoriesFeedIO
import Foundation
import StoriesAssets
import StoriesCore
import Testing
@testable import StoriesMedia

@Suite struct BlurHashTests {
    @Test func aUniformPictureComesBackUniform() throws {
        // The reference sampling, cos(π·i·x/w) for x in 0..<w, leaks about 2/w of the colour
        // into the first components; at 256 pixels that is under a percent.
        let flat = RGBImage(width: 256, height: 256, fill: RGBPixel(200, 120, 40))
        let hash = BlurHash.encode(flat, componentsX: 3, componentsY: 4)
        #expect(hash.count == 4 + 2 * 3 * 4)
        let back = try BlurHash.decode(hash, width: 8, height: 8)
        for y in 0..<8 { for x in 0..<8 { #expect(close(back[x, y], RGBPixel(200, 120, 40), within: 3)) } }
    }

    @Test func roughShapesSurvive() throws {
        var image = RGBImage(width: 32, height: 32)
        for y in 0..<32 { for x in 0..<32 { image[x, y] = x < 16 ? RGBPixel(230, 30, 30) : RGBPixel(30, 30, 230) } }
        let blur = try BlurHash.decode(BlurHash.encode(image, componentsX: 4, componentsY: 3), width: 32, height: 32)
        #expect(blur[2, 16].r > 150 && blur[2, 16].b < 110, "left stays red: \(blur[2, 16])")
        #expect(blur[29, 16].b > 150 && blur[29, 16].r < 110, "right stays blue: \(blur[29, 16])")
    }

    @Test func thePublishedExampleDecodes() throws {
        // The example hash from the BlurHash project's README: 4×3 components.
        let hash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
        let image = try BlurHash.decode(hash, width: 32, height: 24)
        #expect(image.width == 32 && image.height == 24)
        #expect(try BlurHash.value(Array(hash)[0..<1]) == 3 + 2 * 9, "size flag: 4 across, 3 down")
    }

    @Test func badHashesAreTypedErrors() {
        #expect(throws: BlurHash.DecodeError.tooShort(3)) { try BlurHash.decode("LEH", width: 4, height: 4) }
        #expect(throws: BlurHash.DecodeError.invalidCharacter("\"")) { try BlurHash.decode("LEHV6\"WB2yk8pyo0adR*.7kCMdnj", width: 4, height: 4) }
        #expect(throws: BlurHash.DecodeError.wrongLength(expected: 28, found: 27)) { try BlurHash.decode("LEHV6nWB2yk8pyo0adR*.7kCMdn", width: 4, height: 4) }
    }

    @Test func everyDemoPhotoCarriesAHashThatDecodes() throws {
        let directory = try #require(DemoFeed.directory)
        let load = try FeedFolder(directory: directory).loadAll()
        var checked = 0
        for story in load.stories {
            for item in story.items {
                guard case .image(let media) = item.content else { continue }
                let hash = try #require(media.blurhash, "\(story.id)/\(item.id) has no blurhash")
                let blur = try BlurHash.decode(hash, width: 9, height: 16)
                // The blur's average is close to the photo's.
                let photo = try ImageDecoder.decodeFile(at: directory.appendingPathComponent(media.location))
                let a = ImageScaler.scale(blur, width: 1, height: 1)[0, 0], b = ImageScaler.scale(photo, width: 1, height: 1)[0, 0]
                #expect(close(a, b, within: 40), "\(media.location): blur \(a), photo \(b)")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}

@Suite struct SyntheticFeedBlurHashTests {
    @Test func everySyntheticBlurHashDecodes() throws {
        for story in SyntheticFeed(count: 200).loadAll().stories {
            for item in story.items {
                if case .image(let media) = item.content, let hash = media.blurhash {
                    _ = try BlurHash.decode(hash, width: 4, height: 4)
                }
            }
        }
    }
}

/// The hash a photo folder works out for any photo it finds, whatever its shape.
@Suite struct BlurHashOfMediaTests {
    @Test func aPhotoOfAnyShapeGivesAHashWithoutAHugeCanvas() throws {
        // A strip 1 pixel wide and 200 000 high (a few KB of PNG): once asked for a
        // 96×19 200 000 canvas; now scaled within 1:4.
        let strip = try #require(ImageEncoder.png(RGBImage(width: 1, height: 200_000, fill: RGBPixel(200, 40, 40))))
        let tall = try BlurHash.ofMedia(strip)
        #expect(tall.count == 2 * (3 * 4 - 1) + 6, "3×4 components for a tall picture")
        let band = try #require(ImageEncoder.png(RGBImage(width: 20_000, height: 1, fill: RGBPixel(40, 200, 40))))
        #expect(try BlurHash.ofMedia(band).count == 2 * (4 * 3 - 1) + 6)
        let decoded = try BlurHash.decode(tall, width: 4, height: 4, punch: 1)
        #expect(decoded[2, 2].r > 150, "still the strip's red")
    }

    @Test func aFileIsReadTheSafeWayOrSaysWhyNot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blurhash-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("zero.jpg").path, withDestinationPath: "/dev/zero")
        for name in ["pipe.jpg", "zero.jpg", "missing.jpg"] {
            #expect(throws: MediaError.self, "\(name)") { try BlurHash.ofFile(folder.appendingPathComponent(name).path) }
        }
    }
}
