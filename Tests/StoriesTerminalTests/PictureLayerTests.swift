import Foundation
import StoriesCells
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing
@testable import StoriesTerminal
import StoriesTestSupport

/// Issue 31, point 2: the picture layer beside ncurses — what it writes for each protocol,
/// when it writes it again, and that it gives every rectangle back.
@MainActor
@Suite struct PictureLayerTests {
    /// A 4×3-cell picture of 5×10-pixel cells: each cell row a colour of its own.
    static func picture() -> PixelPicture {
        var image = RGBImage(width: 20, height: 30)
        for y in 0..<30 {
            for x in 0..<20 { image[x, y] = RGBPixel(UInt8(y / 10 * 100), UInt8(x * 10), 50) }
        }
        return PixelPicture(image: image, cellWidth: 5, cellHeight: 10)
    }

    static func region(_ picture: PixelPicture, y: Int = 2, rows: Int = 2, sourceRow: Int = 1) -> Canvas.PictureRegion {
        Canvas.PictureRegion(rect: Rect(x: 3, y: y, width: 4, height: rows), picture: picture, sourceRow: sourceRow)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The kitty commands in `bytes`: each one's keys, and its payload.
    static func kittyCommands(_ bytes: [UInt8]) -> [(keys: [String: String], payload: String)] {
        text(bytes).components(separatedBy: "\u{1B}_G").dropFirst().map { command in
            let body = command.components(separatedBy: "\u{1B}\\")[0]
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            var keys: [String: String] = [:]
            for pair in parts[0].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
            }
            return (keys, parts.count > 1 ? String(parts[1]) : "")
        }
    }

    @Test func kittySendsEachPictureOncePlacesItsRowsAndDeletesWhatGoes() throws {
        let layer = PictureLayer(graphics: .kitty)
        let picture = Self.picture()
        let region = Self.region(picture)
        #expect(layer.prepare(next: [region], height: 10).output.isEmpty)
        let first = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
        let commands = Self.kittyCommands(first)
        let transmit = commands.filter { $0.keys["a"] == "t" }
        #expect(transmit.count == 1 && transmit[0].keys["f"] == "100" && transmit[0].keys["q"] == "2")
        // The payload is the picture, whole, as PNG.
        let png = try #require(Data(base64Encoded: commands.filter { $0.keys["a"] == "t" || $0.keys["m"] != nil && $0.keys["a"] == nil }
            .map(\.payload).joined()))
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded.pixels == picture.image.pixels)
        // Placed at the region, its rows only: cell row 1 and 2 of the picture (pixels 10..<30).
        let place = try #require(commands.first { $0.keys["a"] == "p" })
        #expect(place.keys["y"] == "10" && place.keys["h"] == "20" && place.keys["w"] == "20")
        #expect(place.keys["c"] == "4" && place.keys["r"] == "2" && place.keys["C"] == "1" && place.keys["q"] == "2")
        #expect(Self.text(first).contains("\u{1B}[3;4H\u{1B}_Ga=p"), "placed at the region's top left")
        #expect(Self.text(first).hasPrefix("\u{1B}7") && Self.text(first).hasSuffix("\u{1B}8"), "ncurses' cursor kept")
        // The same frame again: nothing. A full redraw cleared the screen (ED 2), which frees
        // kitty's pictures: sent again and placed.
        #expect(layer.finish(next: [region], redrawnRows: [2, 3], full: false, width: 20, height: 10).isEmpty)
        let again = Self.kittyCommands(layer.finish(next: [region], redrawnRows: [], full: true, width: 20, height: 10))
        #expect(again.map { $0.keys["a"] } == ["t", "p"])
        // It goes: its placement is deleted (the picture kept, for coming back).
        let gone = layer.prepare(next: [], height: 10)
        #expect(gone.rows.isEmpty)
        #expect(Self.kittyCommands(gone.output).map { $0.keys["d"] } == ["i"])
        _ = layer.finish(next: [], redrawnRows: [], full: false, width: 20, height: 10)
        // Coming back: placed, not sent again.
        let back = Self.kittyCommands(layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10))
        #expect(back.map { $0.keys["a"] } == ["p"])
        // Quitting (or Ctrl-Z) forgets it: the terminal's copy is deleted.
        #expect(Self.kittyCommands(layer.clear()).map { $0.keys["d"] } == ["I"])
        #expect(layer.sentIDs.isEmpty)
    }

    @Test func kittyKeepsAFewPicturesAndDeletesTheOldest() {
        let layer = PictureLayer(graphics: .kitty)
        var ids: [UInt32] = []
        var deleted: [String] = []
        for _ in 0..<(PictureLayer.kittyPictures + 3) {
            let region = Self.region(Self.picture())
            deleted += Self.kittyCommands(layer.prepare(next: [region], height: 10).output).compactMap { $0.keys["d"] == "I" ? $0.keys["i"] : nil }
            let out = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
            deleted += Self.kittyCommands(out).compactMap { $0.keys["d"] == "I" ? $0.keys["i"] : nil }
            ids += Self.kittyCommands(out).compactMap { $0.keys["a"] == "t" ? $0.keys["i"].flatMap { UInt32($0) } : nil }
        }
        #expect(Set(ids).count == PictureLayer.kittyPictures + 3, "each picture its own id")
        #expect(layer.sentIDs.count == PictureLayer.kittyPictures)
        #expect(deleted == ids.prefix(3).map(String.init), "the oldest deleted, in order")
        #expect(layer.sentIDs.last == ids.last, "the one on screen is kept")
    }

    @Test func sixelGivesRowsBackAndWritesAgainWhenItsCellsWereWritten() throws {
        let layer = PictureLayer(graphics: .sixel)
        let picture = Self.picture()
        let region = Self.region(picture)
        let first = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
        let text = Self.text(first)
        #expect(text.contains("\u{1B}[3;4H\u{1B}P"), "at the region's top left")
        // The stream is the picture's rows 10..<30 (its cell rows 1 and 2).
        let start = try #require(first.firstRange(of: Array("\u{1B}P".utf8)))
        let end = try #require(first.lastRange(of: Array("\u{1B}\\".utf8)))
        let stream = Array(first[start.lowerBound..<end.upperBound])
        #expect(stream == SixelEncoder.encode(picture.image.rows(10..<30)))
        // Untouched: nothing. Its cells written over (a row of it redrawn): the stream again.
        #expect(layer.finish(next: [region], redrawnRows: [0, 9], full: false, width: 20, height: 10).isEmpty)
        #expect(layer.finish(next: [region], redrawnRows: [3], full: false, width: 20, height: 10) == first)
        #expect(layer.finish(next: [region], redrawnRows: [], full: true, width: 20, height: 10) == first)
        // It goes: its rows are given back for ncurses to write every cell of them again.
        let gone = layer.prepare(next: [], height: 10)
        #expect(gone.rows == [2..<4] && gone.output.isEmpty)
        // Moved: the old rows back, the new place written.
        _ = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
        let moved = Self.region(picture, y: 5, rows: 2, sourceRow: 0)
        #expect(layer.prepare(next: [moved], height: 10).rows == [2..<4])
        #expect(Self.text(layer.finish(next: [moved], redrawnRows: [], full: false, width: 20, height: 10)).contains("\u{1B}[6;4H\u{1B}P"))
        // A region off the screen (a stale frame after a resize) is not written.
        #expect(layer.finish(next: [Self.region(picture, y: 9, rows: 2)], redrawnRows: [], full: false, width: 20, height: 10).isEmpty)
    }

    @Test func itermWritesThePictureAsAPNGOverItsCells() throws {
        let layer = PictureLayer(graphics: .iterm)
        let picture = Self.picture()
        let out = Self.text(layer.finish(next: [Self.region(picture)], redrawnRows: [], full: false, width: 20, height: 10))
        let body = try #require(out.components(separatedBy: "\u{1B}]1337;File=").last?.components(separatedBy: "\u{07}").first)
        let parts = body.split(separator: ":", maxSplits: 1)
        let keys = parts[0].split(separator: ";")
        #expect(keys.contains("inline=1") && keys.contains("width=4") && keys.contains("height=2") && keys.contains("preserveAspectRatio=0"))
        let png = try #require(Data(base64Encoded: String(parts[1])))
        #expect(keys.contains("size=\(png.count)"))
        #expect(try ImageDecoder.decode(png).pixels == picture.image.rows(10..<30).pixels, "decoded back, the picture's rows")
    }

    @Test func aVideosNextFrameReplacesTheLastWithoutGivingItsRowsBack() throws {
        for graphics in [GraphicsProtocol.sixel, .kitty, .iterm] {
            let layer = PictureLayer(graphics: graphics)
            let first = Canvas.PictureRegion(rect: Rect(x: 3, y: 2, width: 4, height: 2), picture: Self.picture(), sourceRow: 1, source: "v.mp4")
            _ = layer.finish(next: [first], redrawnRows: [], full: false, width: 20, height: 10)
            var next = first
            next.picture = Self.picture()
            #expect(layer.replaces(next), "\(graphics): at the same place")
            let before = layer.prepare(next: [next], height: 10)
            #expect(before.rows.isEmpty && before.output.isEmpty, "\(graphics): nothing given back, nothing deleted first")
            let written = layer.finish(next: [next], redrawnRows: [], full: false, width: 20, height: 10)
            #expect(!written.isEmpty, "\(graphics): the new frame written")
            if graphics == .kitty {
                // The new frame placed, then the last one's placement taken off: never a gap.
                let actions = Self.kittyCommands(written).map { "\($0.keys["a"] ?? "")\($0.keys["d"] ?? "")" }
                #expect(actions.first == "t" && actions.suffix(2) == ["p", "di"], "\(actions)")
            }
        }
    }

    /// Not `.timed`: the layer is the main actor's, and a test that holds every real-time
    /// place while it waits for the main actor held them 66 s in a suite run; a window of
    /// frames at once is tried up to five times instead (one fast window is the claim).
    @Test func framesThatCostMoreThanAFrameSayTheTerminalCannotKeepUp() {
        let layer = PictureLayer(graphics: .sixel)
        var region = Canvas.PictureRegion(rect: Rect(x: 0, y: 0, width: 4, height: 3), picture: Self.picture(), sourceRow: 0, source: "v.mp4")
        _ = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
        // Frames that reach the terminal at once: it keeps up. (A frame's cost includes its
        // encoding, on the real clock: on a machine busy with other suites a whole window of
        // them can be slow, so a few windows are tried — one fast window is the claim.)
        var keptUp = false
        for _ in 0..<5 where !keptUp {
            for _ in 0..<PictureLayer.costsKept {
                region.picture = Self.picture()
                _ = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
                layer.addWriteTime(0.001)
            }
            keptUp = layer.keepsUp
        }
        #expect(keptUp)
        // Writes that block for a tenth of a second each (a terminal slow to read them).
        for _ in 0..<PictureLayer.costsKept {
            region.picture = Self.picture()
            _ = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
            layer.addWriteTime(0.1)
        }
        #expect(!layer.keepsUp)
        // Another item's pictures are not frames of a video: never measured as such.
        let stills = PictureLayer(graphics: .sixel)
        for n in 0..<(PictureLayer.costsKept * 2) {
            let photo = Canvas.PictureRegion(rect: region.rect, picture: Self.picture(), sourceRow: 0, source: "photo\(n).jpg")
            _ = stills.finish(next: [photo], redrawnRows: [], full: false, width: 20, height: 10)
            stills.addWriteTime(0.5)
        }
        #expect(stills.keepsUp)
        // A still written after a video: its write is not the video's last frame's cost.
        let mixed = PictureLayer(graphics: .sixel)
        for _ in 0..<PictureLayer.costsKept {
            region.picture = Self.picture()
            _ = mixed.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
            mixed.addWriteTime(0.001)
        }
        for n in 0..<PictureLayer.costsKept {
            let photo = Canvas.PictureRegion(rect: region.rect, picture: Self.picture(), sourceRow: 0, source: "photo\(n).jpg")
            _ = mixed.finish(next: [photo], redrawnRows: [], full: false, width: 20, height: 10)
            mixed.addWriteTime(0.5)
        }
        #expect(mixed.keepsUp)
    }

    /// kitty ≥ 0.28 and Ghostty: the picture sent with a virtual placement over all its
    /// cells, then the region's cells written as placeholders — each names its row and
    /// column by a mark and the picture by its colour — and given back like sixel's.
    @Test func kittyPlaceholdersAreCellsThatNameThePicture() throws {
        let layer = PictureLayer(graphics: .kitty, placeholders: true)
        let picture = Self.picture()
        let region = Self.region(picture)
        let out = layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10)
        let commands = Self.kittyCommands(out)
        let transmit = try #require(commands.first { $0.keys["a"] == "t" })
        let virtual = try #require(commands.first { $0.keys["a"] == "p" })
        #expect(virtual.keys["U"] == "1" && virtual.keys["i"] == transmit.keys["i"] && virtual.keys["c"] == "4" && virtual.keys["r"] == "3",
                "one virtual placement over the whole picture: \(virtual.keys)")
        let id = try #require(transmit.keys["i"].flatMap { Int($0) })
        // Each of the region's two rows at its place, in the picture's colour, its cells
        // numbered: rows 1 and 2 of the picture (the region starts at its second row).
        let text = Self.text(out)
        for (offset, row) in [1, 2].enumerated() {
            let start = "\u{1B}[\(3 + offset);4H\u{1B}[38;2;\((id >> 16) & 255);\((id >> 8) & 255);\(id & 255)m"
            let range = try #require(text.range(of: start), "row \(row) at its place")
            let cells = Array(text[range.upperBound...].unicodeScalars.prefix(12))
            for column in 0..<4 {
                #expect(cells[3 * column] == KittyPlaceholders.character)
                #expect(KittyPlaceholders.marks.firstIndex(of: cells[3 * column + 1].value) == row)
                #expect(KittyPlaceholders.marks.firstIndex(of: cells[3 * column + 2].value) == column)
            }
        }
        // The same frame: nothing; it goes: its rows given back (placeholders are text).
        #expect(layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10).isEmpty)
        let gone = layer.prepare(next: [], height: 10)
        #expect(gone.rows == [2..<4] && gone.output.isEmpty)
    }

    /// Inside tmux: every kitty command reaches the terminal outside wrapped for tmux's
    /// passthrough (each by itself, its ESCs doubled, none bare), the cells are placeholders
    /// naming the picture by one of the 256 colours (16…255, which tmux passes on as they
    /// are), and leaving deletes only this viewer's pictures, also wrapped.
    @Test func throughTmuxEveryCommandIsWrappedAndIdsAreColoursOf256() throws {
        let layer = PictureLayer(graphics: .kitty, placeholders: false, throughTmux: true)
        #expect(layer.placeholders, "through tmux, always placeholders")
        var ids: [UInt32] = []
        for round in 0..<300 {
            let picture = Self.picture()
            let out = layer.finish(next: [Self.region(picture)], redrawnRows: [], full: false, width: 20, height: 10)
            let text = Self.text(out)
            // Unwrapped, every command is what it would be outside tmux.
            let wrapped = text.components(separatedBy: "\u{1B}Ptmux;").dropFirst()
            #expect(!wrapped.isEmpty)
            var inner = ""
            for part in wrapped {
                let end = try #require(part.range(of: "\u{1B}\u{1B}\\\u{1B}\\"), "each ends with its doubled ST, then ST")
                let body = String(part[..<end.lowerBound]) + "\u{1B}\u{1B}\\"
                #expect(body.hasPrefix("\u{1B}\u{1B}_G"), "one kitty command a wrapper")
                inner += body.replacingOccurrences(of: "\u{1B}\u{1B}", with: "\u{1B}")
            }
            let outside = text.components(separatedBy: "\u{1B}Ptmux;").first ?? ""
            #expect(!outside.contains("\u{1B}_G"), "no command bare: tmux would drop it")
            let commands = Self.kittyCommands(Array(inner.utf8))
            let transmit = try #require(commands.first { $0.keys["a"] == "t" })
            #expect(commands.contains { $0.keys["a"] == "p" && $0.keys["U"] == "1" })
            let id = try #require(transmit.keys["i"].flatMap { UInt32($0) })
            #expect(PictureLayer.tmuxIDs.contains(id), "\(id)")
            ids.append(id)
            // (Bytes, not Characters: a placeholder and its marks are one grapheme.)
            #expect(out.firstRange(of: Array("\u{1B}[3;4H\u{1B}[38;5;\(id)m\u{10EEEE}".utf8)) != nil,
                    "round \(round): the cells name picture \(id) in 256 colours")
            #expect(layer.sentIDs.count <= PictureLayer.kittyPictures)
            if round >= PictureLayer.kittyPictures {
                #expect(commands.contains { $0.keys["a"] == "d" && $0.keys["d"] == "I" }, "the oldest deleted, wrapped")
            }
        }
        // Past 255 the ids start again at 16; never one the terminal still holds twice.
        #expect(Set(ids).count == 240)
        let cleared = Self.text(layer.clear())
        #expect(cleared.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=I,i=") && !cleared.contains("d=A"), "only its own pictures")
    }

    /// tmux's wrapper: each escape string by itself, ESCs doubled; bytes between left as
    /// they are; an OSC ended by BEL; an unfinished command dropped rather than let tmux
    /// read what follows into it.
    @Test func theTmuxWrapper() {
        let two = Array("\u{1B}_Ga=d,i=1\u{1B}\\x\u{1B}]52;c;QQ==\u{07}".utf8)
        #expect(Self.text(TmuxPassthrough.wrap(two))
                == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,i=1\u{1B}\u{1B}\\\u{1B}\\x\u{1B}Ptmux;\u{1B}\u{1B}]52;c;QQ==\u{07}\u{1B}\\")
        #expect(Self.text(TmuxPassthrough.wrap(Array("ab\u{1B}_Ga=t;AAAA".utf8))) == "ab")
        #expect(TmuxPassthrough.wrap([]).isEmpty)
        #expect(Self.text(TmuxPassthrough.wrap(Array("\u{1B}[2J".utf8))) == "\u{1B}[2J", "not an escape string: as it is")
        #expect(KittyPlaceholders.cells(id: 200, row: 0, columns: 0..<1, indexed: true).starts(with: Array("\u{1B}[38;5;200m".utf8)))
        #expect(KittyPlaceholders.cells(id: 256, row: 0, columns: 0..<1, indexed: true).isEmpty, "256 is no colour of the 256")
    }

    @Test func whichTerminalsDrawPlaceholders() {
        for yes in ["kitty(0.28.0)", "kitty(0.35.2)", "kitty(1.0.0)", "ghostty 1.1.3"] { #expect(GraphicsChoice.drawsPlaceholders(version: yes), "\(yes)") }
        for no in ["kitty(0.26.5)", "kitty(0.27.1)", "kitty(x.y)", "kitty(", "XTerm(379)", "WezTerm 20240203", ""] {
            #expect(!GraphicsChoice.drawsPlaceholders(version: no), "\(no)")
        }
        #expect(!GraphicsChoice.drawsPlaceholders(version: nil))
        #expect(KittyPlaceholders.marks.count == 297 && KittyPlaceholders.marks == KittyPlaceholders.marks.sorted())
        #expect(KittyPlaceholders.cells(id: 1, row: 297, columns: 0..<1).isEmpty, "no mark for row 297: nothing written")
        #expect(KittyPlaceholders.cells(id: 1 << 24, row: 0, columns: 0..<1).isEmpty, "an id colour cannot name")
    }

    @Test func cellsWriteNothing() {
        let layer = PictureLayer(graphics: .cells)
        let region = Self.region(Self.picture())
        #expect(layer.prepare(next: [region], height: 10).output.isEmpty)
        #expect(layer.finish(next: [region], redrawnRows: [], full: true, width: 20, height: 10).isEmpty)
        #expect(layer.clear().isEmpty)
    }
}
