import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing

/// Issue 31, point 2: where the screen asks for real pixels. A photo at rest is its picture
/// in pixels between the author band and the caption (those rows stay cells, with text on
/// them); during a motion, under an overlay and on a terminal without pixels, its cells.
@MainActor
@Suite struct RealPixelsTests {
    static let cell = CellPixels(width: 8, height: 16)
    static func sixel() -> Display { Display(colorDepth: .direct, graphics: .sixel, cellPixels: cell) }

    static func openFirstPhoto(_ display: Display, motion: Bool = false) -> AppDriver {
        let driver = AppDriver(width: 80, height: 24, motion: motion)
        driver.engine.setDisplay(display)
        driver.settle()
        driver.press(.key(.enter))
        driver.finishWork()
        return driver
    }

    @Test func aPhotoAtRestIsItsPictureInPixelsBetweenItsBands() throws {
        let driver = Self.openFirstPhoto(Self.sixel())
        let region = try #require(driver.pictures.first, "the photo in pixels")
        #expect(driver.pictures.count == 1)
        // The photo fills rows 1…22; row 1 is the author band, and the caption's one line
        // (row 22) lies on its own darkened band.
        let captionRow = try #require(driver.lines.lastIndex { $0.contains("Training day") })
        #expect(region.rect == Rect(x: 0, y: 2, width: 80, height: captionRow - 2))
        #expect(region.sourceRow == 1, "the picture's second cell row, under the author band")
        // The picture is exactly the photo's cells at the cell's pixel size, fitted as its cells are.
        let size = ScreenLayout.photoSize(width: 80, height: 24)
        #expect(region.picture.image.width == size.width * 8 && region.picture.image.height == size.height * 16)
        #expect(region.picture.cellWidth == 8 && region.picture.cellHeight == 16)
        // The cells beneath are the same photo's cells (what ncurses holds): the screen reads
        // as it does on a terminal without pixels.
        let cellsOnly = Self.openFirstPhoto(Display(colorDepth: .direct))
        #expect(cellsOnly.pictures.isEmpty)
        #expect(driver.canvas.cells == cellsOnly.canvas.cells)
    }

    @Test func withoutTheCellsPixelSizeOrWithCellsThereAreNone() {
        #expect(Self.openFirstPhoto(Display(colorDepth: .direct, graphics: .sixel)).pictures.isEmpty)
        #expect(Self.openFirstPhoto(Display(colorDepth: .direct, graphics: .cells, cellPixels: Self.cell)).pictures.isEmpty)
        for kind in [GraphicsProtocol.kitty, .iterm] {
            #expect(Self.openFirstPhoto(Display(colorDepth: .direct, graphics: kind, cellPixels: Self.cell)).pictures.count == 1)
        }
    }

    @Test func overlaysAndMotionsShowCellsAndPixelsComeBackAtRest() {
        let driver = Self.openFirstPhoto(Self.sixel(), motion: true)
        driver.wait(1)
        #expect(driver.pictures.count == 1)
        for key in ["?", "g", "i"] {
            driver.press(.key(.character(Character(key))))
            #expect(driver.pictures.isEmpty, "under \(key)'s overlay: cells")
            driver.press(.key(key == "?" ? .escape : .character(Character(key))))
            #expect(driver.pictures.count == 1, "\(key) closed: pixels again")
        }
        // The next story swings in on the cube: cells on every frame of it.
        driver.press(.key(.character("]")))
        var frames = 0
        while driver.state.viewing.transition != nil, frames < 200 {
            #expect(driver.pictures.isEmpty, "frame \(frames) of the cube")
            driver.frame(after: 1.0 / 60)
            frames += 1
        }
        #expect(frames > 3)
        driver.finishWork()
        #expect(driver.pictures.count == 1, "at rest on the next story's photo")
        // Dismissed: the row has no pixels.
        driver.press(.key(.escape))
        driver.finishWork()
        driver.wait(1)
        #expect(driver.state.viewer == nil && driver.pictures.isEmpty)
    }

    @Test func theRenditionKeyCarriesTheCellsPixelSize() {
        let media = Media(location: "media/astronaut.jpg")
        let pixels = RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: Self.sixel(), fit: true)
        let cells = RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24,
                                              display: Display(colorDepth: .direct, cellPixels: Self.cell), fit: true)
        #expect(pixels.pixels == Self.cell && cells.pixels == nil && pixels != cells)
        #expect(pixels.placeholder("LKO2?U%2Tw=w").pixels == nil, "a BlurHash stand-in is cells")
        // A screen larger than 4K in pixels: cells (a 400×120 terminal of 64×128-pixel cells
        // would be 25 600×15 360 pixels).
        let huge = Display(colorDepth: .direct, graphics: .kitty, cellPixels: CellPixels(width: 64, height: 128))
        #expect(RenditionKey.viewer(for: media, screenWidth: 400, screenHeight: 120, display: huge, fit: true).pixels == nil)
        #expect(RenditionKey.viewer(for: media, screenWidth: 30, screenHeight: 12, display: huge, fit: true).pixels != nil)
        // A terminal whose largest picture is smaller than the photo's: cells.
        var limited = Self.sixel()
        limited.largestPicture = PixelArea(width: 600, height: 1000)
        #expect(RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: limited, fit: true).pixels == nil)
        limited.largestPicture = PixelArea(width: 1000, height: 1000)
        #expect(RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: limited, fit: true).pixels == Self.cell)
        // Video frames the terminal fell behind on are cells; its photos stay pixels.
        var behind = Self.sixel()
        behind.movingPixels = false
        #expect(RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: behind, fit: true, moving: true).pixels == nil)
        #expect(RenditionKey.viewer(for: media, screenWidth: 80, screenHeight: 24, display: behind, fit: true).pixels == Self.cell)
    }
}
