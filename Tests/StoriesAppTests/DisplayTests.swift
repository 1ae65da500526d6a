import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesMedia
import StoriesUI
import Testing

/// Issue 28, point 2: the terminal's colours and cell shape come in as actions, are
/// recorded, and are part of every rendition key — a rendition made for other cells is
/// never served as a hit.
@MainActor
@Suite struct DisplayTests {
    static let astronaut = Media(location: "media/astronaut.jpg")

    @Test func aRenditionForOtherCellsIsNotAHit() {
        let tall = RenditionKey.viewer(for: Self.astronaut, screenWidth: 80, screenHeight: 24,
                                             display: Display(cellAspect: 0.5), fit: true)
        let square = RenditionKey.viewer(for: Self.astronaut, screenWidth: 80, screenHeight: 24,
                                               display: Display(cellAspect: 1.0), fit: true)
        #expect(tall != square)
        let cache = RenditionCache(budget: 1 << 26)
        cache.insert(CellImage(RGBImage(width: 2, height: 2, fill: RGBPixel(1, 2, 3)), width: 80, height: 22,
                               depth: .palette256, fit: .fit, cellAspect: 0.5), for: tall)
        if case .ready = cache.state(peek: square) { Issue.record("cells made for 1:2 cells served for square ones") }
    }

    @Test func aNewCellShapeIsAnActionAndEveryPictureIsMadeAgainForIt() throws {
        let driver = AppDriver(width: 80, height: 24)
        driver.press(.key(.enter))
        driver.finishWork()
        #expect(driver.state.media.status[Self.astronaut.location] == .ready)
        let before = driver.engine.reductions
        driver.engine.setDisplay(Display(colorDepth: .palette256, cellAspect: 1.0))
        driver.settle()
        #expect(driver.engine.reductions > before, "reduced like any other news")
        #expect(driver.state.display.cellAspect == 1.0)
        #expect(driver.state.media.preloadRequest?.display.cellAspect == 1.0, "the preload set is made for the new cells")
        driver.finishWork()
        let key = RenditionKey.viewer(for: Self.astronaut, screenWidth: 80, screenHeight: 24,
                                            display: driver.state.display, fit: driver.state.media.photosFit)
        guard case .ready(let cells) = driver.services.pictures.cache.state(peek: key) else {
            Issue.record("no rendition for the new cells")
            return
        }
        #expect(cells.width == key.width)
        // Out of range from outside (a terminal's pixel size, a recording): held to the range.
        driver.engine.setDisplay(Display(colorDepth: .palette256, cellAspect: .infinity))
        #expect(driver.state.display.cellAspect == Display.standardCellAspect)
        driver.engine.setDisplay(Display(colorDepth: .palette256, cellAspect: 50))
        #expect(driver.state.display.cellAspect == Display.cellAspectRange.upperBound)
    }

    /// A live session's cell-shape change goes into its recording, and the recording,
    /// replayed headless, gives the display back.
    @Test func aLiveCellShapeChangeIsWrittenToTheRecording() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cell-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let driver = AppDriver(width: 80, height: 24)
        driver.engine.record(to: try LineFile.open(path, append: false))
        driver.engine.setDisplay(Display(colorDepth: .palette256, cellAspect: 0.45))
        driver.engine.setDisplay(Display(colorDepth: .palette256, cellAspect: 0.45)) // the same again: nothing new
        driver.engine.endRecording()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let recording = try InputRecording.parse(text, file: path)
        #expect(recording.entries.filter { $0.entry == .cellAspect(0.45) }.count == 1, "\(text)")
    }

    @Test func aCellShapeChangeIsRecordedAndReplayed() throws {
        let line = InputRecording.line(.cellAspect(0.45), at: 2)
        #expect(line == #"{"cell":0.45,"t":2}"#)
        let text = InputRecording(width: 80, height: 24, started: 1_795_240_800).headerLine + "\n" + line + "\n"
        let recording = try InputRecording.parse(text, file: "r.jsonl")
        #expect(recording.entries.count == 1 && recording.entries[0].entry == .cellAspect(0.45))
        let driver = AppDriver(width: 80, height: 24)
        RecordingFeeder.feed(.cellAspect(0.45), to: driver.engine, screen: .recorded)
        #expect(driver.state.display.cellAspect == 0.45)
        RecordingFeeder.feed(.cellAspect(0.9), to: driver.engine, screen: .terminal)
        #expect(driver.state.display.cellAspect == 0.45, "a terminal keeps its own cells")
    }
}
