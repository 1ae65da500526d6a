import Foundation
import StoriesApp
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// Issue 29, point 1: light terminals and dark ones. Every text on every screen reads at
/// least 4.5:1 against what it is drawn on (rings, bars and frames 3:1), in both themes, at
/// truecolor, 256, 16 and 8 colours — judged as the terminal shows each colour at that depth.
@MainActor
@Suite struct ThemeContrastTests {
    /// The screens a person meets: the home, its sections, the search, the help and the
    /// problems list, the viewer on a photo, a text card and a video, the g and i overlays.
    static func screens(depth: ColorDepth, background: RGB, known: Bool = true) -> [(String, Canvas)] {
        var screens: [(String, Canvas)] = []
        let pilot = AppDriver(width: 100, height: 30, depth: depth, background: background, backgroundKnown: known)
        pilot.finishWork()
        screens.append(("home", pilot.canvas))
        pilot.press(.key(.down))
        screens.append(("sections", pilot.canvas))
        pilot.press(.key(.escape), .key(.character("/")))
        pilot.type("mi")
        screens.append(("search", pilot.canvas))
        pilot.press(.key(.escape), .key(.escape), .key(.character("?")))
        screens.append(("help", pilot.canvas))
        pilot.press(.key(.escape), .key(.character("p")))
        screens.append(("problems", pilot.canvas))
        pilot.press(.key(.escape), .key(.enter))
        pilot.wait(1)
        pilot.finishWork()
        screens.append(("viewer photo", pilot.canvas))
        pilot.press(.key(.character("g")))
        screens.append(("gesture log", pilot.canvas))
        pilot.press(.key(.character("g")), .key(.character("i")))
        screens.append(("metrics", pilot.canvas))
        pilot.press(.key(.character("i")), .key(.character("]")), .key(.right))
        pilot.wait(1)
        pilot.press(.key(.character(" ")))
        screens.append(("viewer text card, paused", pilot.canvas))
        pilot.press(.key(.escape), .key(.end), .key(.enter))
        pilot.wait(1)
        pilot.finishWork()
        screens.append(("viewer, last story", pilot.canvas))
        return screens
    }

    /// The cells whose text does not read, with the ratio each has.
    static func unreadable(_ canvas: Canvas, depth: ColorDepth, background: RGB) -> [String] {
        let light = Display(colorDepth: depth, background: background).isLight
        let foreground: Contrast.RGB8 = light ? (0, 0, 0) : (229, 229, 229)
        var problems: [String] = []
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let cell = canvas[x, y]
                guard let grapheme = cell.grapheme, grapheme != " ", let scalar = grapheme.unicodeScalars.first,
                      !(0x2580...0x259F).contains(scalar.value) else { continue }
                let minimum = (0x2500...0x257F).contains(scalar.value) ? Contrast.mark : Contrast.text
                let reversed = cell.style.attributes.contains(.reverse)
                let under = Contrast.shown(reversed ? cell.style.foreground : cell.style.background, depth: depth,
                                           fallback: reversed ? foreground : background.tuple)
                // Bold text at 8 and 16 colours has to read shown bright too (xterm's boldColors).
                let ratio = Contrast.ratio(of: reversed ? cell.style.background : cell.style.foreground,
                                           bold: cell.style.attributes.contains(.bold) && !reversed, on: under, depth: depth,
                                           fallback: reversed ? background.tuple : foreground)
                if ratio < minimum - 0.005 { problems.append("'\(grapheme)' at \(x),\(y): \(String(format: "%.2f", ratio)):1") }
            }
        }
        return problems
    }

    @Test(arguments: [ColorDepth.direct, .palette256, .sixteen, .eight])
    func everyTextReadsOnLightAndDark(depth: ColorDepth) {
        for background in [Display.light, Display.dark, RGB(253, 246, 227) /* solarized light */, RGB(40, 44, 52) /* one dark */] {
            var checked = 0
            for (name, canvas) in Self.screens(depth: depth, background: background) {
                let problems = Self.unreadable(canvas, depth: depth, background: background)
                checked += 1
                #expect(problems.isEmpty, "\(name) on \(background) at \(depth.name): \(problems.count) cells, \(problems.prefix(6))")
            }
            #expect(checked == 10)
        }
    }

    /// Issue 45, point 6: nothing said the background (no OSC 11 answer, no COLORFGBG, the
    /// theme left to the terminal). On every screen, text on the terminal's own background is
    /// in its own colour (SGR 39) or one that reads on black and on white alike; text on a
    /// colour of the app's is never the terminal's own colour (which could be anything) and
    /// reads there — on a dark terminal and a light one alike.
    @Test(arguments: [ColorDepth.direct, .palette256, .sixteen, .eight])
    func withTheBackgroundUnknownTextReadsOnAnyBackground(depth: ColorDepth) {
        var checked = 0, ownColour = 0
        for (name, canvas) in Self.screens(depth: depth, background: Display.dark, known: false) {
            var problems: [String] = []
            for y in 0..<canvas.height {
                for x in 0..<canvas.width {
                    let cell = canvas[x, y], style = cell.style
                    guard let grapheme = cell.grapheme, grapheme != " ", let scalar = grapheme.unicodeScalars.first,
                          !(0x2580...0x259F).contains(scalar.value) else { continue }
                    let minimum = (0x2500...0x257F).contains(scalar.value) ? Contrast.mark : Contrast.text
                    switch (style.foreground, style.background) {
                    case (.default, .default):
                        ownColour += 1
                    case (let text, .default) where !style.attributes.contains(.reverse):
                        let bold = style.attributes.contains(.bold)
                        let worst = min(Contrast.ratio(of: text, bold: bold, on: (0, 0, 0), depth: depth, fallback: (255, 255, 255)),
                                        Contrast.ratio(of: text, bold: bold, on: (255, 255, 255), depth: depth, fallback: (0, 0, 0)))
                        if worst < minimum - 0.005 { problems.append("'\(grapheme)' at \(x),\(y) in \(text): \(String(format: "%.2f", worst)):1 on black or white") }
                    case (.default, _), (_, .default):
                        problems.append("'\(grapheme)' at \(x),\(y): the terminal's own colour beside one of the app's (\(style))")
                    default:
                        let reversed = style.attributes.contains(.reverse)
                        let under = Contrast.shown(reversed ? style.foreground : style.background, depth: depth, fallback: (0, 0, 0))
                        let ratio = Contrast.ratio(of: reversed ? style.background : style.foreground,
                                                   bold: style.attributes.contains(.bold) && !reversed, on: under, depth: depth, fallback: (0, 0, 0))
                        if ratio < minimum - 0.005 { problems.append("'\(grapheme)' at \(x),\(y): \(String(format: "%.2f", ratio)):1") }
                    }
                }
            }
            checked += 1
            #expect(problems.isEmpty, "\(name) at \(depth.name), background unknown: \(problems.count) cells, \(problems.prefix(6))")
        }
        #expect(checked == 10)
        #expect(ownColour > 200, "most text is in the terminal's own colour: \(ownColour) cells")
    }

    @Test func unseenRingsStayApartFromSeenOnesInBothThemes() {
        for background in [Display.light, Display.dark] {
            for depth in [ColorDepth.direct, .palette256, .sixteen, .eight] {
                let pilot = AppDriver(width: 100, height: 30, depth: depth, background: background)
                pilot.press(.key(.enter))
                pilot.wait(1)
                pilot.press(.key(.escape))
                // Ayla's ring (seen in part, still unseen items) against a seen one: mark it all seen.
                let canvas = pilot.canvas
                let unseenCorner = canvas[13, 2] // the second bubble's top left: unseen
                #expect(unseenCorner.grapheme == "╭")
                let unseen = Contrast.shown(unseenCorner.style.foreground, depth: depth, fallback: (0, 0, 0))
                let seen = Contrast.shown(Theme.ringSeen, depth: depth, fallback: (0, 0, 0))
                #expect(unseen != seen, "\(depth.name) on \(background): unseen and seen rings differ in colour")
                #expect(canvas[20, 2].grapheme == "●", "and by the dot, without colour too")
            }
        }
    }

    @Test func theBackgroundIsReadFromTheTerminalsAnswers() {
        #expect(ThemeChoice.background(fromOSC: "11;rgb:ffff/ffff/ffff") == RGB(255, 255, 255))
        #expect(ThemeChoice.background(fromOSC: "11;rgb:00/2b/36") == RGB(0, 43, 54))
        #expect(ThemeChoice.background(fromOSC: "11;rgb:f/f/e") == RGB(255, 255, 238))
        #expect(ThemeChoice.background(fromOSC: "11;rgb:fdf6/e3e3/ffff")?.red == 253)
        for bad in ["11;rgb:zz/00/00", "11;rgb:fffff/0/0", "11;rgb:1/2", "10;rgb:0/0/0", "11;?", ""] {
            #expect(ThemeChoice.background(fromOSC: bad) == nil, "\(bad)")
        }
        #expect(ThemeChoice.background(fromCOLORFGBG: "0;15") == Display.light)
        #expect(ThemeChoice.background(fromCOLORFGBG: "15;default;0") == Display.dark)
        #expect(ThemeChoice.background(fromCOLORFGBG: "0;7") == Display.light)
        #expect(ThemeChoice.background(fromCOLORFGBG: "x") == nil && ThemeChoice.background(fromCOLORFGBG: nil) == nil)
    }
}
