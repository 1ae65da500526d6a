import StoriesCells

/// What says how pictures can be shown: the protocol said outright (`--graphics`,
/// stories.conf), the terminal's answers to the probe, its environment and, inside tmux,
/// what tmux says of the terminal outside it. The runtime reports them
/// (`AppEvent.graphics`) at start and when a late answer adds one; the reducer decides the
/// protocol from them (`decided`) and asks the runtime to show pictures that way
/// (`AppEffect.showPictures`).
public struct GraphicsFacts: Equatable, Sendable {
    /// The protocol said outright: used as said (a terminal may draw what it does not announce).
    public var said: GraphicsProtocol?
    /// Anything was asked (false: not a terminal).
    public var asked: Bool
    /// The terminal answered DA1, which ends its answers.
    public var answered: Bool
    /// It answered the kitty graphics query with OK.
    public var kittyAnswered: Bool
    /// It read the shared-memory object the probe offered (`t=s`): it runs on this machine.
    public var kittySharedMemory: Bool
    /// Its DA1 answer lists sixel (4).
    public var sixelListed: Bool
    /// Its XTVERSION answer ("kitty(0.31.0)").
    public var version: String?
    /// `TERM_PROGRAM` and `LC_TERMINAL`, for iTerm2's inline images.
    public var program: String
    public var lcTerminal: String
    /// The process runs under tmux (`TMUX`), and what tmux said (nil: it could not be asked).
    public var insideTmux: Bool
    public var tmux: TmuxClient?
    /// A replay stepped through on its virtual clock (`--step`): cells, whatever the terminal.
    public var stepping: Bool
    /// The largest sixel picture the terminal said it takes (XTSMGRAPHICS), and its window
    /// in pixels at start (cells × the cell's pixels), when known.
    public var sixelGeometry: PixelArea?
    public var windowPixels: PixelArea?
    /// The terminal says a cell's size in pixels (real pixels are sized by it).
    public var cellSizeKnown: Bool

    public init(said: GraphicsProtocol? = nil, asked: Bool, answered: Bool = false, kittyAnswered: Bool = false,
                kittySharedMemory: Bool = false, sixelListed: Bool = false, version: String? = nil, program: String = "", lcTerminal: String = "",
                insideTmux: Bool = false, tmux: TmuxClient? = nil, stepping: Bool = false, sixelGeometry: PixelArea? = nil,
                windowPixels: PixelArea? = nil, cellSizeKnown: Bool = true) {
        self.said = said
        self.asked = asked
        self.answered = answered
        self.kittyAnswered = kittyAnswered
        self.kittySharedMemory = kittySharedMemory
        self.sixelListed = sixelListed
        self.version = version
        self.program = program
        self.lcTerminal = lcTerminal
        self.insideTmux = insideTmux
        self.tmux = tmux
        self.stepping = stepping
        self.sixelGeometry = sixelGeometry
        self.windowPixels = windowPixels
        self.cellSizeKnown = cellSizeKnown
    }

    /// The largest sixel picture, when it is a limit: xterm answers XTSMGRAPHICS with its
    /// window's size, or its `maxGraphicSize` (1000×1000 unless set) when that is smaller —
    /// only the second is a limit (a larger photo is cells).
    public var sixelLimit: PixelArea? {
        guard let geometry = sixelGeometry, let window = windowPixels,
              geometry.width < window.width || geometry.height < window.height else { return nil }
        return geometry
    }

    /// What to say at start when the pictures decided cannot be had: pixels need the cell's
    /// size, which this terminal does not say.
    public var note: String? {
        let graphics = decided.protocol
        guard graphics.showsPixels, !cellSizeKnown else { return nil }
        return "\(graphics.rawValue) pictures need the cell's size in pixels, which this terminal does not say: photos are cells"
    }

    /// The protocol pictures are shown with, and why.
    public var decided: GraphicsChoice {
        if stepping { return GraphicsChoice(.cells, "a replay stepped through shows cells") }
        if let said {
            return GraphicsChoice(said, "as said", placeholders: insideTmux || GraphicsChoice.drawsPlaceholders(version: version),
                                  throughTmux: insideTmux, sharedMemory: kittySharedMemory && !insideTmux)
        }
        if insideTmux { return decidedInTmux }
        if kittyAnswered {
            return GraphicsChoice(.kitty, "it answered the kitty graphics query", placeholders: GraphicsChoice.drawsPlaceholders(version: version),
                                  sharedMemory: kittySharedMemory)
        }
        if sixelListed { return GraphicsChoice(.sixel, "its DA1 answer lists sixel (4)") }
        if ["iTerm.app", "WezTerm", "mintty"].contains(program) || lcTerminal == "iTerm2" {
            return GraphicsChoice(.iterm, "TERM_PROGRAM=\(SafeText.line(program, maxColumns: 20)) shows iTerm2 inline images")
        }
        if !asked { return GraphicsChoice(.cells, "not a terminal: nothing was asked") }
        if !answered { return GraphicsChoice(.cells, "the terminal answered nothing") }
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
    var decidedInTmux: GraphicsChoice {
        guard let tmux else { return GraphicsChoice(.cells, "inside tmux, which did not say what terminal is outside it") }
        if sixelListed, tmux.features.contains("sixel") {
            return GraphicsChoice(.sixel, "inside tmux \(tmux.version), which draws sixel itself (its DA1 answer lists 4)")
        }
        let outside = tmux.terminalType.isEmpty ? (tmux.terminalName.isEmpty ? "the terminal outside" : "the terminal outside (TERM=\(tmux.terminalName))")
            : tmux.terminalType
        let placeholders = GraphicsChoice.drawsPlaceholders(version: tmux.terminalType)
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

/// The pictures decided, and the facts they were decided from (`AppState.graphics`).
public struct GraphicsDecision: Equatable, Sendable {
    public var facts: GraphicsFacts
    public var choice: GraphicsChoice

    /// New facts: decided again while the pictures are cells; pictures already shown in
    /// pixels stay as they are (a late answer never swaps one protocol for another under
    /// the pictures on screen) — but kitty that says late it reads shared memory takes
    /// pictures that way from then on (the same pictures, sent differently).
    public static func deciding(_ facts: GraphicsFacts, after previous: GraphicsDecision?) -> GraphicsDecision {
        guard let previous, previous.choice.protocol.showsPixels else { return GraphicsDecision(facts: facts, choice: facts.decided) }
        let decided = facts.decided
        if !previous.choice.sharedMemory, decided.sharedMemory, decided.protocol == previous.choice.protocol,
           decided.placeholders == previous.choice.placeholders, decided.throughTmux == previous.choice.throughTmux {
            var choice = previous.choice
            choice.sharedMemory = true
            return GraphicsDecision(facts: facts, choice: choice)
        }
        return GraphicsDecision(facts: facts, choice: previous.choice)
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
    /// kitty takes pictures' pixels through shared memory (`t=s`): it read the probe's
    /// object, so it runs on this machine (issue 48, point 4). Never through tmux.
    public var sharedMemory: Bool

    public init(_ graphics: GraphicsProtocol, _ reason: String, placeholders: Bool = false, throughTmux: Bool = false,
                sharedMemory: Bool = false) {
        self.protocol = graphics
        self.reason = reason
        self.placeholders = placeholders && graphics == .kitty
        self.throughTmux = throughTmux && graphics == .kitty
        self.sharedMemory = sharedMemory && graphics == .kitty && !throughTmux
    }

    /// The same pictures drawn the same way (the reason aside).
    public func drawsAlike(_ other: GraphicsChoice) -> Bool {
        self.protocol == other.protocol && placeholders == other.placeholders && throughTmux == other.throughTmux
            && sharedMemory == other.sharedMemory
    }

    /// Whether a terminal by its XTVERSION answer draws kitty's Unicode placeholders: kitty
    /// from 0.28, Ghostty. nil or anything else: no.
    public static func drawsPlaceholders(version: String?) -> Bool {
        guard let version else { return false }
        let lowered = version.lowercased()
        if lowered.hasPrefix("ghostty") { return true }
        guard lowered.hasPrefix("kitty("), let close = lowered.firstIndex(of: ")") else { return false }
        let numbers = lowered[lowered.index(lowered.startIndex, offsetBy: 6)..<close].split(separator: ".").map { Int($0) ?? -1 }
        guard numbers.count >= 2, numbers[0] >= 0, numbers[1] >= 0 else { return false }
        return numbers[0] > 0 || numbers[1] >= 28
    }
}
