import Foundation
import StoriesCells
import StoriesCore
import StoriesMedia

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
    static let format = "#{version}\t#{allow-passthrough}\t#{client_termname}\t#{client_termtype}\t#{client_termfeatures}"

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

    /// Asks the tmux server this process runs under, for this pane (`TMUX_PANE`); nil
    /// outside tmux, or when tmux cannot be run or takes longer than `timeout`.
    public static func ask(environment: [String: String], timeout: Duration = .milliseconds(500)) -> TmuxClient? {
        guard inside(environment) else { return nil }
        var arguments = ["display-message", "-p"]
        // Its own pane (`%` and digits), so the client is the one looking at it.
        if let pane = environment["TMUX_PANE"], pane.count <= 12, pane.first == "%", pane.dropFirst().allSatisfy(\.isASCII),
           pane.dropFirst().allSatisfy(\.isNumber) {
            arguments += ["-t", pane]
        }
        return run(arguments + [format], timeout: timeout).flatMap(parse)
    }

    /// `tmux -V`'s answer (tmux older than 3.3 does not know every format `ask` uses).
    public static func versionLine(environment: [String: String], timeout: Duration = .milliseconds(500)) -> String? {
        guard inside(environment), timeout > .milliseconds(1) else { return nil }
        return run(["-V"], timeout: timeout).map { SafeText.line($0.trimmingCharacters(in: .whitespacesAndNewlines), maxColumns: 30) }
    }

    /// Runs tmux with `arguments`: what it printed (at most 4 KB), or nil when it failed or
    /// took longer than `timeout` (then it is stopped).
    private static func run(_ arguments: [String], timeout: Duration) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do { try process.run() } catch { return nil }
        let (seconds, atto) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(atto / 1_000_000_000)
        guard exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { process.terminate(); return nil }
        guard process.terminationStatus == 0 else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile().prefix(4096)
        return String(decoding: data, as: UTF8.self)
    }
}

/// How pictures will be shown: a protocol, why, and how kitty pictures are placed.
public struct GraphicsChoice: Sendable, Equatable {
    public var `protocol`: GraphicsProtocol
    public var reason: String
    /// kitty: through Unicode placeholders (text in the cells) rather than placement
    /// commands — kitty 0.28 or later, Ghostty, and always through tmux.
    public var placeholders: Bool
    /// kitty's commands are wrapped for tmux to pass through to the terminal outside it.
    public var throughTmux: Bool

    public init(_ graphics: GraphicsProtocol, _ reason: String, placeholders: Bool = false, throughTmux: Bool = false) {
        self.protocol = graphics
        self.reason = reason
        self.placeholders = placeholders && graphics == .kitty
        self.throughTmux = throughTmux && graphics == .kitty
    }

    /// A protocol said outright (`--graphics`, stories.conf), placed as it can be where the
    /// app runs: kitty inside tmux only through placeholders passed through.
    public static func said(_ graphics: GraphicsProtocol, _ probe: ProbeResult, environment: [String: String]) -> GraphicsChoice {
        let tmux = TmuxClient.inside(environment)
        return GraphicsChoice(graphics, "as said", placeholders: tmux || KittyPlaceholders.supported(version: probe.replies.version),
                              throughTmux: tmux)
    }
}
