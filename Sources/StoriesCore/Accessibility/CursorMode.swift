/// Where the terminal's cursor is while the full-screen app runs (issue 33).
///
/// Screen readers (Orca, speakup, NVDA over ssh) and braille displays (BRLTTY) read a
/// terminal through its cursor and the text around it: `focus` shows the cursor and puts it
/// on what has focus — the selected bubble's name, the focused section cell, the viewer's
/// author line, the search field, the first line of the box over the screen. `hidden` hides
/// it, as a full-screen app usually does.
public enum CursorMode: String, CaseIterable, Equatable, Sendable {
    case focus, hidden

    /// What `cursor = auto` (the default) becomes: `focus` where a screen reader or a braille
    /// display is likely, else `hidden`.
    /// `brailleSocketExists`: BrlAPI's socket folder has a socket (BRLTTY runs), as the
    /// runtime found it (`BrailleSocket.exists`).
    public static func auto(environment: [String: String], brailleSocketExists: Bool) -> CursorMode {
        ScreenReaderHint.likely(environment: environment, brailleSocketExists: brailleSocketExists) != nil ? .focus : .hidden
    }
}

/// Signs that somebody reads this terminal with a screen reader or a braille display.
public enum ScreenReaderHint {
    /// Which sign was seen ("ACCESSIBILITY_ENABLED=1"), or nil for none: what `doctor` says.
    public static func likely(environment: [String: String], brailleSocketExists: Bool) -> String? {
        func on(_ name: String) -> Bool {
            guard let value = environment[name]?.lowercased(), !value.isEmpty else { return false }
            return !["0", "false", "no", "off"].contains(value)
        }
        // GNOME's and Orca's switch for assistive technologies, exported to the session.
        for name in ["ACCESSIBILITY_ENABLED", "GNOME_ACCESSIBILITY"] where on(name) { return "\(name) is set" }
        // speakup (the Linux console's screen reader) and BRLTTY's BrlAPI clients.
        for name in ["SPEAKUP", "BRLTTY", "BRLAPI_HOST"] where environment[name] != nil { return "\(name) is set" }
        if brailleSocketExists { return "BRLTTY's BrlAPI is running" }
        return nil
    }
}
