import StoriesCore
import StoriesMedia

/// The off-screen backend: renders app state into a canvas of a chosen size, exactly as the
/// ncurses backend would receive it, and reads it back as text. Tests and (later) the
/// `--headless` mode use it.
public struct TestBackend: Sendable {
    public private(set) var canvas: Canvas

    public init(width: Int, height: Int) {
        canvas = Canvas(width: width, height: height)
    }

    public mutating func draw(_ state: AppState, bindings: KeyBindings = .standard,
                              pictures: AppView.PictureLookup = { _ in .loading }) {
        canvas = AppView.render(state, width: canvas.width, height: canvas.height, bindings: bindings, pictures: pictures)
    }

    public mutating func resize(width: Int, height: Int) {
        canvas = Canvas(width: width, height: height)
    }

    public var lines: [String] { Snapshot.lines(of: canvas) }
    public var text: String { lines.joined(separator: "\n") }
    public func snapshot(styles: Bool = false) -> String { Snapshot.text(of: canvas, styles: styles) }
}
