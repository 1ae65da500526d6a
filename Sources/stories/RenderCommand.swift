import ArgumentParser
import Foundation
import StoriesApp
import StoriesCommandLine
import StoriesCore
import StoriesFeedIO
import StoriesRender
import CStoriesSupport

/// `stories render RECORDING --to FILE`: a recording (or a flow) replayed headless on the
/// virtual clock and written out frame for frame at its own timing.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a recording or a flow to a video (MP4, WebM, GIF) or an asciicast, frame for frame.",
        discussion: """
            The recording is replayed headless on the virtual clock, at its size, on the feed and \
            settings it was made with. MP4 (H.264), WebM (VP9) and GIF are drawn as a terminal \
            shows the screen: text in DejaVu Sans Mono (FreeType), photos and video frames in real \
            pixels. An asciicast (.cast, asciicast v2) holds the terminal bytes with their times, \
            for `asciinema play`.
            """
    )

    @Argument(help: "A recording (stories --record) or a flow (docs/gestures.md).")
    var recording: String

    @Option(help: ArgumentHelp("Where to write it; its extension says the format: .mp4, .webm, .gif or .cast.", valueName: "file"))
    var to: String

    @Option(help: ArgumentHelp("Frames a second (1 to 60).", valueName: "N"))
    var fps = 30

    @Option(help: ArgumentHelp("dark (white on black, the default) or light (black on white).", valueName: "theme"))
    var theme = "dark"

    @Option(help: ArgumentHelp("The font's size in pixels (6 to 64): a cell is about 0.6 of it wide and 1.2 tall.", valueName: "px"))
    var fontSize = 16

    @Option(help: ArgumentHelp("The seed of the pretend network's draws (default: the recording's).", valueName: "N"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Replay it on this feed folder or server instead of its own (a flow's own folder must be beside it).", valueName: "path"))
    var feed: String?

    @Flag(help: "No sound track (an MP4 or WebM has the sound of the videos that played, when the session had sound on).")
    var mute = false

    mutating func validate() throws {
        guard RenderRun.Format(path: to) != nil else {
            throw ValidationError("--to needs a file ending in .mp4, .webm, .gif or .cast (got '\(SafeText.line(to))')")
        }
        guard (1...60).contains(fps) else { throw ValidationError("--fps must be 1 to 60 (got \(fps))") }
        guard ["dark", "light"].contains(theme.lowercased()) else { throw ValidationError("--theme is dark or light (got '\(SafeText.line(theme))')") }
        guard FrameRasterizer.fontSizes.contains(fontSize) else {
            throw ValidationError("--font-size must be \(FrameRasterizer.fontSizes.lowerBound) to \(FrameRasterizer.fontSizes.upperBound) (got \(fontSize))")
        }
        if let seed, seed > SessionSetup.maxSeed { throw ValidationError("--seed must be 0 to \(SessionSetup.maxSeed)") }
    }

    mutating func run() throws {
        let format = RenderRun.Format(path: to) ?? .cast
        let loaded: (Flow, FeedClient, KeyBindings)
        do { loaded = try CheckCommand.load(recording, seed: seed, feed: feed) } catch { throw fail(error.message) }
        let (flow, client, bindings) = loaded
        // Written beside the file and moved over it when whole: a render that fails leaves
        // nothing half made.
        let partial = to + ".partial-\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0o644)
        guard fd >= 0 else { throw fail("--to \(to): cannot be written (\(String(cString: strerror(errno))))") }
        // Ctrl-C (or SIGTERM, SIGHUP) before it is whole leaves nothing behind.
        stories_remove_on_signal(partial)
        defer { stories_remove_on_signal(nil) }
        var options = RenderRun.Options(format: format)
        options.fps = fps
        options.fontSize = fontSize
        options.light = theme.lowercased() == "light"
        options.sound = !mute
        let started = Date()
        let outcome: Result<RenderRun.Outcome, RenderRun.Failure> = MainActor.assumeIsolated {
            var headless = HeadlessRun.Options(width: flow.width, height: flow.height, bindings: bindings,
                                               reduceMotion: flow.setup.reduceMotion, preload: flow.setup.preload)
            headless.colors = flow.setup.colors
            headless.photosFit = flow.setup.photosFit
            do throws(RenderRun.Failure) {
                // The first pass takes the client loaded; a GIF's second a new one, the same.
                var first: FeedClient? = client
                let clients = { () throws -> FeedClient in
                    if let ready = first { first = nil; return ready }
                    return try CheckCommand.load(recording, seed: seed, feed: feed).1
                }
                return .success(try RenderRun.render(flow, client: clients, headless: headless, to: fd, options: options))
            } catch {
                return .failure(error)
            }
        }
        let closed = close(fd) == 0
        switch outcome {
        case .failure(let failure):
            unlink(partial)
            throw fail("\(to): \(failure.description)")
        case .success(let done):
            guard closed, rename(partial, to) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(partial)
                throw fail("--to \(to): cannot be written (\(reason))")
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: to)[.size] as? Int) ?? 0
            let size = (format == .cast ? "\(done.width)×\(done.height) cells" : "\(done.width)×\(done.height) px") + (done.sound ? " with a sound track" : "")
            FileWrites.sayOnStandardError(SafeText.line(String(format: "stories: %@ → %@: %.1f s, %d frames, %@, %.1f MB, rendered in %.1f s",
                                                              recording, to, done.duration, done.frames, size, Double(bytes) / 1_000_000,
                                                              Date().timeIntervalSince(started))))
        }
    }
}
