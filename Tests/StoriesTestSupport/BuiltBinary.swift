import Foundation
import Testing

/// The built `stories` binary, next to the test bundle in the build folder (`swift test`
/// builds it with the tests).
public enum BuiltBinary {
    public static var url: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("stories")
    }

    public static func requireBuilt() throws -> String {
        let path = url.path
        try #require(FileManager.default.isExecutableFile(atPath: path), "no stories binary at \(path); run `swift build` first")
        return path
    }
}
