import StoriesMedia
import StoriesCells
import StoriesCore

/// The whole screen as a function of app state: picks the screen, lays the help overlay on
/// top, and shows one clear line instead of a broken layout when the terminal is too small.
public enum AppView {
    /// What to draw for a photo of the viewer: the runtime answers from its rendition
    /// cache (`PictureLookups.cached`) and never starts work from here; tests may answer
    /// as they like.
    public typealias PictureLookup = (_ media: Media) -> PictureState

    public static func render(_ state: AppState, width: Int, height: Int,
                              metrics: MetricsSnapshot? = nil,
                              pictures: PictureLookup = { _ in .loading },
                              banners: PictureLookup = { _ in .loading }) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        canvas.reordersText = state.layout.bidi == .app
        guard ScreenLayout.isUsable(width: width, height: height) else {
            let message = "Terminal too small: \(width)×\(height). stories needs at least \(ScreenLayout.minimumWidth)×\(ScreenLayout.minimumHeight)."
            let lines = TextWrap.lines(message, width: max(1, width))
            for (offset, line) in lines.prefix(max(1, height)).enumerated() {
                canvas.text(line, x: 0, y: offset + max(0, (height - lines.count) / 2), style: Style(foreground: Theme.warning, attributes: [.bold]))
            }
            canvas.keepReadable(on: state.display)
            return canvas
        }
        let motion = TransitionView.motion(of: state)
        if let motion {
            TransitionView.render(motion, state: state, into: &canvas, pictures: pictures, banners: banners)
        } else if let viewer = state.viewer {
            ViewerScreen.render(state, viewer: viewer, into: &canvas, pictures: pictures)
        } else {
            HomeScreen.render(state, into: &canvas, banners: banners)
        }
        // Real pixels only at rest and with nothing over them: during a motion and under
        // an overlay the picture's cells stand in, and the overlay reads.
        if motion != nil || state.chrome.showsGestures || state.chrome.showsMetrics || state.chrome.modal != nil {
            canvas.pictures.removeAll()
        }
        canvas.isMotion = motion != nil
        // Nothing has focus mid-motion: the cursor stays where it was until the motion ends.
        if motion != nil { canvas.cursor = nil }
        if state.chrome.showsGestures {
            GestureOverlay.render(state, into: &canvas)
        }
        if state.chrome.showsMetrics {
            MetricsOverlay.render(metrics ?? MetricsSnapshot(policy: state.preloadPolicy), into: &canvas)
        }
        if state.chrome.modal != nil {
            HelpOverlay.render(state, into: &canvas)
        }
        // Every text reads on this terminal's background, light or dark, at its depth.
        canvas.keepReadable(on: state.display)
        return canvas
    }

    /// Seconds until the screen changes by itself (the run loop sets its frame timer by
    /// this); nil when nothing on screen moves, and the app sleeps until input.
    public static func secondsUntilNextChange(_ state: AppState, width: Int, height: Int) -> Double? {
        guard state.wantsFrames else { return nil }
        // An animation draws every frame until its timeline ends.
        if state.viewing.transition != nil { return 0 }
        // Under the help or on a screen too small nothing visible moves (the reducer stops
        // the item's clock there too).
        guard ScreenLayout.isUsable(width: width, height: height), state.chrome.modal == nil else { return nil }
        // A live replay's clock on the hint line moves on every tenth of a second.
        var replayStep: Double?
        if let replay = state.chrome.replay, !replay.isOver {
            let elapsed = state.now.uptime - replay.since
            replayStep = 0.1 - elapsed.truncatingRemainder(dividingBy: 0.1) + 1e-6
        }
        let other = secondsUntilOtherChange(state, width: width)
        switch (replayStep, other) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        default: return other
        }
    }

    private static func secondsUntilOtherChange(_ state: AppState, width: Int) -> Double? {
        if state.viewer == nil, state.row.opening != nil {
            // The loading ring's next step.
            let steps = (state.now.uptime - state.row.openingSince) * Bubble.spinnerStepsPerSecond
            return ((steps + 1e-9).rounded(.down) + 1 - steps) / Bubble.spinnerStepsPerSecond
        }
        return ViewerScreen.secondsUntilNextChange(state, width: width)
    }
}
