/// Why the terminal could not be set up, said plainly.
public enum TerminalError: Error, Equatable, CustomStringConvertible {
    case notATerminal
    case termNotSet
    case unknownTerminal(String)
    /// A terminal type without cursor addressing (terminfo's `cup`), like `dumb`.
    case cannotMoveCursor(String)

    public var description: String {
        switch self {
        case .notATerminal:
            "standard input and output must be a terminal (run stories in a terminal, not through a pipe)"
        case .termNotSet:
            "TERM is not set; set it to your terminal's type, e.g. TERM=xterm-256color"
        case .unknownTerminal(let name):
            "unknown terminal type '\(name)' (from TERM): no terminfo entry for it; try TERM=xterm-256color"
        case .cannotMoveCursor(let name):
            "the terminal type '\(name)' (from TERM) cannot move its cursor, and stories draws its screen cell by cell; "
                + "run it in a terminal that can (TERM=xterm-256color, tmux-256color, …)"
        }
    }
}
