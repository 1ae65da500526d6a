import StoriesCells
import ArgumentParser
import Foundation
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories bench …`: benchmarks with medians, for release builds.
public struct BenchCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (build with -c release).",
        subcommands: [RenderBench.self, ViewModelBench.self, NavigationBench.self, VideoBench.self, MemoryBench.self, FramesBench.self, FidelityBench.self, GraphicsBench.self, SoundBench.self, FilmBench.self, HoldBench.self]
    )

    /// A debug build's figures are 4–5× a release build's: said on stderr before any, so
    /// nobody compares them with a peer's by mistake.
    static func warnIfDebugBuild() {
        #if DEBUG
        let line = "stories: warning: this is a debug build, whose figures are 4-5x slower than a release build's; "
            + "for figures to compare, run: swift run -c release stories bench …\n"
        FileHandle.standardError.write(Data(line.utf8))
        #endif
    }
}

/// `stories bench render`: decode + scale + cells for a 1080×1920 story photo, JPEG and PNG,
/// at 45×40 and 67×60 cells; medians over many runs.
struct RenderBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Time decode + scale + cells for a 1080×1920 JPEG and PNG."
    )

    @Option(help: "Runs per case.")
    var runs = 100

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Also write the sample photo as photo.jpg and photo.png into this folder (for comparing with chafa and timg).", valueName: "dir"))
    var writeSamples: String?

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        let photo = SamplePhoto.make(width: 1080, height: 1920)
        guard let jpeg = ImageEncoder.jpeg(photo, quality: 90), let png = ImageEncoder.png(photo) else {
            throw fail("could not encode the sample photo")
        }
        if let writeSamples {
            let dir = URL(fileURLWithPath: writeSamples)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try jpeg.write(to: dir.appendingPathComponent("photo.jpg"))
            try png.write(to: dir.appendingPathComponent("photo.png"))
        }
        if !json {
            print("decode + scale + cells, 1080×1920 sample photo, \(runs) runs each (medians; p90 in brackets)")
            print("format  bytes     cells   colours    decoded    median ms [p90]")
        }
        for (name, data) in [("jpeg", jpeg), ("png", png)] {
            for (width, height) in [(45, 40), (67, 60)] {
                for depth in [ColorDepth.palette256, .direct] {
                    var times: [Double] = []
                    var decodedSize = (0, 0)
                    for _ in 0..<runs {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let image = try decode(data, cells: (width, height))
                        let cells = CellImage(image, width: width, height: height, symbols: .half, depth: depth, fit: .fill)
                        let end = DispatchTime.now().uptimeNanoseconds
                        guard cells.width == width else { throw ValidationError("the cells came out \(cells.width) wide, not \(width)") }
                        decodedSize = (image.width, image.height)
                        times.append(Double(end - start) / 1e6)
                    }
                    let (median, p90) = Stats.medianAndP90(times)
                    let colours = depth == .direct ? "truecolor" : "256"
                    if json {
                        print(JSONValue.object([
                            "bench": "render", "format": .string(name), "bytes": .int(data.count), "cells": .string("\(width)x\(height)"),
                            "colors": .string(colours), "decoded": .string("\(decodedSize.0)x\(decodedSize.1)"), "runs": .int(runs),
                            "median_ms": .rounded(median, places: 3), "p90_ms": .rounded(p90, places: 3),
                        ]).text())
                    } else {
                        let columns = [name, "\(data.count)", "\(width)x\(height)", colours, "\(decodedSize.0)x\(decodedSize.1)"]
                        let padded = zip(columns, [8, 10, 8, 11, 11]).map { column, width in column + String(repeating: " ", count: max(1, width - column.count)) }
                        print(padded.joined() + String(format: "%.2f [%.2f]", median, p90))
                    }
                }
            }
        }
    }

    private func decode(_ data: Data, cells: (Int, Int)) throws -> RGBImage {
        do {
            return try ImageDecoder.decode(data, minimumSize: (cells.0, cells.1 * 2))
        } catch {
            throw fail("the sample photo did not decode: \(error)")
        }
    }
}

enum Stats {
    /// The median and the 90th percentile of a non-empty list.
    static func medianAndP90(_ values: [Double]) -> (median: Double, p90: Double) {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
    }
}
