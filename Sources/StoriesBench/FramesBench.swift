import StoriesFeedIO
import StoriesCells
import ArgumentParser
import Foundation
import StoriesApp
import StoriesAssets
import StoriesCore
import StoriesMedia
import StoriesTerminal
import StoriesUI
import StoriesCommandLine

/// `stories bench frames`: what one animation frame costs at 120×40 — the cube between two
/// photo stories, the zoom in from the bubble and back out, and a pull-down dismiss (the
/// drag's frames and the shrink to the bubble after it) — drawing the screen (the
/// pure render of state and caches) and writing it: through ncurses (the diff, colour
/// pairs, `doupdate` into /dev/null through a real terminfo entry) and, side by side, past
/// it through the frame writer as the viewer writes a motion's frames. The app runs on the virtual
/// clock with the demo feed, so every run draws the same frames.
struct FramesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Time cube, zoom and dismiss frames: drawing and output (120×40 by default)."
    )

    @Option(help: ArgumentHelp("The screen, COLUMNSxROWS.", valueName: "size"))
    var size = "120x40"

    @Option(help: "Cube turns, zoom in-and-outs and dismisses to time, each.")
    var runs = 20

    @Option(help: ArgumentHelp("Colour depths, comma-separated: truecolor, 256.", valueName: "list"))
    var colors = "truecolor,256"

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func depths() throws -> [ColorDepth] {
        let names = colors.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let depths = names.compactMap { ColorDepth(name: $0) }.filter { $0 == .direct || $0 == .palette256 }
        guard !depths.isEmpty, depths.count == names.count else {
            throw ValidationError("--colors takes truecolor and/or 256; got '\(colors)'")
        }
        return depths
    }

    func validate() throws {
        _ = try depths()
        _ = try parseSize(size)
        guard (1...1000).contains(runs) else { throw ValidationError("--runs takes 1 to 1000") }
    }

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        let (width, height) = try parseSize(size)
        guard let directory = DemoFeed.directory, let demo = try? FeedFolder(directory: directory) else {
            throw fail("the embedded demo feed is missing next to the binary")
        }
        if !json {
            print("frames at \(width)×\(height), the demo feed on the virtual clock, \(runs) of each (median ms per frame; p90 in brackets)")
            print("colours    animation  written by     frames  draw          output        total         cells written")
        }
        for depth in try depths() {
            // Side by side: the frames through ncurses, and written past it as the viewer does.
            let results = try MainActor.assumeIsolated {
                try FrameTiming.run(source: demo, width: width, height: height, depth: depth, runs: runs, direct: false)
                    + FrameTiming.run(source: demo, width: width, height: height, depth: depth, runs: runs, direct: true)
            }
            for result in results {
                if json {
                    print(result.jsonLine)
                } else {
                    print(result.tableLine)
                }
            }
        }
    }
}

@MainActor
enum FrameTiming {
    /// Which animation the frames drawn now belong to (0 cube, 1 zoom, 2 dismiss).
    final class Phase {
        var index = 1
    }

    struct Result {
        var depth: ColorDepth
        var animation: String
        /// Who wrote the frames: "ncurses", or "frame writer" (past ncurses, as the viewer does).
        var writer: String
        var draw: [Double] = []
        var output: [Double] = []
        var cells: [Int] = []

        var total: [Double] { zip(draw, output).map { $0 + $1 } }

        func stat(_ values: [Double]) -> (median: Double, p90: Double) {
            values.isEmpty ? (.nan, .nan) : Stats.medianAndP90(values)
        }

        var jsonLine: String {
            let (d, o, t) = (stat(draw), stat(output), stat(total))
            func n(_ v: Double) -> JSONValue { .rounded(v, places: 3) }
            return JSONValue.object([
                "bench": "frames", "colors": .string(depth.name), "animation": .string("\(animation)"), "writer": .string("\(writer)"),
                "frames": .int(draw.count), "draw_ms": n(d.median), "draw_p90_ms": n(d.p90), "output_ms": n(o.median), "output_p90_ms": n(o.p90),
                "frame_ms": n(t.median), "frame_p90_ms": n(t.p90), "cells_median": .int(cells.sorted()[safe: cells.count / 2] ?? 0),
            ]).text()
        }

        var tableLine: String {
            func cell(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
            func pair(_ v: (median: Double, p90: Double)) -> String { String(format: "%.2f [%.2f]", v.median, v.p90) }
            return cell(depth.name, 11) + cell(animation, 11) + cell(writer, 15) + cell("\(draw.count)", 8) + cell(pair(stat(draw)), 14)
                + cell(pair(stat(output)), 14) + cell(pair(stat(total)), 14) + "\(cells.sorted()[safe: cells.count / 2] ?? 0)"
        }
    }

    /// `direct`: motion frames written past ncurses (the viewer's way); false: every frame
    /// through ncurses, as before.
    static func run(source: any FeedSource, width: Int, height: Int, depth: ColorDepth, runs: Int, direct: Bool) throws -> [Result] {
        // ncurses writing into /dev/null through the terminfo entry a terminal of this
        // depth would have, at this size.
        setenv("COLUMNS", "\(width)", 1)
        setenv("LINES", "\(height)", 1)
        guard let output = fopen("/dev/null", "w"), let input = fopen("/dev/null", "r") else {
            throw fail("/dev/null cannot be opened")
        }
        let term = depth == .direct ? "xterm-direct" : "xterm-256color"
        let screen: CursesScreen
        do { screen = try CursesScreen(termName: term, input: input, output: output, environment: [:], mouse: false) } catch {
            throw fail("ncurses: \(error) (\(term) needs the ncurses-term package)")
        }
        defer {
            screen.close()
            fclose(output)
            fclose(input)
        }
        let start = Moment(uptime: 1000, date: Date(timeIntervalSince1970: 1_795_240_800))
        let scheduler = VirtualScheduler(start: start)
        let services = VirtualServices(client: FeedClient(source: source, profile: .local), scheduler: scheduler)
        let engine = AppEngine(services: services, scheduler: scheduler, width: width, height: height)
        engine.setDisplay(Display(colorDepth: screen.colorDepth))
        let writer = direct ? "frame writer" : "ncurses"
        var results = ["cube", "zoom", "dismiss"].map { Result(depth: depth, animation: $0, writer: writer) }
        // What the inputs just sent set moving: each frame of a motion counts for it.
        let phase = Phase()
        engine.draw = { _ in
            let began = DispatchTime.now().uptimeNanoseconds
            var canvas = engine.render()
            let isMotion = canvas.isMotion
            if !direct { canvas.isMotion = false }
            let drawn = DispatchTime.now().uptimeNanoseconds
            screen.draw(canvas)
            let ended = DispatchTime.now().uptimeNanoseconds
            guard isMotion else { return }
            results[phase.index].draw.append(Double(drawn - began) / 1e6)
            results[phase.index].output.append(Double(ended - drawn) / 1e6)
            results[phase.index].cells.append(screen.lastDrawnCellCount)
        }
        engine.start()
        func settle(_ seconds: Double) { _ = scheduler.run(until: scheduler.now().uptime + seconds, limit: 1_000_000) }
        settle(1)
        func mouse(_ kind: MouseEvent.Kind, _ row: Int) {
            engine.input(.mouse(MouseEvent(kind: kind, column: width / 2, row: row)))
            settle(1.0 / 30)
        }
        for _ in 0..<runs {
            // Zoom in from the first bubble (a photo story), and back out.
            phase.index = 1
            engine.input(.key(.enter))
            settle(1)
            engine.input(.key(.character(" "))) // paused: only the animations draw
            settle(0.2)
            // The cube to the next story and back, between full-screen photos.
            phase.index = 0
            engine.input(.key(.character("]")))
            settle(1)
            engine.input(.key(.character("[")))
            settle(1)
            phase.index = 1
            engine.input(.key(.escape))
            settle(1)
            engine.input(.key(.enter))
            settle(1)
            engine.input(.key(.character(" ")))
            settle(0.2)
            // Pulled down to dismiss: the face follows the pointer, then shrinks to its bubble.
            phase.index = 2
            mouse(.press(.left), height / 4)
            for step in 1...12 { mouse(.drag(.left), height / 4 + step * height / 2 / 12) }
            mouse(.release(.left), height * 3 / 4)
            settle(1)
        }
        return results
    }
}
