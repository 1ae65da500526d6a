import Foundation
import StoriesTestSupport
import Testing

/// Issue 49, point 2, as a person's terminal receives it: `stories play` of a GIF on a
/// pseudo-terminal, each frame's burst of bytes timed where it arrives. Frames of 50, 200
/// and 500 ms, twice over, looped for ever: each shown for its own delay (within 50 ms: a
/// frame of a 20 fps terminal, and room for a loaded machine), the last of every loop too; a GIF whose loop block says
/// "once more" plays twice and exits after its last frame's delay.
@Suite(.serialized) struct GIFTimingEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("StoriesMediaTests/Fixtures")

    /// The frame a burst draws, by the colour its cells are given (as a foreground or a
    /// background): a frame's colour, or black when black is all there is.
    static func colour(of burst: [UInt8]) -> String? {
        let text = String(decoding: burst, as: UTF8.self)
        let names = [("255;0;0", "red"), ("0;255;0", "lime"), ("0;0;255", "blue"), ("255;255;255", "white"),
                     ("255;255;0", "yellow")]
        let found = names.filter { text.contains("8;2;\($0.0)m") || text.contains("8;2;\($0.0);") }.map(\.1)
        if found.count == 1 { return found[0] }
        return found.isEmpty && (text.contains("8;2;0;0;0m") || text.contains("8;2;0;0;0;")) ? "black" : nil
    }

    func home() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gif-timing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func eachFrameForItsOwnDelayTheLastOfEachLoopToo() throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(at: home) }
        let gif = Self.fixtures.appendingPathComponent("mixed.gif").path
        let terminal = try FakeTerminal(["play", gif, "--size", "20x8", "--colors", "truecolor"],
                                        environment: FakeTerminal.environment(term: "xterm-256color", home: home))
        // Two whole loops and the start of a third: 13 frames drawn.
        try terminal.waitUntil("13 frames drawn", timeout: 20) { terminal.bursts().count >= 15 }
        _ = terminal.child.stop()
        // A frame whose bytes arrived in two reads far apart is one frame: bursts of the same
        // colour in a row are joined.
        var frames: [(time: Double, colour: String?)] = []
        for burst in terminal.bursts() {
            let colour = Self.colour(of: burst.bytes)
            if let last = frames.last, last.colour == colour, colour != nil { continue }
            frames.append((burst.time, colour))
        }
        try #require(frames.count >= 13, "\(frames.map { $0.colour ?? "?" })")
        let expected: [String: Double] = ["red": 0.05, "lime": 0.2, "blue": 0.5, "white": 0.05, "yellow": 0.2, "black": 0.5]
        let order = ["red", "lime", "blue", "white", "yellow", "black"]
        #expect(frames.prefix(13).map { $0.colour ?? "?" } == Array((order + order + order).prefix(13)), "\(frames.map { $0.colour ?? "?" })")
        for index in 0..<12 {
            guard let colour = frames[index].colour, let delay = expected[colour] else { continue }
            let shown = frames[index + 1].time - frames[index].time
            #expect(abs(shown - delay) < 0.05, "frame \(index) (\(colour)) shown \(Int(shown * 1000)) ms, its delay \(Int(delay * 1000)) ms")
        }
        let loop = frames[12].time - frames[6].time
        #expect(abs(loop - 1.5) < 0.05, "a loop lasts \(Int(loop * 1000)) ms; its delays add up to 1500")
    }

    @Test func aLoopCountIsPlayedAndTheLastDelayKept() throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(at: home) }
        let gif = Self.fixtures.appendingPathComponent("twice.gif").path
        let started = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let terminal = try FakeTerminal(["play", gif, "--size", "20x8", "--colors", "truecolor"],
                                        environment: FakeTerminal.environment(term: "xterm-256color", home: home))
        #expect(try terminal.waitForExit(timeout: 20) == 0)
        let ended = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        var frames: [String] = []
        for colour in terminal.bursts().compactMap({ Self.colour(of: $0.bytes) }) where frames.last != colour { frames.append(colour) }
        #expect(frames == ["red", "blue", "lime", "red", "blue", "lime"], "two plays: \(frames)")
        let bursts = terminal.bursts()
        let lastFrame = try #require(bursts.last { Self.colour(of: $0.bytes) == "lime" })
        // The command ends when the last frame's 100 ms are over (with the exit's own time).
        #expect(ended - lastFrame.time >= 0.09, "exited \(Int((ended - lastFrame.time) * 1000)) ms after the last frame")
        #expect(ended - started < 10)
    }
}
