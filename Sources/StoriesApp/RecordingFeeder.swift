import StoriesCore

/// The one way a recorded entry reaches the engine, for every kind of replay: headless on
/// the virtual clock or the system one, live in the terminal (`--replay`), and a step at a
/// time (`--step`).
@MainActor
public enum RecordingFeeder {
    /// Whose screen the replay runs on: one the size and cells the recording says
    /// (headless), or the terminal's own, which keeps its size and its cells (the
    /// recording's resizes and cell shapes are skipped there).
    public enum Screen: Sendable {
        case recorded, terminal
    }

    /// Feeds one entry; false at the recording's end (nothing after it is fed).
    @discardableResult
    public static func feed(_ entry: InputRecording.Entry, to engine: AppEngine, screen: Screen) -> Bool {
        switch entry {
        case .input(let event):
            engine.input(event)
        case .resize(let width, let height):
            if screen == .recorded { engine.resize(width: width, height: height) }
        case .cellAspect(let aspect):
            // The cell's new shape, the rest of the display as it is (its colours, background,
            // symbols, pictures); a run that draws with a cell size of its own (`stories
            // render`: the font's) keeps it.
            if screen == .recorded, engine.display.cellPixels == nil { engine.setDisplay(engine.display.withCellAspect(aspect)) }
        case .end:
            return false
        }
        return true
    }
}
