import StoriesCells
import Foundation

/// Settings from `stories.conf`, beside keys.conf in the config folder:
///
///     # stories.conf
///     reduce-motion = on     # instant cuts instead of present, dismiss and cube animations
///     colors = 256           # truecolor, 256, 16, 8 or none (at most what the terminal has)
///     fit = fill             # photos: fit (whole, the default) or fill (cropped to the screen)
///     preload = off          # on (the default) or off
///     network = 3g           # a pretend network: local, wifi, 4g, 3g, offline
///     seed = 42              # the pretend network's draws, and --synthetic's names
///     theme = light          # auto (the default: as the terminal answers), dark or light
///     pause-on-blur = off    # on (the default): a story waits while the terminal is in the background
///     symbols = sextant      # auto (the default: the richest the terminal draws), half, quad, sextant or octant
///     graphics = cells       # auto (the default: what the terminal answers), kitty, sixel, iterm or cells
///     sound = off            # on (the default): videos play their sound where there is a sound server; m toggles
///     volume = 60            # 0–100 (the default 100)
///     cursor = focus         # auto (the default: focus where a screen reader is likely), focus or hidden
///     screen-reader = on     # off (the default); on: numbered lines instead of the full screen (--screen-reader)
///     direction = rtl        # auto (the default: as the feed says, else the locale), ltr or rtl
///     bidi = terminal        # auto (the default), app (stories reorders right-to-left text) or terminal (it does)
///
/// One `name = value` per line; `#` starts a comment. An unknown name or a bad value is an
/// error naming the file and line. A recording's setup and command-line flags win over the
/// file.
public struct AppSettings: Equatable, Sendable {
    public var reduceMotion = false
    /// A colour depth by name (`SessionSetup.colorNames`); nil: what the terminal says.
    public var colors: String?
    /// Photos shown whole (true) or cropped to fill the screen; nil: the app's default.
    public var fit: Bool?
    public var preload: PreloadPolicy?
    public var network: NetworkProfile?
    public var seed: UInt64?
    /// Playback waits while the terminal window is in the background (where the terminal
    /// reports focus); nil: the default, on.
    public var pauseOnBlur: Bool?
    /// Which background text is kept readable on; nil: auto.
    public var theme: ThemeChoice?
    /// The block symbols pictures are drawn with, by name (`CellSymbols.names`); nil: auto.
    public var symbols: String?
    /// How photos are shown in real pixels (`GraphicsProtocol`); nil: auto.
    public var graphics: GraphicsProtocol?
    /// Videos' sound on or off; nil: on.
    public var sound: Bool?
    /// How loud, 0–100; nil: 100.
    public var volume: Int?
    /// Where the terminal's cursor is (`CursorMode`); nil: auto.
    public var cursor: CursorMode?
    /// The screen-reader mode instead of the full screen; nil: off.
    public var screenReader: Bool?
    /// Which way the layout reads (`LayoutDirection`); nil: auto.
    public var direction: LayoutDirection?
    /// Who reorders right-to-left text (`BidiMode`); nil: auto.
    public var bidi: BidiMode?

    public static let names = ["reduce-motion", "colors", "fit", "preload", "network", "seed", "pause-on-blur", "theme", "symbols",
                               "graphics", "sound", "volume", "cursor", "screen-reader", "direction", "bidi"]
    /// What `graphics` (and `--graphics`) take.
    public static let graphicsNames = ["auto"] + GraphicsProtocol.allCases.map(\.rawValue)

    public init(reduceMotion: Bool = false) {
        self.reduceMotion = reduceMotion
    }

    /// `$XDG_CONFIG_HOME/stories/stories.conf`, or `~/.config/stories/stories.conf`.
    public static func configFile(environment: [String: String]) -> URL {
        KeyBindings.configDirectory(environment: environment).appendingPathComponent("stories.conf")
    }

    public func applying(_ text: String, file: String) throws(ConfigError) -> AppSettings {
        var result = self
        for (offset, rawLine) in TextLines.split(text).enumerated() {
            let number = offset + 1
            let line = (rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            func fail(_ reason: String) -> ConfigError { ConfigError(file: file, line: number, reason: reason) }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else { throw fail("expected: name = value") }
            let value = parts[1]
            let quoted = SafeText.line(value, maxColumns: SafeText.Limit.quoted)
            // A setting whose `auto` is nil: the value read by `parse`, or an error saying what it takes.
            func autoOr<T>(_ parse: (String) -> T?, _ takes: String) throws(ConfigError) -> T? {
                if value.lowercased() == "auto" { return nil }
                guard let chosen = parse(value.lowercased()) else { throw fail("\(takes); got '\(quoted)'") }
                return chosen
            }
            switch parts[0].lowercased() {
            case "reduce-motion":
                guard let on = Self.boolean(value) else { throw fail("reduce-motion takes on or off; got '\(quoted)'") }
                result.reduceMotion = on
            case "theme":
                guard let choice = ThemeChoice(rawValue: value.lowercased()) else { throw fail("theme takes auto, dark or light; got '\(quoted)'") }
                result.theme = choice
            case "symbols":
                guard CellSymbols.names.contains(value.lowercased()) else {
                    throw fail("symbols takes \(CellSymbols.names.joined(separator: ", ")); got '\(quoted)'")
                }
                result.symbols = value.lowercased()
            case "graphics":
                result.graphics = try autoOr(GraphicsProtocol.init(name:), "graphics takes \(Self.graphicsNames.joined(separator: ", "))")
            case "sound":
                guard let on = Self.boolean(value) else { throw fail("sound takes on or off; got '\(quoted)'") }
                result.sound = on
            case "volume":
                guard value.count <= 4, let level = Int(value), (0...100).contains(level) else {
                    throw fail("volume takes a whole number from 0 to 100; got '\(quoted)'")
                }
                result.volume = level
            case "direction":
                result.direction = try autoOr(LayoutDirection.init(rawValue:), "direction takes auto, ltr or rtl")
            case "bidi":
                result.bidi = try autoOr(BidiMode.init(rawValue:), "bidi takes auto, app or terminal")
            case "screen-reader":
                guard let on = Self.boolean(value) else { throw fail("screen-reader takes on or off; got '\(quoted)'") }
                result.screenReader = on
            case "cursor":
                result.cursor = try autoOr(CursorMode.init(rawValue:), "cursor takes auto, focus or hidden")
            case "pause-on-blur":
                guard let on = Self.boolean(value) else { throw fail("pause-on-blur takes on or off; got '\(quoted)'") }
                result.pauseOnBlur = on
            case "colors", "colours":
                guard let name = SessionSetup.colorName(value) else {
                    throw fail("colors takes \(SessionSetup.colorNames.joined(separator: ", ")); got '\(quoted)'")
                }
                result.colors = name
            case "fit":
                switch value.lowercased() {
                case "fit": result.fit = true
                case "fill": result.fit = false
                default: throw fail("fit takes fit (the whole photo) or fill (cropped to the screen); got '\(quoted)'")
                }
            case "preload":
                guard let policy = PreloadPolicy(rawValue: value.lowercased()) else { throw fail("preload takes on or off; got '\(quoted)'") }
                result.preload = policy
            case "network":
                guard let profile = NetworkProfile.named[value.lowercased()] else {
                    throw fail("network takes \(NetworkProfile.named.keys.sorted().joined(separator: ", ")); got '\(quoted)'")
                }
                result.network = profile
            case "seed":
                guard let seed = UInt64(value), seed <= SessionSetup.maxSeed else {
                    throw fail("seed takes a whole number from 0 to \(SessionSetup.maxSeed); got '\(quoted)'")
                }
                result.seed = seed
            default:
                throw fail("unknown setting '\(SafeText.line(parts[0], maxColumns: SafeText.Limit.quoted))' (\(Self.names.joined(separator: ", ")))")
            }
        }
        return result
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }
}
