import CNcursesw
import CStoriesSupport
import Foundation
import StoriesCore

/// The screen's session with the terminal: input read, a stop and a return, the end, and
/// how ncurses is opened (a compiled entry, a UTF-8 locale).
extension CursesScreen {
    /// Reads everything waiting on the input stream, without blocking.
    public func readAvailable() -> [RawInput] {
        var inputs: [RawInput] = []
        var value: wint_t = 0
        while true {
            let status = stories_get_wch(&value)
            if status == STORIES_ERR { break }
            if status == STORIES_KEY_CODE_YES {
                if Int32(value) == STORIES_KEY_RESIZE { continue }
                if let name = keyname(Int32(value)) { inputs.append(.keyName(String(cString: name))) }
            } else if let scalar = Unicode.Scalar(UInt32(value)) {
                inputs.append(.scalar(scalar))
            }
        }
        return inputs
    }

    /// Leaves curses mode for a job-control stop (Ctrl-Z): mouse off, `endwin`.
    public func suspend() {
        guard !isRestored else { return }
        let cleared = pictures.clear()
        if !cleared.isEmpty { writeRaw(cleared) }
        stories_restore_deletes_kitty_pictures(0) // the shell's screen may have pictures of its own
        if mouseEnabled { writeRaw("\u{1B}[?1006l\u{1B}[?1002l") }
        if reportsFocus { writeRaw("\u{1B}[?1004l") }
        if keepsTextOrder { writeRaw("\u{1B}[8h") }
        endwin()
    }

    /// Comes back after a stop: curses mode and mouse on again; the next draw is full.
    public func resume() {
        guard !isRestored else { return }
        stories_restore_deletes_kitty_pictures(deletesOnCrash ? 1 : 0)
        if mouseEnabled { writeRaw("\u{1B}[?1002h\u{1B}[?1006h") }
        if reportsFocus { writeRaw("\u{1B}[?1004h") }
        if keepsTextOrder { writeRaw("\u{1B}[8l") }
        updateSize()
        previous = nil
        if showsFocus { curs_set(1) }
    }

    /// Gives the terminal back: mouse modes off, `endwin`. Safe to call more than once.
    public func restore() {
        guard !isRestored else { return }
        isRestored = true
        let cleared = pictures.clear()
        if !cleared.isEmpty { writeRaw(cleared) }
        stories_restore_deletes_kitty_pictures(0)
        if mouseEnabled { writeRaw("\u{1B}[?1006l\u{1B}[?1002l") }
        if reportsFocus { writeRaw("\u{1B}[?1004l") }
        if keepsTextOrder { writeRaw("\u{1B}[8h") }
        endwin()
    }

    /// Frees the SCREEN (tests create several in one process).
    public func close() {
        restore()
        delscreen(screen)
    }

    /// Opens the screen on a direct-colour entry; one the app compiled is read from its
    /// directory (TERMINFO, set for the lookup alone and put back).
    static func open(_ entry: DirectColorEntry, output: UnsafeMutablePointer<FILE>, input: UnsafeMutablePointer<FILE>) -> OpaquePointer? {
        guard let directory = entry.directory else { return entry.name.withCString { newterm($0, output, input) } }
        let previous = getenv("TERMINFO").map { String(cString: $0) }
        setenv("TERMINFO", directory, 1)
        defer { if let previous { setenv("TERMINFO", previous, 1) } else { unsetenv("TERMINFO") } }
        return entry.name.withCString { newterm($0, output, input) }
    }

    /// Wide characters need a UTF-8 locale. With LANG unset (cron, CI, bare containers)
    /// the environment's locale is "C", so fall back to C.UTF-8, which glibc always has.
    static func useUTF8Locale() {
        setlocale(LC_ALL, "")
        if let codeset = stories_codeset(), String(cString: codeset) != "UTF-8" {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
    }

    /// What ncurses holds at a cell (for tests): the characters, and the pair's colours.
    public func cell(x: Int, y: Int) -> (text: String, attributes: attr_t, foreground: Int32, background: Int32)? {
        var chars = [wchar_t](repeating: 0, count: 8)
        var attrs: attr_t = 0
        var pair: Int32 = 0
        guard stories_read_cell(Int32(y), Int32(x), &chars, &attrs, &pair) == STORIES_OK else { return nil }
        var fg: Int32 = -1, bg: Int32 = -1
        if pair > 0 { _ = stories_pair_colors(pair, &fg, &bg) }
        let scalars = chars.prefix { $0 != 0 }.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }
        return (String(String.UnicodeScalarView(scalars)), attrs & ~STORIES_A_COLOR, fg, bg)
    }
}
