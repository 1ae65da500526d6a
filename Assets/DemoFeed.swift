import Foundation

/// Where the embedded demo feed (`Assets/demo`) is at run time. SwiftPM copies it next to
/// the built binary as a resource bundle, so `swift run stories` and the binary itself both
/// find it without a path.
public enum DemoFeed {
    /// The folder holding `feed.json`, `stories/` and `media/`, or nil if the resource
    /// bundle was not installed next to the binary.
    public static var directory: URL? {
        nextToBinary ?? Bundle.module.url(forResource: "demo", withExtension: nil)
    }

    /// The bundle's name, as SwiftPM makes it (`PACKAGE_TARGET.resources`).
    static let bundleName = "stories_StoriesAssets.resources"

    /// The demo folder in the bundle beside the running binary (`/proc/self/exe`, links
    /// followed: `scripts/install` links `bin/stories` to `lib/stories/stories`) — where
    /// `Bundle.module` looks first, found without Foundation's bundle machinery, which cost
    /// a millisecond and a half of every start (docs/performance.md, "Start-up").
    static var nextToBinary: URL? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress.map { $0.withMemoryRebound(to: CChar.self, capacity: 4096) { readlink("/proc/self/exe", $0, 4095) } } ?? -1
        }
        guard count > 0, count < 4096 else { return nil }
        let binary = URL(fileURLWithPath: String(decoding: buffer[0..<count], as: UTF8.self))
        let demo = binary.deletingLastPathComponent().appendingPathComponent(bundleName).appendingPathComponent("demo", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: demo.appendingPathComponent("feed.json").path, isDirectory: &isDirectory),
              !isDirectory.boolValue else { return nil }
        return demo
    }
}
