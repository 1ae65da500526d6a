import StoriesCells
import Foundation
import StoriesTestSupport
import StoriesMedia
import Testing

/// A real terminal on a private X server (Xvfb), for what only pixels show: xterm started
/// as a VT340 (sixel) or kitty (its graphics protocol, drawn with Mesa's software OpenGL).
/// Keys go in through xdotool; the screen comes out through ImageMagick's `import`, as a
/// PNG decoded like any photo. Everything started here is stopped by PID when it goes.
final class XTerminal {
    enum Kind: String { case xterm, kitty }

    let display: String
    let kind: Kind
    /// Where the command inside writes what it is asked to (`doctor`'s report).
    let folder: URL
    private var server: Child?
    private var terminal: Child?
    private let environment: [String: String]

    /// What must be installed (Debian: xvfb, xterm or kitty, imagemagick, xdotool).
    static func missing(_ kind: Kind) -> [String] {
        ["Xvfb", kind.rawValue, "import", "xdotool"].filter { Self.which($0) == nil }
    }

    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts an X server and, on it, the terminal `columns`×`rows` at the top left, running
    /// `command` in sh; waits until its window is there.
    init(_ kind: Kind, columns: Int, rows: Int, command: String) throws {
        TerminalsInUse.alone()
        self.kind = kind
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("xterminal-\(getpid())-\(UUID().uuidString.prefix(8))")
        // Nothing above the server's start throws: once every property is set, a failure
        // runs deinit, which stops what started and lets the other tests' terminals run.
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A display number no other server holds.
        var number = 90 + Int(getpid() % 50)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
            number += 1
        }
        display = ":\(number)"
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
        for name in ["TERM", "TMUX", "NO_COLOR", "COLORFGBG", "TERM_PROGRAM", "LC_TERMINAL", "KITTY_WINDOW_ID"] { environment[name] = nil }
        environment["XDG_CONFIG_HOME"] = folder.path
        environment["XDG_STATE_HOME"] = folder.path
        environment["XDG_CACHE_HOME"] = folder.path
        environment["XT_FOLDER"] = folder.path // for the command: where to write
        self.environment = environment
        server = try Child([try #require(Self.which("Xvfb")), display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                           environment: environment)
        try Self.wait("the X server \(display)", timeout: 10) { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }
        // Its socket can be there before it takes connections (once in CI, xterm could not
        // open the display): a client must get an answer first.
        let xdotool = try #require(Self.which("xdotool"))
        try Self.wait("the X server \(display) to answer", timeout: 10) {
            ((try? Self.output([xdotool, "getdisplaygeometry"], environment: environment))?.0 ?? 1) == 0
        }
        let arguments: [String]
        switch kind {
        case .xterm:
            arguments = [try #require(Self.which("xterm")), "-ti", "vt340", "-geometry", "\(columns)x\(rows)+0+0", "-fa", "DejaVu Sans Mono",
                         "-fs", "10", "-bg", "black", "-fg", "white", "-e", "sh", "-c", command]
        case .kitty:
            arguments = [try #require(Self.which("kitty")), "--config", "NONE", "-o", "font_size=10", "-o", "window_padding_width=0",
                         "-o", "remember_window_size=no", "-o", "initial_window_width=\(columns)c", "-o", "initial_window_height=\(rows)c",
                         "-o", "background=#000000", "-o", "foreground=#ffffff", "-o", "placement_strategy=top-left",
                         "sh", "-c", command]
        }
        let log = folder.appendingPathComponent("terminal.log").path
        let said = { String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self) }
        terminal = try Child(arguments, environment: environment, stdout: .file(log), stderr: .file(log))
        var tries = 1
        let up = try Wait.until(30, every: 0.1) {
            if (try? windowID()) != nil { return true }
            if terminal?.isRunning != true, tries < 3 {
                // It could not open the display after all: once more, once the server answers.
                tries += 1
                Wait.until(5, every: 0.1) { ((try? Self.output([xdotool, "getdisplaygeometry"], environment: environment))?.0 ?? 1) == 0 }
                terminal = try Child(arguments, environment: environment, stdout: .file(log), stderr: .file(log))
            }
            try #require(terminal?.isRunning == true, "\(kind.rawValue) ended before its window came up (\(tries) tries): \(said())")
            return false
        }
        try #require(up, "no \(kind.rawValue) window on \(display) within 30 s: \(said())")
    }

    deinit {
        _ = terminal?.stop()
        _ = server?.stop()
        try? FileManager.default.removeItem(at: folder)
        TerminalsInUse.aloneDone()
    }

    /// Whether the terminal (and what runs in it) is still there.
    var isRunning: Bool { terminal?.isRunning ?? false }

    func windowID() throws -> String? {
        let (status, out) = try Self.output([try #require(Self.which("xdotool")), "search", "--class", kind.rawValue], environment: environment)
        return status == 0 ? out.split(separator: "\n").first.map(String.init) : nil
    }

    /// A process the terminal started (at any depth) whose name is `name`.
    func descendant(named name: String) -> pid_t? {
        guard let root = terminal?.pid else { return nil }
        var parents: [pid_t: pid_t] = [:], names: [pid_t: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            names[pid] = String(stat[stat.index(after: open)..<close])
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
        }
        func descends(_ pid: pid_t) -> Bool {
            var current = pid, steps = 0
            while let parent = parents[current], steps < 64 {
                if parent == root { return true }
                current = parent
                steps += 1
            }
            return false
        }
        return names.first { $0.value == name && descends($0.key) }?.key
    }

    /// The bytes the app (the terminal's process named `stories`) has written so far, from
    /// /proc/PID/io; nil while it is not running.
    func appWritten() -> Int? {
        guard let pid = descendant(named: "stories"), let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
              let line = io.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }) else { return nil }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
    }

    /// Waits until the app has written more than `atLeast` bytes beyond `since` and then
    /// nothing for `quiet` seconds: what a key asked for is drawn, and the app is still.
    func awaitAppQuiet(since: Int = 0, atLeast: Int = 0, quiet: Double = 0.5, timeout: Double = 30) throws {
        try Self.wait("the app to draw and be still", timeout: timeout) {
            guard let written = appWritten(), written > since + atLeast else { return false }
            return Wait.holds(for: quiet, every: 0.1) { appWritten() == written }
        }
    }

    /// Waits until the app has written more than `atLeast` bytes beyond `since`.
    func awaitAppWrote(since: Int, atLeast: Int, timeout: Double = 30) throws {
        try Self.wait("the app to write \(atLeast) bytes", timeout: timeout) { (appWritten() ?? 0) > since + atLeast }
    }

    /// The window's size in pixels (asked again for up to 10 s while the window is coming up).
    func windowSize() throws -> (width: Int, height: Int)? {
        var size: (width: Int, height: Int)?
        try Wait.until(10, every: 0.2) {
            guard let id = try windowID() else { return false }
            let (status, out) = try Self.output([try #require(Self.which("xdotool")), "getwindowgeometry", id], environment: environment)
            if status == 0, let line = out.split(separator: "\n").first(where: { $0.contains("Geometry:") }) {
                let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                if numbers.count >= 2, numbers[0] > 1, numbers[1] > 1 { size = (numbers[0], numbers[1]) }
            }
            return size != nil
        }
        return size
    }

    /// Presses keys (xdotool's names: Return, Escape, question, q).
    func press(_ keys: String...) throws {
        // With no window manager the keyboard goes to the window under the pointer.
        _ = try Self.output([try #require(Self.which("xdotool")), "mousemove", "20", "20"], environment: environment)
        for key in keys {
            _ = try Self.output([try #require(Self.which("xdotool")), "key", "--clearmodifiers", key], environment: environment)
            Pace.pause(0.15) // a person's pace: each key its own
        }
    }

    /// Resizes the window to `columns`×`rows` cells.
    func resize(columns: Int, rows: Int, cell: (width: Int, height: Int)) throws {
        let id = try #require(try windowID())
        _ = try Self.output([try #require(Self.which("xdotool")), "windowsize", id, "\(columns * cell.width + 4)", "\(rows * cell.height + 4)"],
                            environment: environment)
    }

    /// The whole screen as it is now (kept as `name`.png in STORIES_SCREENSHOTS when set).
    func screenshot(_ name: String = "") throws -> RGBImage {
        let file = folder.appendingPathComponent("shot-\(UUID().uuidString.prefix(8)).png")
        let (status, out) = try Self.output([try #require(Self.which("import")), "-display", display, "-window", "root", file.path],
                                            environment: environment)
        try #require(status == 0, "import failed: \(out)")
        defer { try? FileManager.default.removeItem(at: file) }
        if let keep = ProcessInfo.processInfo.environment["STORIES_SCREENSHOTS"], !name.isEmpty {
            try? FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: keep).appendingPathComponent("\(kind.rawValue)-\(name).png"))
        }
        return try ImageDecoder.decode(try Data(contentsOf: file))
    }

    static func wait(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        let held = Wait.until(timeout, every: 0.1, condition)
        try #require(held, "timed out waiting for \(what)")
    }

    /// Runs a program to its end; its status and what it wrote (both streams).
    static func output(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xt-\(UUID().uuidString.prefix(8)).out").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let child = try Child(arguments, environment: environment, stdout: .file(file), stderr: .null)
        let status = child.wait()
        return (status, String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self))
    }
}

/// How far a screen's pixels are from a picture's: the mean difference a channel (0–255),
/// over the picture placed at `origin` in `screen` (every fourth pixel, both ways).
func meanError(_ screen: RGBImage, _ picture: RGBImage, at origin: (x: Int, y: Int)) -> Double {
    var total = 0, count = 0
    for y in stride(from: 0, to: picture.height, by: 4) where origin.y + y < screen.height {
        for x in stride(from: 0, to: picture.width, by: 4) where origin.x + x < screen.width {
            let a = screen[origin.x + x, origin.y + y], b = picture[x, y]
            total += abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))
            count += 3
        }
    }
    return count == 0 ? 255 : Double(total) / Double(count)
}

/// The least `meanError` of `picture` over the places within `slack` pixels of `origin`
/// (a terminal's border, rounding), and where.
func bestMatch(_ screen: RGBImage, _ picture: RGBImage, near origin: (x: Int, y: Int), slack: Int = 4) -> (error: Double, x: Int, y: Int) {
    var best = (error: Double.infinity, x: origin.x, y: origin.y)
    for dy in -slack...slack {
        for dx in -slack...slack {
            let x = origin.x + dx, y = origin.y + dy
            guard x >= 0, y >= 0 else { continue }
            let error = meanError(screen, picture, at: (x, y))
            if error < best.error { best = (error, x, y) }
        }
    }
    return best
}

/// The tests' terminals on this machine's two cores: tmux panes share it, a real terminal
/// on Xvfb (kitty draws with software OpenGL) runs alone — with other end-to-end tests
/// beside it, waits that are right on an idle machine timed out. Tmux tests take it
/// shared, X terminals alone; released from whichever thread ends the test.
enum TerminalsInUse {
    /// `condition` guards `tmuxPanes` and `xTerminal`.
    private static let condition = NSCondition()
    nonisolated(unsafe) private static var tmuxPanes = 0
    nonisolated(unsafe) private static var xTerminal = false

    /// The longest any test waits for the others (one that leaked its terminal must not
    /// hang the run: after this the test goes ahead beside it).
    static let patience: TimeInterval = 600

    static func shared() {
        condition.lock()
        let deadline = Date().addingTimeInterval(patience)
        while xTerminal, condition.wait(until: deadline) {}
        tmuxPanes += 1
        condition.unlock()
    }

    static func alone() {
        condition.lock()
        let deadline = Date().addingTimeInterval(patience)
        while xTerminal || tmuxPanes > 0, condition.wait(until: deadline) {}
        xTerminal = true
        condition.unlock()
    }

    static func sharedDone() { finish { tmuxPanes -= 1 } }
    static func aloneDone() { finish { xTerminal = false } }

    private static func finish(_ change: () -> Void) {
        condition.lock()
        change()
        condition.broadcast()
        condition.unlock()
    }
}
