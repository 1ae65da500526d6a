import Foundation
import StoriesCore

/// How a terminal that takes 24-bit colour gets it through ncurses, which sends it only
/// through a terminfo entry with direct colour (`RGB`, `colors#0x1000000`).
///
/// When the terminal shows 24-bit colour (`COLORTERM`, or its own answers:
/// `DirectColourEvidence`): the direct entry of the terminal's family
/// (`xterm-kitty` → `kitty-direct`, VTE → `vte-direct`, tmux → `tmux-direct` …) when it is
/// installed (Debian's ncurses-term has most); else an entry derived from the terminal's own
/// — its keys and capabilities, with direct colour — compiled with `tic` into the app's cache;
/// else `xterm-direct` for an xterm-like terminal. Only when none of that can be had is there
/// a note, one short line true for that terminal.
public struct DirectColorEntry: Equatable, Sendable {
    /// The entry to open the screen with.
    public var name: String
    /// Where it lives when the app compiled it (the `TERMINFO` directory to open it from).
    public var directory: String?

    /// Where terminfo entries are installed.
    public static let systemDirectories = ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]

    /// COLORTERM says the terminal takes 24-bit colour.
    public static func wantsTruecolor(_ environment: [String: String]) -> Bool {
        let colorterm = environment["COLORTERM"]?.lowercased()
        return colorterm == "truecolor" || colorterm == "24bit"
    }

    /// The direct-colour entries of `term`'s family, best first (the environment names some
    /// terminals better than TERM does: VTE_VERSION, KONSOLE_VERSION, TERM_PROGRAM, TMUX).
    public static func familyEntries(of term: String, environment: [String: String]) -> [String] {
        let name = term.lowercased()
        let program = environment["TERM_PROGRAM"]?.lowercased() ?? ""
        func has(_ key: String) -> Bool { !(environment[key] ?? "").isEmpty }
        if name.hasPrefix("tmux") || (name.hasPrefix("screen") && has("TMUX")) { return ["tmux-direct"] }
        if name.hasPrefix("screen") { return [] } // GNU screen 4 passes no 24-bit colour
        if name.contains("kitty") || has("KITTY_WINDOW_ID") { return ["kitty-direct"] }
        if name.hasPrefix("alacritty") { return ["alacritty-direct"] }
        if name.hasPrefix("foot") { return ["foot-direct"] }
        if name.hasPrefix("wezterm") || program == "wezterm" { return ["wezterm-direct"] }
        if name.hasPrefix("konsole") || has("KONSOLE_VERSION") { return ["konsole-direct"] }
        if name.hasPrefix("mintty") || program == "mintty" { return ["mintty-direct"] }
        if name.hasPrefix("iterm") || program == "iterm.app" { return ["iterm2-direct"] }
        if name.hasPrefix("vscode") || program == "vscode" { return ["vscode-direct"] }
        if name.hasPrefix("mlterm") { return ["mlterm-direct"] }
        if name.hasPrefix("nsterm") { return ["nsterm-direct"] }
        if name == "st" || name.hasPrefix("st-") { return ["st-direct"] }
        if name.hasPrefix("vte") || name.hasPrefix("gnome") || has("VTE_VERSION") { return ["vte-direct"] }
        return [baseName(of: name) + "-direct"]
    }

    /// "xterm-256color" → "xterm".
    static func baseName(of term: String) -> String {
        for suffix in ["-256color", "-88color", "-16color", "-truecolor", "-color"] where term.hasSuffix(suffix) {
            return String(term.dropLast(suffix.count))
        }
        return term
    }

    /// A TERM safe to put in a file name and a terminfo source: letters, digits, `.`, `_`,
    /// `+`, `-`, at most 64 of them.
    static func isPlainName(_ term: String) -> Bool {
        !term.isEmpty && term.utf8.count <= 64 && !term.hasPrefix("-") && !term.hasPrefix(".")
            && term.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._+-".unicodeScalars.contains($0)) }
    }

    /// True when an entry of that name is installed in one of `directories`.
    public static func isInstalled(_ name: String, in directories: [String] = systemDirectories) -> Bool {
        guard isPlainName(name), let first = name.first else { return false }
        return directories.contains { FileManager.default.fileExists(atPath: "\($0)/\(first)/\(name)") }
    }

    /// The entry to use for `term`, or nil with the reason when none can be had (nil and no
    /// reason: none is needed — COLORTERM does not ask, or `term` has direct colour already).
    /// `truecolor`: why the terminal is taken to show 24-bit colour (`DirectColourEvidence`);
    /// nil: nothing says it does, and no entry is needed.
    public static func find(for term: String, truecolor: String?, environment: [String: String],
                            installed: [String] = systemDirectories,
                            compile: (String) -> Result<DirectColorEntry, CompileFailure>) -> (entry: DirectColorEntry?, note: String?) {
        guard truecolor != nil, !term.contains("direct"), isPlainName(term) else { return (nil, nil) }
        let family = familyEntries(of: term, environment: environment)
        if family.isEmpty {
            return (nil, "GNU screen (TERM=\(term.truncated(toWidth: 20))) passes no 24-bit colour")
        }
        if let entry = family.first(where: { isInstalled($0, in: installed) }) { return (DirectColorEntry(name: entry), nil) }
        switch compile(term) {
        case .success(let entry): return (entry, nil)
        case .failure(let failure):
            if baseName(of: term).hasPrefix("xterm"), isInstalled("xterm-direct", in: installed) {
                return (DirectColorEntry(name: "xterm-direct"), nil)
            }
            return (nil, failure.reason)
        }
    }

    public struct CompileFailure: Error, Equatable {
        /// Why there is no 24-bit colour, said at start after the colours there are ("256
        /// colours: …"), the whole line at most 78 columns.
        public var reason: String
    }

    /// The terminfo source of `term` with direct colour: its own entry (`use=`), with the
    /// colour capabilities of ncurses' `xterm+direct` (semicolons, which every terminal that
    /// takes 24-bit colour reads).
    static func source(for term: String, name: String) -> String {
        let colour = "%?%p1%{8}%<%t%p1%{X}%+%d%e{S};2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m"
        return """
            \(name)|\(term) with direct colour (made by stories),
            \tRGB, colors#0x1000000, pairs#0x10000,
            \tsetaf=\\E[\(colour.replacingOccurrences(of: "{X}", with: "{30}").replacingOccurrences(of: "{S}", with: "38")),
            \tsetab=\\E[\(colour.replacingOccurrences(of: "{X}", with: "{40}").replacingOccurrences(of: "{S}", with: "48")),
            \tsetf@, setb@, initc@, initp@, ccc@, oc@,
            \tuse=\(term),

            """
    }

    /// The name the app gives the entry it makes for `term`.
    static func derivedName(of term: String) -> String { "stories-\(term)-direct" }

    /// Compiles the entry derived from `term` into `directory` (`$XDG_CACHE_HOME/stories/terminfo`)
    /// with `tic`, once: a later run finds it there. `tic` is ncurses-bin's, always installed.
    public static func compile(_ term: String, into directory: String, tic: String = "/usr/bin/tic") -> Result<DirectColorEntry, CompileFailure> {
        guard isPlainName(term) else { return .failure(CompileFailure(reason: "TERM has characters a terminfo name cannot")) }
        let name = derivedName(of: term)
        let entry = DirectColorEntry(name: name, directory: directory)
        if isInstalled(name, in: [directory]) { return .success(entry) }
        guard FileManager.default.isExecutableFile(atPath: tic) else {
            return .failure(CompileFailure(reason: "no tic to make a 24-bit terminfo entry (apt install ncurses-bin)"))
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            return .failure(CompileFailure(reason: "cannot write a 24-bit terminfo entry into the cache"))
        }
        let sourceFile = directory + "/.\(name).\(getpid()).src"
        defer { unlink(sourceFile) }
        guard FileManager.default.createFile(atPath: sourceFile, contents: Data(source(for: term, name: name).utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            return .failure(CompileFailure(reason: "cannot write a 24-bit terminfo entry into the cache"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tic)
        process.arguments = ["-x", "-o", directory, sourceFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(CompileFailure(reason: "tic would not start to make a 24-bit terminfo entry")) }
        process.waitUntilExit()
        guard process.terminationStatus == 0, isInstalled(name, in: [directory]) else {
            return .failure(CompileFailure(reason: "tic could not make a 24-bit entry from \(term.truncated(toWidth: 20))"))
        }
        return .success(entry)
    }

    /// `$XDG_CACHE_HOME/stories/terminfo`, or `~/.cache/stories/terminfo`.
    public static func cacheDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/stories/terminfo" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/stories/terminfo" }
        return nil
    }
}
