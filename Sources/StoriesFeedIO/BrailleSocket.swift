import Foundation

/// Whether BRLTTY runs on this machine: BrlAPI keeps its sockets in this folder while it
/// does (Debian's brltty package). One of the signs that a braille display reads the
/// terminal (`CursorMode.auto`, `stories doctor`).
public enum BrailleSocket {
    public static func exists(folder: String = "/var/lib/BrlAPI") -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
        return names.contains { !$0.hasPrefix(".") }
    }
}
