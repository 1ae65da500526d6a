import Foundation
import StoriesCells
import StoriesMedia
import StoriesTestSupport
import Testing

/// Issue 45, point 7: the viewer in the terminals Debian 12 ships, each as installed — its
/// own TERM, font, colours and background — on a private display. For each: where its text
/// grid is and how large a cell is (measured on the screen: a block of reversed cells drawn
/// first), `doctor`'s pictures and colours lines, the home and the demo's first photo on
/// screenshots, the photo compared with the decoded picture, none of it left under the
/// help overlay, after a resize, after dismissing and after quitting, and the theme that
/// matches the terminal's background. docs/terminals.md has the table of what each showed.
@Suite(.serialized, .ownThread) struct TerminalMatrixEndToEndTests {
    typealias Spec = DesktopTerminal.Spec

    static let xterm = Spec(name: "xterm", launch: ["xterm", "-e"], windowClass: "xterm", packages: ["xterm"],
                            pictures: "cells", colours: "24-bit")
    static let vt340 = Spec(name: "xterm -ti vt340", launch: ["xterm", "-ti", "vt340", "-e"], windowClass: "xterm", packages: ["xterm"],
                            pictures: "sixel", colours: "24-bit")
    static let kitty = Spec(name: "kitty", launch: ["kitty", "--config", "NONE"], windowClass: "kitty", packages: ["kitty"],
                            pictures: "kitty", colours: "24-bit")
    static let konsole = Spec(name: "konsole", launch: ["konsole", "--separate", "-e"], windowClass: "konsole", packages: ["konsole"],
                              pictures: "kitty", colours: "24-bit")
    static let mlterm = Spec(name: "mlterm", launch: ["mlterm", "-e"], windowClass: "mlterm", packages: ["mlterm"],
                             pictures: "sixel", colours: "24-bit")
    static let alacritty = Spec(name: "alacritty", launch: ["alacritty", "-e"], windowClass: "alacritty", packages: ["alacritty"],
                                pictures: "cells", colours: "24-bit")
    static let xfce = Spec(name: "xfce4-terminal", launch: ["xfce4-terminal", "--disable-server", "-x"], windowClass: "xfce4-terminal",
                           packages: ["xfce4-terminal"], pictures: "cells", colours: "24-bit")
    static let urxvt = Spec(name: "rxvt-unicode", launch: ["urxvt", "-e"], windowClass: "urxvt", packages: ["rxvt-unicode"],
                            pictures: "cells", colours: "256")
    static let st = Spec(name: "stterm", launch: ["stterm", "-e"], windowClass: "st-256color", packages: ["stterm"],
                         pictures: "cells", colours: "256")
    static let foot = Spec(name: "foot", launch: ["foot"], windowClass: nil, packages: ["foot", "sway", "grim", "wtype"],
                           pictures: "sixel", colours: "24-bit")

    @Test(.enabled(if: xterm.installed, xterm.skipReason)) func xtermAsInstalled() throws { try Self.check(Self.xterm) }
    @Test(.enabled(if: vt340.installed, vt340.skipReason)) func xtermAsAVT340() throws { try Self.check(Self.vt340) }
    @Test(.enabled(if: kitty.installed, kitty.skipReason)) func kittyAsInstalled() throws { try Self.check(Self.kitty) }
    @Test(.enabled(if: konsole.installed, konsole.skipReason)) func konsoleAsInstalled() throws { try Self.check(Self.konsole) }
    @Test(.enabled(if: mlterm.installed, mlterm.skipReason)) func mltermAsInstalled() throws { try Self.check(Self.mlterm) }
    @Test(.enabled(if: alacritty.installed, alacritty.skipReason)) func alacrittyAsInstalled() throws { try Self.check(Self.alacritty) }
    @Test(.enabled(if: xfce.installed, xfce.skipReason)) func xfceTerminalAsInstalled() throws { try Self.check(Self.xfce) }
    @Test(.enabled(if: urxvt.installed, urxvt.skipReason)) func rxvtUnicodeAsInstalled() throws { try Self.check(Self.urxvt) }
    @Test(.enabled(if: st.installed, st.skipReason)) func stAsInstalled() throws { try Self.check(Self.st) }
    @Test(.enabled(if: foot.installed, foot.skipReason)) func footAsInstalled() throws { try Self.check(Self.foot) }

    /// The most the screen may differ from the photo, a channel on average (every fourth
    /// pixel both ways): real pixels — measured 0.0 (kitty, PNG is exact) to 2.1 (sixel's
    /// 255-colour palette) — and cells, which draw each cell's pixels in two colours
    /// (measured 9–17 in 24-bit, up to 20 in 256 colours).
    static let showsPicture = 6.0, showsPictureInCells = 24.0
    /// The least a screen that does not show it differs (measured 30–90).
    static let showsNoPicture = 28.0

    /// The command the terminal runs: a cleared screen with no cursor, then (when Return is
    /// pressed: the shell reads a line from the terminal, which keeps a key typed early) a
    /// block of 10×2 reversed cells at the top left, then doctor into a file and the app;
    /// once it quits, the shell waits on the screen the app gave back.
    static func command(_ binary: String) -> String {
        """
        F="$XT_FOLDER"; stty -echo
        printf '\\033[?25l\\033[H\\033[2J'; : > "$F/cleared"; read _
        printf '\\033[H\\033[7m%10s\\r\\n%10s\\033[0m' '' ''; : > "$F/drawn"; read _; stty size > "$F/size"; : > "$F/sized"
        printf '\\033[H\\033[2J'; stty echo; \(binary) doctor > "$F/doctor.txt" 2>&1; \(binary); s=$?
        printf '\\033[?25l'; stty -echo; echo $s > "$F/quit"; read _
        """
    }

    /// Where the text grid starts and a cell's size: the solid rectangle of one colour that
    /// the reversed block drew, 10 cells wide and 2 high. Only a rectangle that is the block's
    /// shape counts: a terminal may still be finishing its first paint elsewhere between the
    /// two screenshots (konsole repaints its window once, and a diff of everything measured
    /// that), and the block's colour may be the colour around the window (urxvt's black).
    static func grid(before: RGBImage, after: RGBImage) throws -> (x: Int, y: Int, cell: (width: Int, height: Int)) {
        let width = min(before.width, after.width), height = min(before.height, after.height)
        struct Box { var left = Int.max, top = Int.max, right = -1, bottom = -1, count = 0 }
        var boxes: [RGBPixel: Box] = [:]
        for y in 0..<height {
            for x in 0..<width where before[x, y] != after[x, y] {
                var box = boxes[after[x, y], default: Box()]
                box.left = min(box.left, x); box.right = max(box.right, x)
                box.top = min(box.top, y); box.bottom = max(box.bottom, y); box.count += 1
                boxes[after[x, y]] = box
            }
        }
        let blocks = boxes.values.filter { box in
            let (w, h) = (box.right - box.left + 1, box.bottom - box.top + 1)
            return (3...40).contains(w / 10) && (6...80).contains(h / 2) && box.count * 100 >= w * h * 98
        }
        let block = try #require(blocks.max { $0.count < $1.count },
                                 "no changed rectangle has the reversed block's shape: \(boxes.values.sorted { $0.count > $1.count }.prefix(4))")
        return (block.left, block.top, ((block.right - block.left + 1) / 10, (block.bottom - block.top + 1) / 2))
    }

    /// The photo as the viewer sends it at `columns`×`rows` with `cell`-sized cells (the
    /// rows between the author band and the caption).
    static func expected(cell: (width: Int, height: Int), columns: Int, rows: Int) throws -> RGBImage {
        let decoded = try ImageDecoder.decode(try Data(contentsOf: RealPixelsEndToEndTests.astronaut),
                                              minimumSize: (columns * cell.width, rows * cell.height))
        let cellPixels = try #require(CellPixels(width: cell.width, height: cell.height))
        let picture = PixelPicture(decoded, columns: columns, rows: rows - 2, cell: cellPixels, fit: .fit)
        return picture.image.rows(cell.height..<((rows - 3) * cell.height))
    }

    /// The middle third of `image`, both ways.
    static func middleThird(_ image: RGBImage) -> RGBImage {
        let width = image.width / 3, height = image.height / 3
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in height..<(2 * height) {
            let start = (y * image.width + width) * 3
            pixels += image.pixels[start..<(start + width * 3)]
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// One terminal through the whole check; prints its row of the table.
    static func check(_ spec: Spec) throws {
        let binary = try Binary.requireBuilt()
        let terminal = try DesktopTerminal(spec, command: command(binary))
        try terminal.waitForFile("cleared")
        let cleared = try terminal.settledScreen()
        try terminal.proceed()
        try terminal.waitForFile("drawn")
        let drawn = try terminal.settledScreen { $0 != cleared }
        let grid = try Self.grid(before: cleared, after: drawn)
        try terminal.proceed()
        try terminal.waitForFile("sized")
        let size = terminal.read("size").split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(size.count == 2, "stty size: \(terminal.read("size"))")
        let (rows, columns) = (size[0], size[1])
        let backdrop = cleared[grid.x + 20 * grid.cell.width, grid.y + 4 * grid.cell.height]
        let light = Contrast.luminance((backdrop.r, backdrop.g, backdrop.b)) > 0.18

        // doctor, then the home.
        try XTerminal.wait("doctor's report in \(spec.name)", timeout: 30) { terminal.read("doctor.txt").contains("\nsound") }
        let report = terminal.read("doctor.txt")
        func line(_ name: String) -> String {
            report.split(separator: "\n").first { $0.hasPrefix(name) }.map { String($0.dropFirst(12)) } ?? "(no \(name) line)"
        }
        let home = try terminal.settledScreen("home") { $0 != drawn && $0 != cleared }
        #expect(line("pictures").hasPrefix(spec.pictures), "\(spec.name): \(report)")
        #expect(line("colours").hasPrefix(spec.colours), "\(spec.name): \(report)")
        let background = line("background")
        #expect(background.contains(light ? "light" : "dark") || background.contains("default colours"),
                "\(spec.name) has a \(light ? "light" : "dark") background (\(backdrop)): \(background)")

        // The demo's first photo, paused.
        let pixels = spec.pictures != "cells"
        let expected = try Self.expected(cell: grid.cell, columns: columns, rows: rows)
        let origin = (x: grid.x, y: grid.y + 2 * grid.cell.height)
        let bound = pixels ? Self.showsPicture : Self.showsPictureInCells
        try terminal.press("Return")
        // Playing, its progress bar moves: the screen does not settle until it is paused.
        var nearest = Double.infinity
        let deadline = Date().addingTimeInterval(40)
        while nearest >= bound {
            nearest = ((try? terminal.screenshot("opening")).map { bestMatch($0, expected, near: origin).error } ?? 255)
            try #require(Date() < deadline, "the photo in \(spec.name): nearest \(nearest) at \(grid), \(columns)×\(rows)")
        }
        try terminal.press("space")
        let open = bestMatch(try terminal.settledScreen("open") { bestMatch($0, expected, near: origin).error < bound }, expected, near: origin)
        let at = (x: open.x, y: open.y)
        #expect(open.error < bound, "\(spec.name) shows the photo (\(open.error))")

        try terminal.press("question")
        // The overlay covers the middle of the screen (all of it at 80×24, a box in a larger
        // window): none of the photo shows through its middle third.
        let middle = Self.middleThird(expected)
        let middleAt = (x: at.x + expected.width / 3, y: at.y + expected.height / 3)
        let help = meanError(try terminal.settledScreen("help") { meanError($0, middle, at: middleAt) > Self.showsNoPicture },
                             middle, at: middleAt)
        try terminal.press("Escape")
        let back = meanError(try terminal.settledScreen("back") { abs(meanError($0, expected, at: at) - open.error) < 1.5 }, expected, at: at)
        #expect(abs(back - open.error) < 1.5, "\(spec.name): the help closed, the photo as it was (\(back), \(open.error))")

        // Smaller by 20 columns and 4 rows: the photo made again for that size (in pixels,
        // compared; in cells, the old one gone).
        try terminal.shrink(columns: 20, rows: 4, cell: grid.cell)
        let smaller = try Self.expected(cell: grid.cell, columns: columns - 20, rows: rows - 4)
        let resizedScreen = try terminal.settledScreen("resized") {
            meanError($0, expected, at: at) > Self.showsNoPicture && bestMatch($0, smaller, near: origin).error < bound
        }
        let resized = meanError(resizedScreen, expected, at: at), remade = bestMatch(resizedScreen, smaller, near: origin).error
        #expect(remade < bound, "\(spec.name): after the resize, the photo for the new size (\(remade))")
        // Dismissed: the feed's name on the home's title row as it was (columns 10–21: the
        // mark before it changes colour with focus), none of the photo.
        let title = (x: grid.x + 10 * grid.cell.width, y: grid.y, width: 12 * grid.cell.width, height: grid.cell.height)
        try terminal.press("Escape")
        let dismissedScreen = try terminal.settledScreen("dismissed") {
            samePixels($0, home, in: title) && meanError($0, smaller, at: origin) > Self.showsNoPicture
        }
        let dismissed = meanError(dismissedScreen, smaller, at: origin)
        try terminal.press("q")
        try terminal.waitForFile("quit")
        let quit = meanError(try terminal.settledScreen("quit") { meanError($0, smaller, at: origin) > Self.showsNoPicture }, smaller, at: origin)
        #expect(terminal.read("quit").hasPrefix("0"), "\(spec.name): the app's exit status \(terminal.read("quit"))")
        try terminal.proceed()

        let row = "\(spec.name) | \(line("terminal")) | \(line("colours")) | \(line("pictures")) | \(background) | "
            + String(format: "cell %d×%d, %d×%d cells | photo %.1f, resized %.1f | left behind: help %.0f, resize %.0f, dismiss %.0f, quit %.0f",
                     grid.cell.width, grid.cell.height, columns, rows, open.error, remade, help, resized, dismissed, quit)
        print("matrix: " + row)
    }
}
