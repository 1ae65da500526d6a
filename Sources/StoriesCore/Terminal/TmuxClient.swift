/// What the tmux server this process runs under (`TMUX`) says of itself and of the terminal
/// outside it (issue 31, point 1). Inside tmux the probe's questions reach tmux, which
/// answers for itself; the terminal the person looks at is tmux's client, and tmux knows it:
/// its `TERM` (`client_termname`), its XTVERSION answer (`client_termtype`, asked by tmux
/// 3.3 and later when it attaches) and the features tmux found (`client_termfeatures`).
public struct TmuxClient: Sendable, Equatable {
    /// tmux's version ("3.3a").
    public var version: String
    /// `allow-passthrough` on (or `all`): escape sequences wrapped in `ESC P tmux;` reach
    /// the terminal outside. nil: tmux did not say.
    public var passthrough: Bool?
    /// The terminal outside: its `TERM` ("xterm-kitty"), its XTVERSION answer
    /// ("kitty(0.28.1)"; empty where it gave none or tmux is older than 3.3), and the
    /// features tmux uses there ("RGB", "sixel", …).
    public var terminalName: String
    public var terminalType: String
    public var features: [String]

    public init(version: String, passthrough: Bool?, terminalName: String = "", terminalType: String = "", features: [String] = []) {
        self.version = version
        self.passthrough = passthrough
        self.terminalName = terminalName
        self.terminalType = terminalType
        self.features = features
    }

    /// The format `ask` has tmux fill in: one line, fields apart by tabs.
    public static let format = "#{version}\t#{allow-passthrough}\t#{client_termname}\t#{client_termtype}\t#{client_termfeatures}"

    /// `format`'s line as tmux printed it; nil for anything else. Every field is made
    /// printable and short: it is tmux's, but it is the outside terminal's answer.
    public static func parse(_ output: String) -> TmuxClient? {
        let line = output.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { SafeText.line(String($0.prefix(200)), maxColumns: 60) }
        guard fields.count == 5, !fields[0].isEmpty else { return nil }
        let passthrough: Bool? = switch fields[1] {
        case "1", "on", "all": true
        case "0", "off": false
        default: nil
        }
        let features = fields[4].split(separator: ",").map { String($0.prefix(20)) }.filter { !$0.isEmpty }.prefix(40)
        return TmuxClient(version: fields[0], passthrough: passthrough, terminalName: fields[2], terminalType: fields[3],
                          features: Array(features))
    }

    /// Whether this process runs under tmux.
    public static func inside(_ environment: [String: String]) -> Bool { !(environment["TMUX"] ?? "").isEmpty }
}
