import StoriesCells
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesMedia
import StoriesCore
import StoriesCommandLine

/// `stories bench fidelity`: how faithful pictures in cells are, stories beside chafa and
/// timg, by one method for all: each picture is centre-cropped to the grid's shape and
/// given to every renderer at the same size; the text each prints is drawn back into
/// pixels (`CellDrawBack`: each cell's symbol coverage in its foreground over its
/// background) and compared with the crop at the same size — SSIM on luma, PSNR on RGB —
/// with the median time the whole process took.
struct FidelityBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fidelity",
        abstract: "Compare pictures in cells with the source (SSIM, PSNR), stories beside chafa and timg."
    )

    @Argument(help: "Pictures (JPEG, PNG, WebP); default: the demo's photos.")
    var pictures: [String] = []

    @Option(help: ArgumentHelp("Cells, WxH.", valueName: "WxH"))
    var size = "80x40"

    @Option(help: "Runs of each renderer, for its median time.")
    var runs = 3

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Colour depths to measure, among truecolor, 256, 16, 8.", valueName: "list"))
    var colors = "truecolor,256,16,8"

    @Option(help: ArgumentHelp("Write each picture's crop and every renderer's cells drawn back, as PNG, into this folder.", valueName: "dir"))
    var drawBack: String?

    struct Renderer {
        var name: String
        var peer: String
        var symbols: String
        var colors: String
        var command: [String]
    }

    struct Result {
        var picture: String
        var renderer: Renderer
        var ssim: Double
        var psnr: Double
        var milliseconds: Double
        var columns: Int
        var rows: Int
        var unknown: Int
    }

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        guard runs >= 1, runs <= 100 else { throw ValidationError("--runs must be 1 to 100") }
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (8...400).contains(parts[0]), (4...200).contains(parts[1]) else {
            throw ValidationError("--size must be WxH, 8-400 by 4-200 (got \(size))")
        }
        let (columns, rows) = (parts[0], parts[1])
        let depths = colors.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !depths.isEmpty, depths.allSatisfy(Self.depths.contains) else {
            throw ValidationError("--colors takes a list of \(Self.depths.joined(separator: ", ")) (got \(SafeText.line(colors, maxColumns: 40)))")
        }
        var files = pictures
        if files.isEmpty {
            guard let demo = DemoFeed.directory?.appendingPathComponent("media") else { throw fail("the demo's photos are not here") }
            files = ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "retina.jpg", "rocket.jpg", "hubble.jpg", "brick.jpg", "camera.png"]
                .map { demo.appendingPathComponent($0).path }
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stories-fidelity-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        if let drawBack { try FileManager.default.createDirectory(atPath: drawBack, withIntermediateDirectories: true) }
        let peers = ["chafa", "timg"].filter { Self.which($0) != nil }
        if !json {
            print("pictures in cells at \(columns)×\(rows), drawn back at \(CellDrawBack.cellWidth)×\(CellDrawBack.cellHeight) pixels a cell; "
                  + "SSIM (luma) and PSNR (RGB, dB) against the centre crop; median ms of \(runs) runs of the whole process")
            for missing in ["chafa", "timg"] where !peers.contains(missing) {
                print("(\(missing) is not installed: apt-get install \(missing))")
            }
        }
        var results: [Result] = []
        for file in files {
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            let data: Data
            let image: RGBImage
            do {
                data = try ImageDecoder.readFile(at: URL(fileURLWithPath: file))
                image = try ImageDecoder.decode(data)
            } catch {
                throw fail("\(file): \(error)")
            }
            // The crop every renderer is given: the grid's shape (cells twice as tall as wide).
            let crop = ImageScaler.centreCropped(image, width: columns * 12, height: rows * 24)
            let cropURL = scratch.appendingPathComponent(name + ".png")
            guard let png = ImageEncoder.png(crop) else { throw fail("\(file): the crop could not be written") }
            try png.write(to: cropURL)
            if let drawBack { try png.write(to: URL(fileURLWithPath: drawBack).appendingPathComponent("\(name)-source.png")) }
            for renderer in Self.renderers(columns: columns, rows: rows, file: cropURL.path, peers: peers, depths: depths) {
                var times: [Double] = []
                var output = Data()
                for _ in 0..<runs {
                    let start = DispatchTime.now().uptimeNanoseconds
                    output = try Self.output(of: renderer.command)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                var cells = CellDrawBack(ansi: String(decoding: output, as: UTF8.self))
                guard cells.columns > 0, cells.rows > 0 else { throw fail("\(renderer.name) printed nothing for \(file)") }
                let drawn = cells.pixels()
                let reference = ImageScaler.scale(crop, width: drawn.width, height: drawn.height, fit: .fill, pixelAspect: 1)
                let result = Result(picture: name, renderer: renderer, ssim: PictureMetrics.ssim(reference, drawn),
                                    psnr: PictureMetrics.psnr(reference, drawn), milliseconds: Stats.medianAndP90(times).median,
                                    columns: cells.columns, rows: cells.rows, unknown: cells.unknown)
                results.append(result)
                if let drawBack, let png = ImageEncoder.png(drawn) {
                    try png.write(to: URL(fileURLWithPath: drawBack).appendingPathComponent("\(name)-\(renderer.name)-\(renderer.colors).png"))
                }
                if json {
                    print(JSONValue.object([
                        "bench": "fidelity", "picture": .string(name), "renderer": .string(renderer.peer), "name": .string(renderer.name),
                        "symbols": .string(renderer.symbols), "colors": .string(renderer.colors), "ssim": .rounded(result.ssim, places: 4),
                        "psnr": .rounded(result.psnr, places: 2), "ms": .rounded(result.milliseconds, places: 2),
                        "cells": .string("\(result.columns)x\(result.rows)"), "unknown_cells": .int(result.unknown),
                    ]).text())
                }
            }
            if !json { Self.table(results.filter { $0.picture == name }) }
        }
        if !json { Self.summary(results) }
    }

    /// Every renderer at every depth, in the order of the table.
    static let depths = ["truecolor", "256", "16", "8"]

    static func renderers(columns: Int, rows: Int, file: String, peers: [String], depths: [String] = Self.depths) -> [Renderer] {
        let me = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let grid = "\(columns)x\(rows)"
        var list: [Renderer] = []
        for colors in depths {
            for symbols in CellSymbols.allCases {
                list.append(Renderer(name: "stories-\(symbols.rawValue)", peer: "stories", symbols: symbols.rawValue, colors: colors,
                                     command: [me, "print", "--size", grid, "--colors", colors, "--symbols", symbols.rawValue, "--fit", "fill", file]))
            }
            if peers.contains("chafa") {
                let chafa = ["chafa", "--size", grid, "--stretch", "--format", "symbols", "--animate", "off"]
                switch colors {
                case "truecolor":
                    list.append(Renderer(name: "chafa-vhalf", peer: "chafa", symbols: "vhalf", colors: colors,
                                         command: chafa + ["-c", "full", "--symbols", "vhalf", file]))
                    list.append(Renderer(name: "chafa-sextant", peer: "chafa", symbols: "block+sextant+space", colors: colors,
                                         command: chafa + ["-c", "full", "--symbols", "block+sextant+space", file]))
                    list.append(Renderer(name: "chafa-default", peer: "chafa", symbols: "default", colors: colors,
                                         command: chafa + ["-c", "full", file]))
                default:
                    list.append(Renderer(name: "chafa-default", peer: "chafa", symbols: "default", colors: colors,
                                         command: chafa + ["-c", colors, file]))
                    list.append(Renderer(name: "chafa-vhalf", peer: "chafa", symbols: "vhalf", colors: colors,
                                         command: chafa + ["-c", colors, "--symbols", "vhalf", file]))
                }
            }
            if peers.contains("timg"), colors == "truecolor" {
                list.append(Renderer(name: "timg-ph", peer: "timg", symbols: "half", colors: colors, command: ["timg", "-g", grid, "-ph", file]))
                list.append(Renderer(name: "timg-pq", peer: "timg", symbols: "quarter", colors: colors, command: ["timg", "-g", grid, "-pq", file]))
            }
        }
        return list
    }

    static func table(_ results: [Result]) {
        guard let first = results.first else { return }
        print("\n\(first.picture)")
        print("colours    renderer         SSIM    PSNR    ms      cells")
        for r in results {
            let columns = [r.renderer.colors, r.renderer.name, String(format: "%.3f", r.ssim), String(format: "%.2f", r.psnr),
                           String(format: "%.1f", r.milliseconds), "\(r.columns)x\(r.rows)" + (r.unknown > 0 ? " (\(r.unknown) unknown)" : "")]
            print(zip(columns, [11, 17, 8, 8, 8, 0]).map { column, width in column + String(repeating: " ", count: max(1, width - column.count)) }.joined())
        }
    }

    /// Against the targets: at each depth, stories' best beside the peers' best, picture by
    /// picture; half blocks beside chafa's vhalf; times against chafa's.
    static func summary(_ results: [Result]) {
        print("\nagainst the targets (stories' best set beside the peer's best; Δ = stories − peer)")
        let pictures = results.map(\.picture).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for colors in Self.depths {
            for picture in pictures {
                let here = results.filter { $0.picture == picture && $0.renderer.colors == colors }
                let ours = here.filter { $0.renderer.peer == "stories" }, theirs = here.filter { $0.renderer.peer != "stories" }
                guard let best = ours.max(by: { $0.ssim < $1.ssim }), let peer = theirs.max(by: { $0.ssim < $1.ssim }) else { continue }
                let half = ours.first { $0.renderer.symbols == "half" }, vhalf = theirs.first { $0.renderer.name == "chafa-vhalf" }
                var line = String(format: "%-10@ %-10@ %@ SSIM %.3f vs %@ %.3f (Δ %+.3f), PSNR %.2f vs %.2f (Δ %+.2f)", colors as NSString,
                                  picture as NSString, best.renderer.name as NSString, best.ssim, peer.renderer.name as NSString, peer.ssim,
                                  best.ssim - peer.ssim, best.psnr, peer.psnr, best.psnr - peer.psnr)
                if let half, let vhalf {
                    line += String(format: "; half %.3f vs vhalf %.3f", half.ssim, vhalf.ssim)
                }
                let peerBestTime = theirs.first { $0.renderer.name == (colors == "truecolor" ? "chafa-sextant" : "chafa-default") }
                if let peerBestTime {
                    line += String(format: "; time %.2f×", best.milliseconds / max(0.01, peerBestTime.milliseconds))
                }
                print(line)
            }
        }
    }

    /// Where a program is on PATH.
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a command and returns what it wrote to standard output (its errors go nowhere),
    /// with `posix_spawn` and a pipe: Foundation's `Process` added tens of milliseconds to
    /// every run, more than a renderer takes.
    static func output(of command: [String]) throws -> Data {
        guard let program = command.first, let path = program.hasPrefix("/") ? program : which(program) else {
            throw fail("\(command.first ?? "?") is not installed")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw fail("no pipe for \(program)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["COLORTERM"] = "truecolor"
        let arguments = ([path] + command.dropFirst()).map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, arguments, variables)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw fail("\(program) could not be started (\(String(cString: strerror(spawned))))")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n > 0 { data.append(contentsOf: buffer[0..<n]); continue }
            if n < 0, errno == EINTR { continue }
            break
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else { throw fail("\(command.joined(separator: " ")) failed (status \(status))") }
        return data
    }
}
