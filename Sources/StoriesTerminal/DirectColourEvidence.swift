import Foundation
import StoriesCore

/// Whether a terminal shows 24-bit colour, from what it says of itself before what its
/// terminfo entry says (issue 45, point 1). Debian's xterm runs with `TERM=xterm`, whose
/// entry has 8 colours, though XTerm has drawn direct colour since patch 331; a person who
/// ssh's in from foot or Ghostty has a TERM the server may not even know. In order:
/// `COLORTERM`; the terminal's answers — a 24-bit background read back through DECRQSS (the
/// notcurses method), `RGB` or `Tc` in its XTGETTCAP answer, its name and version from
/// XTVERSION; inside tmux, the `RGB` feature tmux found outside; VTE's, Konsole's and
/// mlterm's own variables. Nothing found: terminfo decides, as before.
public enum DirectColourEvidence {
    /// Why the terminal is taken to show 24-bit colour, or nil when nothing says it does.
    public static func find(environment: [String: String], replies: ProbeReplies, tmux: TmuxClient?) -> String? {
        if DirectColorEntry.wantsTruecolor(environment) {
            return "COLORTERM=\(SafeText.line(environment["COLORTERM"] ?? "", maxColumns: 12))"
        }
        if TmuxClient.inside(environment) {
            // tmux takes 24-bit colour from its panes and passes it on where the terminal
            // outside has it (its RGB feature); else it maps it to 256 colours itself.
            guard let tmux, tmux.features.contains(where: { $0 == "RGB" || $0 == "Tc" }) else { return nil }
            return "tmux \(tmux.version) passes it on (the terminal outside has RGB)"
        }
        let term = environment["TERM"] ?? ""
        if term.hasPrefix("screen") || !(environment["STY"] ?? "").isEmpty { return nil } // GNU screen 4 passes none
        if replies.keepsDirectColour == true { return "it read a 24-bit colour back as set (DECRQSS)" }
        if replies.rgbCapability == true { return "its own description has RGB (XTGETTCAP)" }
        if let version = replies.version, let name = knownTerminal(version) {
            return "it says it is \(SafeText.line(version, maxColumns: 30))\(name.isEmpty ? "" : ", \(name)")"
        }
        if let vte = environment["VTE_VERSION"].flatMap({ Int($0.prefix(8)) }), vte >= 3600 { return "VTE_VERSION=\(vte) (VTE 0.36 or later)" }
        if !(environment["KONSOLE_VERSION"] ?? "").isEmpty { return "KONSOLE_VERSION is set (Konsole)" }
        // mlterm (3.9 in Debian 12) answers neither XTVERSION nor the DECRQSS read-back, and
        // its TERM=mlterm entry says 8 colours; it has drawn 24-bit colour since 3.1.
        if let mlterm = environment["MLTERM"], !mlterm.isEmpty {
            return "MLTERM=\(SafeText.line(mlterm, maxColumns: 12)) (mlterm)"
        }
        return nil
    }

    /// The terminals whose XTVERSION answer says they take 24-bit colour: nil for another,
    /// else a note to say after the answer ("" when the name says it all).
    static func knownTerminal(_ version: String) -> String? {
        let lower = version.lowercased()
        if lower.hasPrefix("xterm(") {
            let patch = Int(lower.dropFirst(6).prefix { $0.isNumber }.prefix(6)) ?? 0
            return patch >= 331 ? "which has drawn direct colour since patch 331" : nil
        }
        if lower.hasPrefix("vte(") {
            let number = Int(lower.dropFirst(4).prefix { $0.isNumber }.prefix(8)) ?? 0
            return number >= 3600 ? "" : nil
        }
        let names = ["kitty", "wezterm", "foot", "konsole", "mlterm", "alacritty", "ghostty", "iterm2", "contour", "mintty",
                     "rio", "tabby", "warp", "hyper"]
        return names.contains { lower.hasPrefix($0) } ? "" : nil
    }
}
