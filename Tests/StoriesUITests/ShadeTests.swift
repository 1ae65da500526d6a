import StoriesCells
import StoriesCore
import Testing
@testable import StoriesUI

/// The darkened screen behind an animation: the terminal's own colours darken from what
/// the display knows them to be — on a light terminal its white goes through greys, not
/// to black at once (seen in xterm as installed: the home behind the zoom drawn on black).
@Suite struct ShadeTests {
    @Test func aLightTerminalsBackgroundDarkensFromWhite() {
        let light = Canvas.ShadeDefaults(Display(background: Display.light))
        let shaded = Canvas.shaded(Style(), 0.5, defaults: light)
        #expect(shaded.background == .rgb(127, 127, 127))
        #expect(shaded.foreground == .rgb(0, 0, 0), "its text is dark")
        let dark = Canvas.shaded(Style(), 0.5, defaults: Canvas.ShadeDefaults(Display(background: Display.dark)))
        #expect(dark.background == .rgb(0, 0, 0) && dark.foreground == .rgb(104, 104, 104))
        // Barely shaded, the terminal's own background stays its own (SGR 49).
        #expect(Canvas.shaded(Style(), 0.9995, defaults: light).background == .default)
    }

    @Test func theZoomsBackdropIsTheLightTerminalsGrey() {
        var canvas = Canvas(width: 4, height: 2)
        canvas.shade(0.25, defaults: Canvas.ShadeDefaults(Display(background: RGB(240, 240, 240))))
        #expect(canvas[0, 0].style.background == .rgb(60, 60, 60))
    }
}
