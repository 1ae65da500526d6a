import Foundation

/// Where the embedded demo feed (`Assets/demo`) is at run time. SwiftPM copies it next to
/// the built binary as a resource bundle, so `swift run stories` and the binary itself both
/// find it without a path.
public enum DemoFeed {
    /// The folder holding `feed.json`, `stories/` and `media/`, or nil if the resource
    /// bundle was not installed next to the binary.
    public static var directory: URL? {
        Bundle.module.url(forResource: "demo", withExtension: nil)
    }
}
