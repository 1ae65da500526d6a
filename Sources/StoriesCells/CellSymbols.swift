import Foundation

/// How picture cells are drawn: which block symbols a cell may be, each in two colours.
public enum CellSymbols: String, Sendable, CaseIterable {
    /// `▀`: one cell shows two pixels, top (foreground) and bottom (background).
    case half
    /// Quadrant blocks (`▘▝▖▗▚▞▛▜▙▟▀▄▌▐`): one cell shows 2×2 pixels in two colours.
    case quad
    /// Sextants (U+1FB00–1FB3B, with `▌▐█`): 2×3 pixels a cell.
    case sextant
    /// Octants (U+1CD00–1CDE5, with the halves, quadrants and quarters): 2×4 pixels a cell.
    case octant

    /// Output pixels per cell.
    public var pixelsPerCell: (x: Int, y: Int) {
        switch self {
        case .half: (1, 2)
        case .quad: (2, 2)
        case .sextant: (2, 3)
        case .octant: (2, 4)
        }
    }

    /// A set by name (`--symbols`, `symbols =`): one of the four, or `auto`, the richest the
    /// terminal is known to draw (`drawn(by:)`). nil for any other name.
    public static func named(_ name: String, environment: [String: String]) -> CellSymbols? {
        let lowered = name.lowercased()
        return lowered == "auto" ? drawn(by: environment).symbols : CellSymbols(rawValue: lowered)
    }

    /// Whether a character is one picture cells are made of (block elements, sextants,
    /// octants and the quarters among them): drawing passes that treat text (contrast, the
    /// text layer of a transition, a darkened band) leave these as pictures.
    public static func isBlockSymbol(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2580...0x259F, 0x1FB00...0x1FB3B, 0x1CD00...0x1CDE5, 0x1CEA0...0x1CEAB, 0x1FB82, 0x1FB85, 0x1FBE6, 0x1FBE7: true
        default: false
        }
    }

    /// The names `--symbols` and `symbols =` take.
    public static let names = ["auto", "half", "quad", "sextant", "octant"]

    /// The richest set the terminal is known to draw, told by its environment, and why.
    /// Sextants and octants come from fonts that few have, unless the terminal draws block
    /// elements itself, as these do: kitty (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`), foot
    /// (`TERM=foot…`), WezTerm and Ghostty (`TERM_PROGRAM`), and VTE (GNOME Terminal, Tilix
    /// and others: `VTE_VERSION`, sextants from 0.66, octants from 0.80). Quadrants are in
    /// every common monospace font, but a terminal that is not known may draw them with
    /// gaps: half blocks there, as before (`--symbols quad` asks for more).
    ///
    /// Octants are new (Unicode 16, 2024): a C library that does not know them gives them no
    /// width, and ncurses (and tmux) then draw nothing there. Where this system's does not
    /// (`octantsHaveWidth`; glibc before 2.41), a terminal that draws octants gets sextants.
    public static func drawn(by environment: [String: String], octantsHaveWidth: Bool = CellSymbols.octantsHaveWidth)
        -> (symbols: CellSymbols, reason: String) {
        let (symbols, reason) = richest(environment)
        guard symbols == .octant, !octantsHaveWidth else { return (symbols, reason) }
        return (.sextant, reason + ", but this system's C library does not know octants (Unicode 16): sextants")
    }

    /// Whether this system's C library gives octants a width of one cell (asked in a UTF-8
    /// locale of this thread's own, so the process's locale is left as it is).
    public static let octantsHaveWidth: Bool = width(of: 0x1CD00) == 1

    /// The cells the C library gives a character in a UTF-8 locale (nil when it cannot be
    /// asked). wcwidth is not in Swift's view of the C library: it is found as the symbol it is.
    public static func width(of scalar: UInt32) -> Int? {
        guard let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) else { return nil }
        defer { freelocale(utf8) }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        // The program's own symbols (dlopen(NULL): RTLD_DEFAULT is not NULL everywhere).
        guard let program = dlopen(nil, RTLD_LAZY) else { return nil }
        defer { dlclose(program) }
        guard let symbol = dlsym(program, "wcwidth") else { return nil }
        typealias Width = @convention(c) (Int32) -> Int32
        return Int(unsafeBitCast(symbol, to: Width.self)(Int32(bitPattern: scalar)))
    }

    private static func richest(_ environment: [String: String]) -> (symbols: CellSymbols, reason: String) {
        let term = environment["TERM"] ?? "", program = (environment["TERM_PROGRAM"] ?? "").lowercased()
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" { return (.octant, "kitty draws octants itself") }
        if term.hasPrefix("foot") { return (.octant, "foot draws octants itself") }
        if program == "wezterm" { return (.octant, "WezTerm draws octants itself") }
        if program == "ghostty" || term == "xterm-ghostty" { return (.octant, "Ghostty draws octants itself") }
        if let vte = environment["VTE_VERSION"].flatMap({ Int($0) }) {
            if vte >= 8000 { return (.octant, "VTE \(vte) draws octants itself") }
            if vte >= 6600 { return (.sextant, "VTE \(vte) draws sextants itself") }
            return (.quad, "VTE \(vte) draws quadrants itself")
        }
        if program == "iterm.app" { return (.quad, "iTerm2 draws block elements itself") }
        return (.half, "a terminal not known to draw more than half blocks")
    }
}
