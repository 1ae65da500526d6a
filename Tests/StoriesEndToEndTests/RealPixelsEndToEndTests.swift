import Foundation
import StoriesCells
import StoriesMedia
import StoriesTestSupport
import Testing

/// Issue 31, point 6: real pixels in real terminals under Xvfb — xterm started as a VT340
/// (sixel) and kitty 0.26.5 (its graphics protocol, placement commands). The demo's first
/// photo is opened and the window's screenshot compared with the picture the viewer sends
/// (the photo decoded and fitted at the cell's pixel size, between the author band and
/// the caption); the help overlay, dismissing, a resize and quitting each leave none of it.
@Suite(.serialized, .ownThread) struct RealPixelsEndToEndTests {
    static let columns = 80, rows = 24
    /// The most a screen showing the picture may differ from it, a channel on average
    /// (every fourth pixel both ways, at the best of the places within 4 pixels of where it
    /// should be). Measured here: sixel 2.1 (its palette of at most 255 colours, no
    /// dithering), kitty 0.0 (PNG is exact); the same photo in cells — what a screen shows
    /// when no picture was drawn over them — 14.4 in sextants.
    static let showsPicture = 6.0
    /// The least a screen that does not show it differs: measured 46–48 under the help
    /// overlay, 73–77 on the row after dismissing, 79–83 once the app has quit.
    static let showsNoPicture = 30.0

    static var astronaut: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Assets/demo/media/astronaut.jpg")
    }

    /// What the viewer sends for the photo at `columns`×`rows` with `cell`-sized cells: the
    /// picture's rows between the author band (row 1) and the one-line caption.
    static func expected(cell: (width: Int, height: Int), columns: Int = columns, rows: Int = rows) throws -> RGBImage {
        let decoded = try ImageDecoder.decode(try Data(contentsOf: astronaut), minimumSize: (columns * cell.width, rows * cell.height))
        let cellPixels = try #require(CellPixels(width: cell.width, height: cell.height))
        let picture = PixelPicture(decoded, columns: columns, rows: rows - 2, cell: cellPixels, fit: .fit)
        return picture.image.rows(cell.height..<((rows - 3) * cell.height))
    }

    /// A cell's size from the window's: its size in pixels over the cells asked for.
    static func windowCell(_ terminal: XTerminal) throws -> (width: Int, height: Int) {
        // A window just mapped may not have its size yet: once in CI it measured a cell 0
        // wide, once (kitty, loaded) 20 high before it settled at 19. The size counts once
        // it is the same a second later.
        var cell = (width: 0, height: 0)
        try XTerminal.wait("the window's size", timeout: 20) {
            guard let size = try? terminal.windowSize() else { return false }
            cell = (size.width / columns, size.height / rows)
            guard CellPixels(width: cell.width, height: cell.height) != nil else { return false }
            return Wait.holds(for: 1, every: 0.2) { (try? terminal.windowSize()).map { $0 == size } ?? false }
        }
        return cell
    }

    /// The cell size `stories doctor` found in the terminal (it runs first, into a file).
    static func cellSize(_ terminal: XTerminal) throws -> (width: Int, height: Int) {
        let report = terminal.folder.appendingPathComponent("doctor.txt")
        try XTerminal.wait("doctor's report", timeout: 20) {
            (try? String(contentsOf: report, encoding: .utf8))?.contains("cell size") == true
        }
        let text = try String(contentsOf: report, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("cell size") }, "\(text)")
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(numbers.count >= 2, "\(line)")
        return (numbers[0], numbers[1])
    }

    /// The screen once `done` holds for it, or as it is after `timeout` seconds: a loaded
    /// machine (CI runs the other suites beside these) once took more than 3 s to place
    /// kitty's first picture, so no step counts on a fixed wait. The caller still checks.
    static func awaitScreen(_ terminal: XTerminal, _ name: String, timeout: Double = 20,
                            until done: (RGBImage) -> Bool) throws -> RGBImage {
        var screen = try terminal.screenshot(name)
        try Wait.until(timeout, every: 0.5) {
            screen = try terminal.screenshot(name)
            return done(screen)
        }
        return screen
    }

    /// How close the screen comes to `picture` near `origin` once it shows it.
    static func awaitPicture(_ terminal: XTerminal, _ picture: RGBImage, near origin: (x: Int, y: Int),
                             name: String) throws -> (error: Double, x: Int, y: Int) {
        bestMatch(try awaitScreen(terminal, name) { bestMatch($0, picture, near: origin).error < showsPicture },
                  picture, near: origin)
    }

    /// Opens the demo's first photo in `kind` and follows it through the help overlay, a
    /// resize, dismissing and quitting; returns how far the open photo was from the picture.
    @discardableResult
    /// `cold`: the app starts first, with doctor after it quits (kitty on software OpenGL
    /// answers its first questions in about 100 ms: late answers must still bring pictures).
    func run(_ kind: XTerminal.Kind, graphics: String, expecting protocolLine: String, cold: Bool = false) throws -> Double {
        let missing = XTerminal.missing(kind)
        try #require(missing.isEmpty, "not installed: \(missing.joined(separator: ", ")) (.ci/run installs them)")
        let binary = try Binary.requireBuilt()
        let doctor = "\(binary) doctor > \"$XT_FOLDER/doctor.txt\" 2>&1", app = "\(binary) --graphics \(graphics)"
        let terminal = try XTerminal(kind, columns: Self.columns, rows: Self.rows, command:
            "export TERM=xterm-256color COLORTERM=truecolor; " + (cold ? "\(app); \(doctor); sleep 5" : "\(doctor); exec \(app)"))
        // Cold, the cell size is the window's: the same as doctor will say.
        let cell = cold ? try Self.windowCell(terminal) : try Self.cellSize(terminal)
        let expected = try Self.expected(cell: cell)
        // The picture's top left: the window's border, then the progress bar and author band.
        let origin = (x: kind == .xterm ? 2 : 0, y: (kind == .xterm ? 2 : 0) + 2 * cell.height)
        // The home drawn and still; opened, then paused once the viewer has drawn its photo:
        // it stays on it. (Pressed together, on a loaded machine the Space reached the row
        // before the viewer was open, and the story went on to its next item.)
        try terminal.awaitAppQuiet()
        let home = try #require(terminal.appWritten(), "the app's process in the terminal")
        try terminal.press("Return")
        try terminal.awaitAppWrote(since: home, atLeast: 4096)
        try terminal.press("space")
        try terminal.awaitAppQuiet()
        let open = graphics == "cells" ? bestMatch(try terminal.screenshot("\(graphics)-open"), expected, near: origin)
            : try Self.awaitPicture(terminal, expected, near: origin, name: "\(graphics)-open")
        let at = (x: open.x, y: open.y)
        try terminal.press("question")
        let help = meanError(try Self.awaitScreen(terminal, "\(graphics)-help") {
            meanError($0, expected, at: at) > Self.showsNoPicture
        }, expected, at: at)
        #expect(help > Self.showsNoPicture, "under the help overlay, none of the picture shows (\(help))")
        try terminal.press("Escape")
        let closed = meanError(try Self.awaitScreen(terminal, "\(graphics)-closed") {
            abs(meanError($0, expected, at: at) - open.error) < 1
        }, expected, at: at)
        #expect(abs(closed - open.error) < 1, "the help closed, the photo is as it was (\(closed), \(open.error))")
        // Ctrl-L: the whole screen cleared and drawn again, the picture with it (kitty frees
        // pictures a clear leaves without a placement: it is sent again).
        // The clear comes first: the photo as it was before it proves nothing.
        let beforeClear = try #require(terminal.appWritten(), "the app's process in the terminal")
        try terminal.press("ctrl+l")
        try terminal.awaitAppQuiet(since: beforeClear)
        let redrawn = meanError(try Self.awaitScreen(terminal, "\(graphics)-redrawn") {
            abs(meanError($0, expected, at: at) - open.error) < 1
        }, expected, at: at)
        #expect(abs(redrawn - open.error) < 1, "after Ctrl-L the photo is as it was (\(redrawn), \(open.error))")
        // A smaller window: the picture made again for it, nothing of the larger one left.
        try terminal.resize(columns: 60, rows: 20, cell: cell)
        let smaller = try Self.expected(cell: cell, columns: 60, rows: 20)
        let resized = try Self.awaitScreen(terminal, "\(graphics)-resized") {
            meanError($0, expected, at: at) > Self.showsNoPicture
                && (graphics == "cells" || meanError($0, smaller, at: at) < Self.showsPicture)
        }
        let old = meanError(resized, expected, at: at), new = meanError(resized, smaller, at: at)
        #expect(old > Self.showsNoPicture, "the larger picture is gone after the resize (\(old))")
        try terminal.press("Escape")
        let dismissed = meanError(try Self.awaitScreen(terminal, "\(graphics)-dismissed") {
            meanError($0, smaller, at: at) > Self.showsNoPicture
        }, smaller, at: at)
        #expect(dismissed > Self.showsNoPicture, "dismissed: the row, with none of the picture (\(dismissed))")
        try terminal.press("q")
        if cold {
            let report = try Self.cellSize(terminal)
            #expect(report == cell)
        }
        try XTerminal.wait("the app to quit and the terminal to close", timeout: 20) { !terminal.isRunning }
        let report = try String(contentsOf: terminal.folder.appendingPathComponent("doctor.txt"), encoding: .utf8)
        #expect(report.contains(protocolLine), "\(report)")
        #expect(report.contains("asked "), "the terminal was asked: \(report)")
        if graphics != "cells" {
            #expect(open.error < Self.showsPicture, "\(kind) shows the photo as the picture sent (\(open.error))")
            #expect(new < Self.showsPicture, "after the resize, the picture for the new size (\(new))")
        }
        return open.error
    }

    /// A crash (SIGSEGV) gives the terminal back without the picture: kitty's are deleted,
    /// sixel's go with the alternate screen.
    @Test(arguments: [XTerminal.Kind.xterm, .kitty])
    func aCrashLeavesNoPictureBehind(_ kind: XTerminal.Kind) throws {
        let missing = XTerminal.missing(kind)
        try #require(missing.isEmpty, "not installed: \(missing.joined(separator: ", ")) (.ci/run installs them)")
        let binary = try Binary.requireBuilt()
        let terminal = try XTerminal(kind, columns: Self.columns, rows: Self.rows, command:
            "export TERM=xterm-256color COLORTERM=truecolor; \(binary) --graphics \(kind == .xterm ? "sixel" : "kitty"); sleep 60")
        let cell = try Self.windowCell(terminal)
        let expected = try Self.expected(cell: cell)
        let origin = (x: kind == .xterm ? 2 : 0, y: (kind == .xterm ? 2 : 0) + 2 * cell.height)
        try terminal.awaitAppQuiet()
        try terminal.press("Return", "space")
        let open = try Self.awaitPicture(terminal, expected, near: origin, name: "crash-open")
        #expect(open.error < Self.showsPicture, "\(open.error)")
        let app = try #require(terminal.descendant(named: "stories"), "the app's process")
        kill(app, SIGSEGV)
        try XTerminal.wait("the app to end", timeout: 10) { kill(app, 0) != 0 }
        let after = meanError(try Self.awaitScreen(terminal, "crash-after") {
            meanError($0, expected, at: (open.x, open.y)) > Self.showsNoPicture
        }, expected, at: (open.x, open.y))
        #expect(after > Self.showsNoPicture, "after the crash, none of the picture (\(after))")
        #expect(terminal.isRunning, "the terminal itself is still there, showing the shell's screen")
    }

    @Test func xtermShowsSixelAndLeavesNothingBehind() throws {
        try run(.xterm, graphics: "auto", expecting: "pictures    sixel: its DA1 answer lists sixel (4)")
    }

    /// The same terminal told to draw cells: the measure tells a picture in pixels from the
    /// same photo in cells (the comparison above could not pass without real pixels).
    @Test func inCellsTheScreenIsNotThePicture() throws {
        let error = try run(.xterm, graphics: "cells", expecting: "pictures    sixel")
        #expect(error > Self.showsPicture, "cells are not the picture (\(error))")
    }

    @Test func kittyShowsItsGraphicsAndLeavesNothingBehind() throws {
        try run(.kitty, graphics: "auto", expecting: "pictures    kitty: it answered the kitty graphics query", cold: true)
    }

    /// Doctor in kitty 0.26.5 says its pictures are placed by placement commands, and what
    /// a newer kitty would get; and that this kitty read the probe's shared memory (it runs
    /// here), so pictures go through it — the real kitty's own answer to the `t=s` query.
    @Test func doctorSaysHowKittyPicturesArePlaced() throws {
        let missing = XTerminal.missing(.kitty)
        try #require(missing.isEmpty, "not installed: \(missing.joined(separator: ", ")) (.ci/run installs them)")
        let binary = try Binary.requireBuilt()
        let terminal = try XTerminal(.kitty, columns: Self.columns, rows: Self.rows, command:
            "export TERM=xterm-256color; \(binary) doctor > \"$XT_FOLDER/doctor.txt\" 2>&1; sleep 30")
        _ = try Self.cellSize(terminal)
        let report = try String(contentsOf: terminal.folder.appendingPathComponent("doctor.txt"), encoding: .utf8)
        #expect(report.contains("placed by placement commands (kitty 0.28 or later draws Unicode placeholders"), "\(report)")
        #expect(report.contains("pixels through shared memory: kitty read this process's object"), "\(report)")
    }
}

/// Issue 31, point 6: the viewer on a pseudo-terminal that answers as kitty 0.28 would —
/// placeholders (kitty 0.26.5, the one Debian has, predates them).
@Suite(.serialized, .ownThread) struct KittyPlaceholderEndToEndTests {
    @Test func aTerminalThatAnswersAsKitty028GetsPlaceholders() throws {
        let binary = try Binary.requireBuilt()
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 800, ws_ypixel: 480)
        try #require(openpty(&master, &slave, nil, nil, &size) == 0)
        defer { close(master) }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("placeholders-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: state) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["TMUX", "NO_COLOR", "TERM_PROGRAM", "LC_TERMINAL", "COLORFGBG"] { environment[name] = nil }
        environment["TERM"] = "xterm-256color"
        environment["COLORTERM"] = "truecolor"
        environment["XDG_STATE_HOME"] = state.path
        environment["XDG_CONFIG_HOME"] = state.path
        environment["XDG_CACHE_HOME"] = state.path
        let app = try Child([binary], environment: environment, stdin: slave, stdout: .descriptor(slave), stderr: .null)
        close(slave)

        // Everything the app writes, read on a thread of its own; the probe answered as kitty 0.28.
        let output = Box()
        let terminal = master
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var answered = false
            while true {
                let n = read(terminal, &buffer, buffer.count)
                guard n > 0 else { break }
                output.append(buffer[0..<n])
                if !answered, output.text.contains("\u{1B}[c") {
                    answered = true
                    let answer = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P>|kitty(0.28.1)\u{1B}\\\u{1B}[6;20;10t\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?62;4;22c"
                    _ = write(terminal, answer, answer.utf8.count)
                }
            }
        }
        reader.start()
        defer { if let keep = ProcessInfo.processInfo.environment["STORIES_SCREENSHOTS"] { try? output.text.write(toFile: keep + "/placeholders.txt", atomically: true, encoding: .utf8) } }
        try XTerminal.wait("the home screen", timeout: 20) { output.text.contains("Demo stories") && output.text.contains("@ayla") }
        _ = write(master, "\r", 1) // open the first story: its photo
        // (Scalars, not Characters: a placeholder and its marks are one grapheme.)
        // Generous: in CI this runs in the full suite's first, busiest minutes (seen: past 20 s).
        try XTerminal.wait("the photo in placeholders", timeout: 60) { output.text.unicodeScalars.contains("\u{10EEEE}") }
        // The last first row written: the picture's second row (under the author band), 80
        // cells of three scalars each, in the colour of a picture that was sent.
        func secondRow(_ text: String) -> (id: Int?, cells: [Unicode.Scalar])? {
            guard let row = text.range(of: "\u{1B}[3;1H\u{1B}[38;2;0;0;", options: .backwards) else { return nil }
            let after = text[row.upperBound...].unicodeScalars.drop { $0 != "m" }.dropFirst()
            return (Int(text[row.upperBound...].prefix { $0.isNumber }), Array(after.prefix(240)))
        }
        try XTerminal.wait("the photo's second row whole", timeout: 20) { secondRow(output.text)?.cells.count == 240 }
        let text = output.text
        let virtual = try #require(text.range(of: "\u{1B}_Ga=p,U=1,"), "a virtual placement")
        #expect(text[virtual.upperBound...].prefix(40).contains("c=80,r=22"), "over the photo's 80×22 cells")
        #expect(text.contains("\u{1B}_Ga=t,f=100,t=d,i=1,q=2,m=1;iVBORw0KGgo"), "the photo sent as PNG, quietly")
        #expect(!text.contains("\u{1B}_Ga=p,i="), "no placement commands")
        let row = try #require(secondRow(text))
        let id = try #require(row.id)
        #expect(text.contains("\u{1B}_Ga=t,f=100,t=d,i=\(id),q=2"), "picture \(id) was sent")
        let cells = row.cells
        #expect(cells.count == 240 && (0..<80).allSatisfy { cells[3 * $0] == "\u{10EEEE}" })
        #expect(KittyPlaceholders.marks.firstIndex(of: cells[1].value) == 1 && KittyPlaceholders.marks.firstIndex(of: cells[239].value) == 79)
        _ = write(master, "qq", 2)
        try XTerminal.wait("the app to quit", timeout: 10) { !app.isRunning }
        #expect(app.wait() == 0)
        #expect(output.text.contains("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\"), "the picture deleted at the end")
    }
}

/// Bytes read on one thread, looked at on another.
final class Box: @unchecked Sendable {
    // `lock` guards `bytes`.
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    func append(_ more: ArraySlice<UInt8>) { lock.lock(); bytes += more; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes, as: UTF8.self) }
}
