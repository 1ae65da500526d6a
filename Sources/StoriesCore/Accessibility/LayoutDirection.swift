/// Which way the app reads (issue 33). Right to left, the layout is mirrored: the ring row
/// runs from the right, a tap on the left third goes forward, ← and → (h and l) swap,
/// a swipe to the right goes to the next story, the cube turns the other way and the
/// progress bar fills from the right. `]` and `[` stay next and previous story: they
/// follow the reading direction, not the screen.
public enum LayoutDirection: String, CaseIterable, Equatable, Sendable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"

    /// Languages written right to left (ISO 639 codes), as a feed's `language` or a locale
    /// names them: Arabic, Hebrew (and its old code), Persian, Urdu, Yiddish, Pashto,
    /// Sorani Kurdish, Dhivehi, Sindhi, Uyghur, Syriac.
    static let rightToLeftLanguages: Set<String> = ["ar", "he", "iw", "fa", "ur", "yi", "ps", "ckb", "dv", "sd", "ug", "syr"]

    /// The direction a language tag reads in: "ar", "ar-EG", "ar_EG.UTF-8", "he_IL@euro",
    /// "fa-Arab-IR". Nil for a tag that says nothing (empty, "C", "POSIX").
    public static func of(language tag: String) -> LayoutDirection? {
        let primary = tag.prefix(64).prefix { $0.isLetter && $0.isASCII }.lowercased()
        guard primary.count >= 2, primary.count <= 3, primary != "c" else { return nil }
        return rightToLeftLanguages.contains(primary) ? .rightToLeft : .leftToRight
    }

    /// The locale's direction: `LC_ALL`, else `LC_MESSAGES`, else `LANG` (POSIX's order
    /// for the language messages are in). Nil when none names a language.
    public static func locale(environment: [String: String]) -> LayoutDirection? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            return of(language: value)
        }
        return nil
    }
}

/// Who puts right-to-left text in reading order on screen (`bidi` in stories.conf).
public enum BidiMode: String, CaseIterable, Equatable, Sendable {
    /// The app reorders and shapes (GNU FriBiDi) and tells a terminal that would do it too
    /// to leave its text alone: right for xterm, kitty, tmux, Alacritty, foot, the Linux
    /// console, and VTE terminals (GNOME Terminal, Tilix), whose own reordering is turned off.
    case app
    /// The terminal reorders and shapes by itself, as Konsole and mlterm always do: the
    /// app writes text in logical order.
    case terminal

    /// `bidi = auto`: the terminal where it always reorders (Konsole, mlterm), else the app.
    public static func auto(environment: [String: String]) -> BidiMode {
        if environment["KONSOLE_VERSION"] != nil || environment["MLTERM"] != nil { return .terminal }
        return .app
    }
}

/// The layout's direction as the run was told it, before the feed says anything.
public struct LayoutChoice: Equatable, Sendable {
    /// `direction = ltr|rtl` (stories.conf, `--direction`): wins over the feed and the locale.
    public var said: LayoutDirection?
    /// What the locale reads in (`LANG=ar_EG.UTF-8`): used when the feed says nothing.
    public var locale: LayoutDirection?
    public var bidi: BidiMode

    public init(said: LayoutDirection? = nil, locale: LayoutDirection? = nil, bidi: BidiMode = .app) {
        self.said = said
        self.locale = locale
        self.bidi = bidi
    }
}
