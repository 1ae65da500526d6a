import StoriesCells
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories bench video`: decode + scale + cells per frame at two sizes, and a real-time
/// headless playback of 10 s of video (frames shown and dropped, CPU per second of video,
/// bytes written per frame). Release builds.
struct VideoBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Time video decode + scale + cells per frame, and a real-time headless playback."
    )

    @Option(help: "The clip (default: the demo's deep-field.mp4, 288×512 H.264 at 30 fps).")
    var file: String?

    @Option(help: "Seconds of video for the real-time playback (the clip loops).")
    var seconds = 10.0

    @Option(help: "At most this many frames of the clip for the per-frame figures (default: all of them).")
    var frames: Int?

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Picture cells for the per-frame figures: half, quad, sextant, octant, or all (the default).", valueName: "set"))
    var symbols = "all"

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        let sets = symbols == "all" ? CellSymbols.allCases
            : [try CellSymbols(rawValue: symbols).orThrow(ValidationError("--symbols takes half, quad, sextant, octant or all"))]
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds takes 0 to 600") }
        if let frames, frames < 1 { throw ValidationError("--frames takes 1 or more") }
        let url = try file.map { URL(fileURLWithPath: $0) }
            ?? (DemoFeed.directory?.appendingPathComponent("media/deep-field.mp4")).orThrow(fail("the demo clip is missing"))
        let data: Data
        do { data = try ImageDecoder.readFile(at: url, limits: MediaLimits(maxBytes: VideoLimits.standard.maxBytes)) } catch {
            throw fail("\(SafeText.line(url.path)): \(error)")
        }
        let name = url.lastPathComponent
        if !json { print("video bench: \(SafeText.line(name)) (\(data.count) bytes)") }

        // 1. Decode + scale + cells for every frame of the clip, per size.
        for (width, height) in [(80, 40), (200, 60)] {
            for depth in [ColorDepth.direct, .palette256] { for set in sets {
                let decoder = try open(data, name)
                var decode: [Double] = [], render: [Double] = []
                while decode.count < frames ?? Int.max {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    guard (try? decoder.decodeNext()) ?? nil != nil else { break }
                    let t1 = DispatchTime.now().uptimeNanoseconds
                    guard decoder.cells(width: width, height: height, symbols: set, depth: depth, fit: .fit) != nil else { break }
                    let t2 = DispatchTime.now().uptimeNanoseconds
                    decode.append(Double(t1 - t0) / 1e6)
                    render.append(Double(t2 - t1) / 1e6)
                }
                guard !decode.isEmpty else { throw fail("\(SafeText.line(name)): no frames") }
                let total = zip(decode, render).map(+)
                let (d, _) = Stats.medianAndP90(decode), (r, _) = Stats.medianAndP90(render), (m, p90) = Stats.medianAndP90(total)
                let colours = depth == .direct ? "truecolor" : "256"
                if json {
                    print(JSONValue.object([
                        "bench": "video-frame", "file": .string(name), "cells": .string("\(width)x\(height)"), "colors": .string(colours),
                        "symbols": .string(set.rawValue), "frames": .int(decode.count), "decode_ms": .rounded(d, places: 3),
                        "scale_cells_ms": .rounded(r, places: 3), "median_ms": .rounded(m, places: 3), "p90_ms": .rounded(p90, places: 3),
                    ]).text())
                } else {
                    print("per frame \(width)x\(height) \(colours) \(set.rawValue): decode \(f(d)) ms + scale & cells \(f(r)) ms = \(f(m)) ms median (p90 \(f(p90))) over \(decode.count) frames")
                }
            } }
        }

        // 2. Real-time playback, headless: what `stories play` does, into a byte counter.
        let decoder = try open(data, name)
        var playback = TerminalPlayback(decoder: decoder, width: 120, height: 40, symbols: .half, depth: .direct, fit: .fit,
                                        cellAspect: 0.5, loop: true, limit: seconds)
        let before = Self.cpuSeconds()
        let summary: TerminalPlayback.Summary
        do { summary = try playback.run { _ in } } catch { throw fail("\(SafeText.line(name)): \(error)") }
        let cpu = Self.cpuSeconds() - before
        let perFrame = summary.shown > 0 ? summary.bytes / summary.shown : 0
        let fps = 1 / decoder.info.frameInterval
        if json {
            print(JSONValue.object([
                "bench": "video-play", "file": .string(name), "cells": "120x40", "colors": "truecolor",
                "video_seconds": .rounded(seconds, places: 3), "wall_seconds": .rounded(summary.seconds, places: 3),
                "fps": .rounded(fps, places: 3), "frames_shown": .int(summary.shown), "frames_dropped": .int(summary.dropped),
                "cpu_seconds_per_video_second": .rounded(cpu / seconds, places: 3), "bytes_per_frame": .int(perFrame),
            ]).text())
        } else {
            print("real-time playback 120x40 truecolor, \(f(seconds)) s of video at \(f(fps)) fps: \(summary.shown) frames shown, \(summary.dropped) dropped, CPU \(f(cpu / seconds)) s per s of video, \(perFrame) bytes per frame")
        }

        // 3. Real pixels (issue 31): the same in sixel and kitty at 100×30 cells of 10×20
        // pixels, into a byte counter (how fast a terminal reads them is its own: see
        // docs/performance.md for what xterm and kitty took).
        for graphics in [GraphicsProtocol.sixel, .kitty] {
            let decoder = try open(data, name)
            var playback = TerminalPlayback(decoder: decoder, width: 100, height: 30, symbols: .half, depth: .direct, fit: .fit,
                                            cellAspect: 0.5, loop: true, limit: seconds)
            playback.graphics = graphics
            let before = Self.cpuSeconds()
            let summary: TerminalPlayback.Summary
            do { summary = try playback.run { _ in } } catch { throw fail("\(SafeText.line(name)): \(error)") }
            let cpu = Self.cpuSeconds() - before
            let perFrame = summary.shown > 0 ? summary.bytes / summary.shown : 0
            if json {
                print(JSONValue.object([
                    "bench": "video-pixels", "file": .string(name), "protocol": .string(graphics.rawValue), "cells": "100x30",
                    "pixels": "1000x600", "video_seconds": .rounded(seconds, places: 3), "frames_shown": .int(summary.shown),
                    "frames_dropped": .int(summary.dropped), "cpu_seconds_per_video_second": .rounded(cpu / seconds, places: 3),
                    "bytes_per_frame": .int(perFrame),
                ]).text())
            } else {
                print("real-time playback 100x30 in \(graphics.rawValue) (1000×600 pixels), \(f(seconds)) s of video: \(summary.shown) frames shown, \(summary.dropped) dropped, CPU \(f(cpu / seconds)) s per s of video, \(perFrame) bytes per frame")
            }
        }
    }

    private func open(_ data: Data, _ name: String) throws -> VideoDecoder {
        do { return try VideoDecoder(data: data) } catch { throw fail("\(SafeText.line(name)): \(error)") }
    }

    private func f(_ value: Double) -> String { String(format: "%.3f", value) }

    /// User + system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> any Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
