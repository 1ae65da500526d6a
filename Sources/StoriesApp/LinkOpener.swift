import Dispatch
import Foundation
import StoriesCore

/// Opens a home cell's link in the person's browser, the way terminal apps do: `xdg-open`
/// with the URL as its one argument (no shell), only where a graphical session can show a
/// browser (`DISPLAY` or `WAYLAND_DISPLAY`), with its output thrown away so nothing lands on
/// the screen. Elsewhere (ssh, a console, tmux in CI) the link is shown in full on the
/// notice line instead, to copy. The URL was checked by `HomeDecoder.linkProblem`; it is
/// checked again here, because nothing from outside reaches a process unchecked.
enum LinkOpener {
    @MainActor
    static func open(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                     done: @escaping @MainActor (String) -> Void) {
        guard HomeDecoder.linkProblem(url) == nil else {
            done("⚠ Not a link this app opens: \(SafeText.line(url).truncated(toWidth: 200))")
            return
        }
        let graphical = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard graphical, let opener = executable("xdg-open", path: environment["PATH"] ?? "/usr/bin:/bin") else {
            done(notOpened(url))
            return
        }
        DispatchQueue.global(qos: .userInitiated).async {
            let process = Process()
            process.executableURL = opener
            process.arguments = [argument(url)]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let message: String
            do {
                try process.run()
                message = "↗ Asked the browser to open \(url)"
            } catch {
                message = notOpened(url)
            }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(message) } }
        }
    }

    /// The URL as handed to `xdg-open`: the characters a shell gives meaning to (`xdg-open`
    /// is a shell script, and so may be the `$BROWSER` it runs) percent-encoded. Servers read
    /// `%28` as `(`, so the page is the same.
    static func argument(_ url: String) -> String {
        var out = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case "$", "(", ")", "'", ";", "!", "*", "`", "\"", "\\", "|", "<", ">", "{", "}", "^":
                out += String(format: "%%%02X", scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The notice when no browser can be opened here: the whole URL, to copy.
    static func notOpened(_ url: String) -> String {
        "↗ Link (no browser here to open it; copy it from this line): \(url)"
    }

    private static func executable(_ name: String, path: String) -> URL? {
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
