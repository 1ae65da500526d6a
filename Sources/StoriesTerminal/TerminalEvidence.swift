import CNcursesw
import Foundation
import StoriesCore

/// What the terminal said about itself before the screen opens, for choosing the terminfo
/// entry to draw with (issue 45, points 1 and 2).
public struct TerminalEvidence: Sendable {
    /// Why it is taken to show 24-bit colour (`DirectColourEvidence`); nil: terminfo decides.
    public var truecolor: String?
    /// It answered DA1 as a VT100-family terminal does: a TERM with no entry here is drawn
    /// with a stand-in rather than refused.
    public var answersLikeXterm: Bool
    /// The modes the terminal had before the probe left it raw (`ProbeResult.savedModes`):
    /// the modes the screen gives back at the end.
    public var shellModes: termios?

    public init(truecolor: String?, answersLikeXterm: Bool, shellModes: termios? = nil) {
        self.truecolor = truecolor
        self.answersLikeXterm = answersLikeXterm
        self.shellModes = shellModes
    }

    /// From the environment alone (no probe): `COLORTERM`, and no stand-in.
    public static func environment(_ environment: [String: String]) -> TerminalEvidence {
        TerminalEvidence(truecolor: DirectColorEntry.wantsTruecolor(environment) ? "COLORTERM" : nil, answersLikeXterm: false)
    }

    /// The probe's answers, the environment and tmux's word.
    public static func from(_ probe: ProbeResult, environment: [String: String], tmux: TmuxClient?) -> TerminalEvidence {
        TerminalEvidence(truecolor: DirectColourEvidence.find(environment: environment, replies: probe.replies, tmux: tmux),
                         answersLikeXterm: probe.replies.sawDA1, shellModes: probe.savedModes)
    }
}

/// Which terminfo entry the screen opens for `TERM`.
public enum TerminalEntry {
    /// The entry a terminal with an unknown TERM is drawn with: every terminal that answers
    /// DA1 reads xterm's sequences (ncurses-base always installs this one).
    public static let standIn = "xterm-256color"

    /// Whether `term` has a terminfo entry here.
    public static func exists(_ term: String) -> Bool {
        guard !term.isEmpty, term.utf8.count < 128, !term.contains("/") else { return false }
        return term.withCString { stories_terminfo_exists($0) } == 1
    }

    /// The entry to open for `term`, and the line that says so when it is not `term`'s own;
    /// nil when `term` is unknown and the terminal did not answer like an xterm.
    public static func choose(_ term: String, evidence: TerminalEvidence, exists: (String) -> Bool = exists) -> (name: String, note: String?)? {
        if exists(term) { return (term, nil) }
        guard evidence.answersLikeXterm, !term.isEmpty else { return nil }
        let shown = SafeText.line(term, maxColumns: 24)
        return (standIn, "TERM=\(shown) has no terminfo entry here: drawn as \(standIn). "
            + "Install its terminfo (from your own machine: infocmp -x \(DirectColorEntry.isPlainName(term) ? term : "NAME") | ssh HOST -- tic -x -)")
    }
}
