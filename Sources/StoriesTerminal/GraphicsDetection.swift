import CNcursesw
import StoriesCore
import StoriesMedia
import StoriesCells

/// What says how pictures can be shown, gathered from the probe and the environment; the
/// reducer decides from it (`GraphicsFacts.decided`).
extension GraphicsFacts {
    /// `tmux`: inside tmux (`TMUX` set), what tmux says of itself and the terminal outside
    /// it (nil where it could not be asked). `said`: the protocol said outright.
    public init(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?, said: GraphicsProtocol? = nil,
                stepping: Bool = false, windowPixels: PixelArea? = nil, cellSizeKnown: Bool = true) {
        self.init(said: said, asked: probe.asked, answered: probe.replies.sawDA1, kittyAnswered: probe.replies.kittyGraphics == true,
                  kittySharedMemory: probe.replies.kittySharedMemory == true,
                  sixelListed: probe.replies.attributes?.contains(4) == true, version: probe.replies.version,
                  program: environment["TERM_PROGRAM"] ?? "", lcTerminal: environment["LC_TERMINAL"] ?? "",
                  insideTmux: TmuxClient.inside(environment), tmux: tmux, stepping: stepping,
                  sixelGeometry: probe.replies.sixelGeometry.map { PixelArea(width: $0.width, height: $0.height) }, windowPixels: windowPixels,
                  cellSizeKnown: cellSizeKnown)
    }
}

extension GraphicsProtocol {
    /// The protocol a terminal takes, from its answers and its environment, and why (as
    /// the reducer decides it: `GraphicsFacts.decided`).
    public static func detect(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?) -> GraphicsChoice {
        GraphicsFacts(probe, environment: environment, tmux: tmux).decided
    }
}

/// What a terminal's terminfo entry says, read without starting ncurses.
public enum TerminalCapabilities {
    /// The colours `term`'s entry has (`colors`), or nil without an entry.
    public static func colours(term: String) -> Int? {
        guard !term.isEmpty, term.utf8.count < 128, !term.contains("/") else { return nil }
        let count = term.withCString { stories_terminfo_colors($0) }
        return count > 0 ? Int(count) : nil
    }
}
