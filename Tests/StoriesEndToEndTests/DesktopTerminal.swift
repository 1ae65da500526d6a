import StoriesCells
import Foundation
import StoriesTestSupport
import StoriesMedia
import Testing

/// A terminal of the matrix (issue 45, point 7) started as Debian installs it — its own
/// `TERM`, colours, font and background — on a private display: an X server (Xvfb) for the
/// X terminals, a headless sway for foot (Wayland only). Keys go in through xdotool or
/// wtype, the screen comes out through ImageMagick's `import` or grim. The command runs in
/// sh with `$XT_FOLDER` set to a folder of the test's; everything started here is stopped
/// by PID when it goes.
final class DesktopTerminal {
    /// How one terminal is started.
    struct Spec: Sendable, CustomStringConvertible {
        let name: String
        /// The program and what comes before the command (`-e sh -c COMMAND`).
        let launch: [String]
        /// The window's class, as `xdotool search --class` finds it (nil: Wayland).
        let windowClass: String?
        /// Debian's packages it comes from.
        let packages: [String]
        /// What `doctor` is expected to say in it: the start of its pictures and colours lines.
        let pictures: String
        let colours: String
        var description: String { name }

        var wayland: Bool { windowClass == nil }
        /// The programs that must be on PATH for it (the display's, the keys', the shots').
        var programs: [String] {
            let tools = wayland ? ["sway", "wtype", "grim", "runuser"] : ["Xvfb", "xdotool", "import"]
            return [launch[0]] + tools
        }
        var missing: [String] { programs.filter { XTerminal.which($0) == nil } }
        var installed: Bool { missing.isEmpty }
        var skipReason: Comment { "\(name) is not installed (.ci/run installs it: apt-get install -y \(packages.joined(separator: " ")))" }
    }

    let spec: Spec
    /// Where the command writes (`$XT_FOLDER`).
    let folder: URL
    private var server: Child?
    private var terminal: Child?
    private var environment: [String: String]
    /// Wayland: the user sway and foot run as (sway will not run as root), and its socket.
    private let user: String?

    init(_ spec: Spec, command: String) throws {
        TerminalsInUse.alone()
        self.spec = spec
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("desktop-\(getpid())-\(UUID().uuidString.prefix(8))")
        user = spec.wayland && getuid() == 0 ? "nobody" : nil
        environment = ProcessInfo.processInfo.environment
        for name in ["TERM", "TMUX", "NO_COLOR", "COLORFGBG", "COLORTERM", "TERM_PROGRAM", "LC_TERMINAL", "KITTY_WINDOW_ID",
                     "VTE_VERSION", "KONSOLE_VERSION", "MLTERM", "WAYLAND_DISPLAY", "DISPLAY", "STY"] {
            environment[name] = nil
        }
        environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
        environment["XDG_CONFIG_HOME"] = folder.path
        environment["XDG_STATE_HOME"] = folder.path
        environment["XDG_CACHE_HOME"] = folder.path
        environment["XDG_RUNTIME_DIR"] = folder.path
        environment["HOME"] = folder.path
        environment["XT_FOLDER"] = folder.path
        // Nothing above the server's start throws: once every property is set, a failure
        // runs deinit, which stops what started and lets the other tests' terminals run.
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: user == nil ? 0o700 : 0o777])
        if let user {
            // The folder is the user's own: sway wants its runtime folder private to it.
            _ = try? XTerminal.output(["/usr/bin/env", "chown", user, folder.path], environment: environment)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        }
        let script = folder.appendingPathComponent("command.sh")
        try ("#!/bin/sh\n" + command + "\n").write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        if let user { _ = try? XTerminal.output(["/usr/bin/env", "chown", "-R", user, folder.path], environment: environment) }
        let log = folder.appendingPathComponent("terminal.log").path
        if spec.wayland {
            let config = folder.appendingPathComponent("sway.conf")
            try """
            xwayland disable
            output HEADLESS-1 resolution 1280x900
            default_border none
            exec \(spec.launch.joined(separator: " ")) \(script.path)
            """.write(to: config, atomically: true, encoding: .utf8)
            environment["WLR_BACKENDS"] = "headless"
            environment["WLR_LIBINPUT_NO_DEVICES"] = "1"
            environment["WLR_RENDERER"] = "pixman"
            let runAs = user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []
            server = try Child(runAs + ["/usr/bin/env", try #require(XTerminal.which("sway")), "-c", config.path],
                               environment: environment, stdout: .file(log), stderr: .file(log))
            let socket = folder.appendingPathComponent("wayland-1").path
            try XTerminal.wait("sway's socket", timeout: 20) { FileManager.default.fileExists(atPath: socket) }
            environment["WAYLAND_DISPLAY"] = "wayland-1"
        } else {
            var number = 60 + Int(getpid() % 30)
            while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
                number += 1
            }
            environment["DISPLAY"] = ":\(number)"
            server = try Child([try #require(XTerminal.which("Xvfb")), ":\(number)", "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                               environment: environment)
            let xdotool = try #require(XTerminal.which("xdotool")), environment = environment
            try XTerminal.wait("the X server :\(number) to answer", timeout: 10) {
                ((try? XTerminal.output([xdotool, "getdisplaygeometry"], environment: environment))?.0 ?? 1) == 0
            }
            let program = try #require(XTerminal.which(spec.launch[0]), "\(spec.launch[0]) on PATH")
            terminal = try Child([program] + spec.launch.dropFirst() + [script.path], environment: environment,
                                 stdout: .file(log), stderr: .file(log))
        }
    }

    deinit {
        _ = terminal?.stop()
        _ = server?.stop()
        if let user { _ = try? XTerminal.output(["/usr/bin/pkill", "-u", user, "-f", folder.path], environment: environment) }
        try? FileManager.default.removeItem(at: folder)
        TerminalsInUse.aloneDone()
    }

    /// What the terminal said on its way (for a failure's message).
    var log: String {
        String(decoding: FileManager.default.contents(atPath: folder.appendingPathComponent("terminal.log").path) ?? Data(), as: UTF8.self)
    }

    /// Whether the terminal's process (or sway's) is still there.
    var isRunning: Bool { (terminal ?? server)?.isRunning ?? false }

    /// Waits until the command has made `name` in its folder.
    func waitForFile(_ name: String, timeout: Double = 30) throws {
        let path = folder.appendingPathComponent(name).path
        try XTerminal.wait("\(name) from the command in \(spec.name) (\(log.suffix(300)))", timeout: timeout) {
            FileManager.default.fileExists(atPath: path)
        }
    }

    func read(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// Lets the command past its next `read _`: Return, typed into the terminal (a fifo the
    /// command read from was once never opened in a loaded CI run; the terminal's own input
    /// keeps a key that comes before the shell reads).
    func proceed() throws {
        try press("Return")
    }

    /// Presses keys (X keysym names: Return, Escape, question, space, q; "ctrl+l").
    func press(_ keys: String...) throws {
        for key in keys {
            if spec.wayland {
                let parts = key.split(separator: "+").map(String.init)
                // wtype makes a keyboard with a keymap of its own each time: a key sent at once
                // after one is lost (sway is still taking the keymap), so it waits 150 ms first.
                var arguments = [try #require(XTerminal.which("wtype")), "-s", "150"]
                for modifier in parts.dropLast() { arguments += ["-M", modifier] }
                arguments += ["-k", parts.last ?? key]
                for modifier in parts.dropLast() { arguments += ["-m", modifier] }
                let (status, said) = try XTerminal.output(asUser(arguments), environment: environment)
                try #require(status == 0, "wtype \(key): \(said)")
            } else {
                // With no window manager the keyboard goes to the window under the pointer.
                _ = try XTerminal.output([try #require(XTerminal.which("xdotool")), "mousemove", "200", "200"], environment: environment)
                _ = try XTerminal.output([try #require(XTerminal.which("xdotool")), "key", "--clearmodifiers", key], environment: environment)
            }
        }
    }

    /// Makes the terminal's window smaller by `columns`×`rows` cells of `cell` pixels.
    func shrink(columns: Int, rows: Int, cell: (width: Int, height: Int)) throws {
        if spec.wayland {
            let size = try #require(try? screenshot())
            // swaymsg finds sway by SWAYSOCK only (the socket sway made in its runtime folder).
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let socket = try #require(files.first { $0.hasPrefix("sway-ipc.") }, "sway's socket in \(files)")
            let arguments = ["SWAYSOCK=\(folder.appendingPathComponent(socket).path)", try #require(XTerminal.which("swaymsg")), "[app_id=foot] floating enable, resize set",
                             "\(size.width - columns * cell.width)", "\(size.height - rows * cell.height)", ", move position 0 0"]
            let (status, said) = try XTerminal.output(asUser(arguments), environment: environment)
            try #require(status == 0, "swaymsg: \(said)")
            return
        }
        let xdotool = try #require(XTerminal.which("xdotool"))
        let (_, ids) = try XTerminal.output([xdotool, "search", "--onlyvisible", "--class", try #require(spec.windowClass)], environment: environment)
        let id = try #require(ids.split(separator: "\n").first.map(String.init), "\(spec.name)'s window")
        let (_, geometry) = try XTerminal.output([xdotool, "getwindowgeometry", id], environment: environment)
        let line = try #require(geometry.split(separator: "\n").first { $0.contains("Geometry:") })
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(numbers.count >= 2)
        _ = try XTerminal.output([xdotool, "windowsize", id, "\(numbers[0] - columns * cell.width)", "\(numbers[1] - rows * cell.height)"],
                                 environment: environment)
    }

    private func asUser(_ arguments: [String]) -> [String] {
        (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? [])
            + ["/usr/bin/env", "XDG_RUNTIME_DIR=\(folder.path)", "WAYLAND_DISPLAY=wayland-1"] + arguments
    }

    /// The whole screen as it is now (kept as `name`.png in STORIES_SCREENSHOTS when set).
    func screenshot(_ name: String = "") throws -> RGBImage {
        let file = folder.appendingPathComponent("shot-\(UUID().uuidString.prefix(8)).png")
        let arguments = spec.wayland ? asUser([try #require(XTerminal.which("grim")), file.path])
            : [try #require(XTerminal.which("import")), "-window", "root", file.path]
        let (status, out) = try XTerminal.output(arguments, environment: environment)
        try #require(status == 0, "the screenshot failed: \(out)")
        defer { try? FileManager.default.removeItem(at: file) }
        if let keep = ProcessInfo.processInfo.environment["STORIES_SCREENSHOTS"], !name.isEmpty {
            let slug = spec.name.replacingOccurrences(of: " ", with: "")
            let kept = URL(fileURLWithPath: keep).appendingPathComponent("\(slug)-\(name).png")
            try? FileManager.default.removeItem(at: kept) // the last shot of that name is kept
            try? FileManager.default.copyItem(at: file, to: kept)
        }
        return try ImageDecoder.decode(try Data(contentsOf: file))
    }

    /// The screen once three shots in a row are the same and `done` holds for it (two were
    /// once the same in the middle of an animation).
    func settledScreen(_ name: String = "", timeout: Double = 30, until done: (RGBImage) -> Bool = { _ in true }) throws -> RGBImage {
        let deadline = Date().addingTimeInterval(timeout)
        var shots = [try screenshot()]
        while true {
            let now = try screenshot(name)
            shots = (shots + [now]).suffix(3)
            if shots.count == 3, shots.allSatisfy({ $0 == now }), done(now) { return now }
            try #require(Date() < deadline, "\(spec.name): the screen did not settle\(name.isEmpty ? "" : " (\(name))") within \(Int(timeout)) s")
        }
    }
}

/// Whether `a` and `b` have the same pixels in `rect` (x, y, width, height).
func samePixels(_ a: RGBImage, _ b: RGBImage, in rect: (x: Int, y: Int, width: Int, height: Int)) -> Bool {
    guard rect.x >= 0, rect.y >= 0, rect.x + rect.width <= min(a.width, b.width), rect.y + rect.height <= min(a.height, b.height) else {
        return false
    }
    for y in rect.y..<(rect.y + rect.height) {
        for x in rect.x..<(rect.x + rect.width) where a[x, y] != b[x, y] { return false }
    }
    return true
}
