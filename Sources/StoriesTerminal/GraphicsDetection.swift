import CNcursesw
import StoriesCore
import StoriesMedia
import StoriesCells

/// How pictures can be shown: real pixels through one of three protocols, or cells.
extension GraphicsProtocol {
    /// The protocol a terminal takes, from its answers and its environment, and why.
    /// `tmux`: inside tmux (`TMUX` set), what tmux says of itself and the terminal outside
    /// it (nil where it could not be asked).
    public static func detect(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?) -> GraphicsChoice {
        if TmuxClient.inside(environment) { return detectInTmux(probe, tmux) }
        let version = probe.replies.version
        if probe.replies.kittyGraphics == true {
            return GraphicsChoice(.kitty, "it answered the kitty graphics query", placeholders: KittyPlaceholders.supported(version: version))
        }
        if probe.replies.attributes?.contains(4) == true { return GraphicsChoice(.sixel, "its DA1 answer lists sixel (4)") }
        let program = environment["TERM_PROGRAM"] ?? ""
        if ["iTerm.app", "WezTerm", "mintty"].contains(program) || environment["LC_TERMINAL"] == "iTerm2" {
            return GraphicsChoice(.iterm, "TERM_PROGRAM=\(SafeText.line(program, maxColumns: 20)) shows iTerm2 inline images")
        }
        if !probe.asked { return GraphicsChoice(.cells, "not a terminal: nothing was asked") }
        if !probe.replies.sawDA1 { return GraphicsChoice(.cells, "the terminal answered nothing within 100 ms") }
        return GraphicsChoice(.cells, "the terminal answered no picture query")
    }

    /// Inside tmux the probe's answers are tmux's own. Pictures tmux keeps on screen through
    /// its redraws, window switches and scrolling are the only ones worth showing:
    /// - sixel where tmux draws sixel itself (built with sixel, 3.4 and later: it then lists
    ///   4 in its own DA1 answer) and the terminal outside shows them;
    /// - kitty's Unicode placeholders, passed through to a kitty of 0.28 or later or
    ///   Ghostty outside: the picture is sent once through the passthrough and the cells
    ///   that show it are text, which tmux keeps and draws again like any other.
    /// A picture written through the passthrough at the cursor (sixel, iTerm2, kitty's
    /// placement commands) lands where the outside terminal's cursor happens to be and is
    /// wiped by tmux's next redraw: cells instead.
    static func detectInTmux(_ probe: ProbeResult, _ tmux: TmuxClient?) -> GraphicsChoice {
        guard let tmux else { return GraphicsChoice(.cells, "inside tmux, which did not say what terminal is outside it") }
        if probe.replies.attributes?.contains(4) == true, tmux.features.contains("sixel") {
            return GraphicsChoice(.sixel, "inside tmux \(tmux.version), which draws sixel itself (its DA1 answer lists 4)")
        }
        let outside = tmux.terminalType.isEmpty ? (tmux.terminalName.isEmpty ? "the terminal outside" : "the terminal outside (TERM=\(tmux.terminalName))")
            : tmux.terminalType
        let placeholders = KittyPlaceholders.supported(version: tmux.terminalType)
        switch tmux.passthrough {
        case true? where placeholders:
            return GraphicsChoice(.kitty, "through tmux's passthrough to \(outside), as Unicode placeholders", placeholders: true, throughTmux: true)
        case true?:
            let kitty = tmux.terminalType.lowercased().hasPrefix("kitty") || tmux.terminalName == "xterm-kitty"
            return GraphicsChoice(.cells, kitty
                ? "inside tmux: \(outside) shows pictures tmux keeps only from kitty 0.28 on (Unicode placeholders)"
                : "inside tmux: \(outside) shows no pictures tmux keeps (kitty 0.28 or later and Ghostty do)")
        case false?:
            return GraphicsChoice(.cells, placeholders
                ? "inside tmux, which passes no pictures through to \(outside) (allow-passthrough is off)"
                : "inside tmux, which passes no pictures through (allow-passthrough is off)")
        case nil:
            return GraphicsChoice(.cells, "inside tmux, which did not say whether it passes pictures through")
        }
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
