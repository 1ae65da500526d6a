import Foundation
import StoriesCore
import Testing

/// Issue 46, point 5: the viewer growing out of its bubble (present) and shrinking back
/// (dismiss) is drawn over the settled home, clipped to its rectangle, and no line of any
/// frame reads as two screens. Before, 120 ms after Enter on Ayla at 80×24 the top line
/// read "AD Ayla Demir────── … 11 stories": the viewer's author line ran on into the
/// home's count.
@MainActor @Suite struct ZoomLinesTests {
    /// Words (two or more letters or digits) of a screen's text.
    static func words(_ line: String) -> Set<String> {
        Set(line.split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 2 })
    }

    static func words(_ lines: [String]) -> Set<String> { lines.reduce(into: Set<String>()) { $0.formUnion(words($1)) } }

    /// Frames every 1/60 s until the animation is over.
    static func frames(_ pilot: AppDriver) -> [[String]] {
        var frames: [[String]] = []
        while pilot.state.viewing.transition != nil, frames.count < 100 {
            pilot.frame(after: 1.0 / 60)
            frames.append(pilot.lines)
        }
        return frames
    }

    @Test(arguments: [(40, 12), (60, 16), (80, 24), (100, 30), (120, 40), (200, 60), (300, 90)])
    func noLineOfTheZoomHoldsTwoScreens(width: Int, height: Int) {
        let pilot = AppDriver(width: width, height: height, motion: true)
        var checked = 0
        for story in [0, 3] {
            for _ in 0..<story { pilot.press(.key(.right)) }
            let home = pilot.lines
            pilot.press(.key(.enter))
            let opening = Self.frames(pilot)
            pilot.wait(0.2)
            let viewer = pilot.lines
            pilot.press(.key(.escape))
            let closing = Self.frames(pilot)
            // The words only one of the two screens has.
            let homeWords = Self.words(home), viewerWords = Self.words(viewer)
            let homeOnly = homeWords.subtracting(viewerWords), viewerOnly = viewerWords.subtracting(homeWords)
            #expect(!homeOnly.isEmpty && !viewerOnly.isEmpty)
            #expect(opening.count > 5 && closing.count > 5, "the zoom is drawn in frames at \(width)×\(height)")
            for (what, frames) in [("present", opening), ("dismiss", closing)] {
                for (index, frame) in frames.enumerated() {
                    for (y, line) in frame.enumerated() {
                        let words = Self.words(line)
                        let both = !words.isDisjoint(with: homeOnly) && !words.isDisjoint(with: viewerOnly)
                        #expect(!both, "\(what) at \(width)×\(height), story \(story + 1), frame \(index), line \(y) holds both screens: '\(line)'")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 0)
    }
}
