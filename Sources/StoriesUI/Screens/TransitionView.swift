import StoriesMedia
import StoriesCells
import Foundation
import StoriesCore

/// Draws movement between screens from `AppState.transition` (or a drag that follows the
/// pointer): the viewer zooming between full screen and its bubble over the darkened ring
/// row, and the cube between two stories. Each frame is a pure function of the state and
/// the clock, so any fraction can be drawn and snapshot-tested.
public enum TransitionView {
    /// What is in motion on this frame, if anything: a running transition, or a drag.
    /// `--reduce-motion` draws none of it.
    public enum Motion: Equatable {
        case zoom(viewer: ViewerState, scale: Double, backdrop: Double)
        case cube(leaving: ViewerState, arriving: ViewerState, forward: Bool, turn: Double)
    }

    public static func motion(of state: AppState) -> Motion? {
        guard !state.reduceMotion else { return nil }
        let now = state.now.uptime
        if let transition = state.viewing.transition {
            switch transition.kind {
            case .zoom(let viewer):
                let (scale, backdrop) = transition.zoom(at: now)
                return .zoom(viewer: state.viewer ?? viewer, scale: scale, backdrop: backdrop)
            case .cube(let leaving, let arriving, let forward):
                return .cube(leaving: leaving, arriving: arriving, forward: forward, turn: transition.turn(at: now))
            }
        }
        guard let viewer = state.viewer, let drag = state.drag else { return nil }
        switch drag {
        case .swipe(let offset):
            guard offset != 0 else { return nil }
            let forward = offset < 0
            let neighbour = ViewerState(storyIndex: viewer.storyIndex + (forward ? 1 : -1), itemIndex: 0, startedAt: now)
            // With no story on that side the cube gives a little and no more.
            let turn = hasStory(at: neighbour.storyIndex, state) ? abs(offset) : abs(offset) * 0.25
            return .cube(leaving: viewer, arriving: neighbour, forward: forward, turn: turn)
        case .dismiss(let offset):
            let scale = 1 - min(1, offset)
            return .zoom(viewer: viewer, scale: scale, backdrop: scale)
        }
    }

    public static func render(_ motion: Motion, state: AppState, into canvas: inout Canvas,
                              pictures: AppView.PictureLookup, banners: AppView.PictureLookup = { _ in .loading }) {
        switch motion {
        case .zoom(let viewer, let scale, let backdrop):
            renderZoom(state, viewer: viewer, scale: scale, backdrop: backdrop, into: &canvas, pictures: pictures,
                       banners: banners)
        case .cube(let leaving, let arriving, let forward, let turn):
            renderCube(state, leaving: leaving, arriving: arriving, forward: forward, turn: turn, into: &canvas, pictures: pictures)
        }
    }

    /// The rectangle the viewer fills at a zoom: the story's bubble at 0, the screen at 1.
    public static func zoomRect(_ state: AppState, storyIndex: Int, scale: Double, width: Int, height: Int) -> Rect {
        let index = max(0, min(storyIndex, state.feed.store.count - 1))
        let bubble = HomeScreen.bubbleRect(of: index, state: state, width: width)
            ?? Rect(x: width / 2, y: height / 2, width: 1, height: 1)
        let s = max(0, min(1, scale))
        func lerp(_ a: Int, _ b: Int) -> Int { Int((Double(a) + Double(b - a) * s).rounded()) }
        let x = lerp(bubble.x, 0), y = lerp(bubble.y, 0)
        return Rect(x: x, y: y, width: lerp(bubble.maxX, width) - x, height: lerp(bubble.maxY, height) - y)
    }

    static func renderZoom(_ state: AppState, viewer: ViewerState, scale: Double, backdrop: Double,
                           into canvas: inout Canvas, pictures: AppView.PictureLookup,
                           banners: AppView.PictureLookup = { _ in .loading }) {
        let width = canvas.width, height = canvas.height
        HomeScreen.render(state, into: &canvas, banners: banners, backdrop: true)
        canvas.shade(1 - 0.75 * max(0, min(1, backdrop)), defaults: Canvas.ShadeDefaults(state.display))
        var face = Canvas(width: width, height: height)
        face.reordersText = canvas.reordersText
        ViewerScreen.render(state, viewer: viewer, into: &face, pictures: pictures)
        // The settled home stays behind, but not its words on the rows the face puts words on.
        canvas.drawFace(face, scaledInto: zoomRect(state, storyIndex: viewer.storyIndex, scale: scale, width: width, height: height))
    }

    /// Two faces of a cube seen from the front: the leaving face narrows as the arriving
    /// one widens; each is shortened and darkened towards its outer edge as it turns away.
    static func renderCube(_ state: AppState, leaving: ViewerState, arriving: ViewerState, forward: Bool, turn: Double,
                           into canvas: inout Canvas, pictures: AppView.PictureLookup) {
        let width = canvas.width, height = canvas.height
        let t = max(0, min(1, turn))
        let leavingFace = face(state, leaving, width: width, height: height, pictures: pictures)
        let arrivingFace = face(state, arriving, width: width, height: height, pictures: pictures)
        // The seam: forward, the next story comes in from the right (from the left, right to
        // left: the cube turns the other way).
        let fromRight = forward != state.isRightToLeft
        let seam = Int((Double(width) * (fromRight ? 1 - t : t)).rounded())
        let left = fromRight ? (leavingFace, t) : (arrivingFace, 1 - t)
        let right = fromRight ? (arrivingFace, 1 - t) : (leavingFace, t)
        let defaults = Canvas.ShadeDefaults(state.display)
        drawFace(left.0, turnedAway: left.1, columns: 0..<seam, outerEdgeOnLeft: true, defaults: defaults, into: &canvas)
        drawFace(right.0, turnedAway: right.1, columns: seam..<width, outerEdgeOnLeft: false, defaults: defaults, into: &canvas)
    }

    private static func face(_ state: AppState, _ viewer: ViewerState, width: Int, height: Int,
                             pictures: AppView.PictureLookup) -> Canvas? {
        guard hasStory(at: viewer.storyIndex, state) else { return nil } // no story on that side: the cube shows its dark inside
        var canvas = Canvas(width: width, height: height)
        canvas.reordersText = state.layout.bidi == .app
        ViewerScreen.render(state, viewer: viewer, into: &canvas, pictures: pictures)
        return canvas
    }

    /// A story is (or may come, with more pages) at this index of the row.
    private static func hasStory(at index: Int, _ state: AppState) -> Bool {
        index >= 0 && (index < state.feed.store.count || state.feed.store.hasMore)
    }

    /// One face squeezed into `columns`; `turnedAway` (0…1) is how far it has turned from
    /// the viewer: its outer edge loses up to a sixth of the height at each end and up to
    /// 70% of its light.
    private static func drawFace(_ source: Canvas?, turnedAway: Double, columns: Range<Int>, outerEdgeOnLeft: Bool,
                                 defaults: Canvas.ShadeDefaults, into canvas: inout Canvas) {
        let height = canvas.height
        let faceWidth = columns.count
        guard faceWidth > 0 else { return }
        let angle = turnedAway * .pi / 2
        // The face's top and bottom at a column (0 at the seam, 1 at the outer edge, which
        // turns away), and how much light it keeps there.
        func edges(_ tx: Int) -> (top: Int, bottom: Int, light: Double) {
            let local = faceWidth > 1 ? Double(tx - columns.lowerBound) / Double(faceWidth - 1) : 0
            let outward = outerEdgeOnLeft ? 1 - local : local
            let inset = Int((Double(height) / 6 * sin(angle) * outward).rounded())
            return (inset, height - inset, 1 - 0.7 * sin(angle) * outward)
        }
        let picture = source?.withoutText()
        // Row by row, each row written in one pass (the columns' edges worked out once).
        let columnEdges = columns.map(edges)
        for ty in 0..<height {
            canvas.writeRun(y: ty, columns: columns) { tx in
                let (top, bottom, light) = columnEdges[tx - columns.lowerBound]
                guard let picture, ty >= top, ty < bottom, bottom > top else { return Cell(glyph: .space, style: .plain) }
                let sx = (tx - columns.lowerBound) * picture.width / faceWidth
                let sy = (ty - top) * picture.height / (bottom - top)
                let (glyph, style) = Canvas.sample(picture, x: sx, y: sy)
                return Cell(glyph: glyph, style: light < 0.999 ? Canvas.shaded(style, light, defaults: defaults) : style)
            }
        }
        // Its text at its own size, on the row its face puts it at the run's middle, cut
        // where the face ends (the seam or the screen's edge).
        guard let source else { return }
        let runs = source.textRuns()
        let middles = Dictionary(runs.map { ($0.y, $0.x + $0.cells.count / 2) }, uniquingKeysWith: { first, _ in first })
        canvas.drawText(runs, faceWidth: source.width, columns: columns, row: { y in
            let middle = columns.lowerBound + (middles[y] ?? 0) * faceWidth / source.width
            let (top, bottom, _) = edges(min(max(middle, columns.lowerBound), columns.upperBound - 1))
            guard bottom > top else { return nil }
            return top + y * (bottom - top) / source.height
        }, restyle: { tx, style in
            let light = edges(min(max(tx, columns.lowerBound), columns.upperBound - 1)).light
            return light < 0.999 ? Canvas.shaded(style, light, defaults: defaults) : style
        })
    }
}
