import ArgumentParser
import Foundation
import StoriesAssets
import StoriesCells
import StoriesCore
import StoriesMedia
import StoriesCommandLine

/// `stories bench graphics` (issue 31, point 7): real pixels, side by side in one run.
/// First what encoding costs here — an 800×1200 picture as sixel (the target: 20 ms) and
/// as the PNG kitty and iTerm2 are sent — then, for each protocol, the time to show a photo
/// (the whole command, start to last byte) and the bytes written, for `stories print`,
/// `chafa -f` and `timg -p` on the same file at the same size in cells. Without a terminal
/// each program guesses the cell's pixel size its own way, so the pixels each one wrote are
/// said too, and bytes and time are also given per thousand pixels.
struct GraphicsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graphics",
        abstract: "Time sixel, kitty and iTerm2 output against chafa and timg on the same photo."
    )

    @Option(help: ArgumentHelp("The photo (default: the demo's astronaut).", valueName: "file"))
    var file: String?

    @Option(help: "Runs of each, for the medians.")
    var runs = 9

    @Option(help: ArgumentHelp("The size in cells, WxH.", valueName: "size"))
    var size = "100x30"

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func validate() throws {
        guard (1...200).contains(runs) else { throw ValidationError("--runs takes 1 to 200") }
        _ = try parseSize(size)
    }

    mutating func run() throws {
        BenchCommand.warnIfDebugBuild()
        guard let path = file ?? DemoFeed.directory?.appendingPathComponent("media/astronaut.jpg").path else {
            throw fail("the embedded demo feed is missing next to the binary; pass --file")
        }
        let data = try ImageDecoder.readFile(at: URL(fileURLWithPath: path))
        let photo = try ImageDecoder.decode(data, minimumSize: (800, 1200))
        let picture = ImageScaler.scale(photo, width: 800, height: 1200, fit: .fill)

        // Encoding alone, in this process.
        var sixelTimes: [Double] = [], pngTimes: [Double] = [], paletteTimes: [Double] = []
        var sixelBytes = 0, pngBytes = 0
        for _ in 0..<runs {
            var start = DispatchTime.now().uptimeNanoseconds
            sixelBytes = SixelEncoder.encode(picture).count
            sixelTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            start = DispatchTime.now().uptimeNanoseconds
            _ = SixelEncoder.medianCut(picture, colours: 255)
            paletteTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            start = DispatchTime.now().uptimeNanoseconds
            pngBytes = ImageEncoder.png(picture, fast: true)?.count ?? 0
            pngTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let sixel = Stats.medianAndP90(sixelTimes), png = Stats.medianAndP90(pngTimes)
        let palette = Stats.medianAndP90(paletteTimes).median
        if json {
            print(JSONValue.object([
                "bench": "graphics", "encode": "sixel", "pixels": "800x1200", "ms": .rounded(sixel.median, places: 2),
                "p90": .rounded(sixel.p90, places: 2), "palette_ms": .rounded(palette, places: 2), "bytes": .int(sixelBytes),
            ]).text())
            print(JSONValue.object([
                "bench": "graphics", "encode": "png", "pixels": "800x1200", "ms": .rounded(png.median, places: 2),
                "p90": .rounded(png.p90, places: 2), "bytes": .int(pngBytes),
            ]).text())
        } else {
            print("encoding an 800×1200 picture, median of \(runs) (p90):")
            print("  sixel  \(format(sixel.median)) ms (\(format(sixel.p90))), its palette \(format(palette)) ms; \(sixelBytes) bytes")
            print("  PNG    \(format(png.median)) ms (\(format(png.p90))), what kitty and iTerm2 are sent; \(pngBytes) bytes")
            print("")
            print("showing \(SafeText.line(URL(fileURLWithPath: path).lastPathComponent, maxColumns: 60)) at \(size) cells: the whole command, median of \(runs)")
            print("protocol  program  pixels      ms       bytes     ms/kpx  bytes/px")
        }

        // Whole commands, side by side.
        let me = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).path } ?? "stories"
        let grid = size.lowercased()
        let commands: [(GraphicsProtocol, String, [String])] = [
            (.sixel, "stories", [me, "print", "--graphics", "sixel", "--size", grid, path]),
            (.sixel, "chafa", ["chafa", "-f", "sixels", "-s", grid, "--animate", "off", path]),
            (.kitty, "stories", [me, "print", "--graphics", "kitty", "--size", grid, path]),
            (.kitty, "chafa", ["chafa", "-f", "kitty", "-s", grid, "--animate", "off", path]),
            (.kitty, "timg", ["timg", "-pk", "-g" + grid, path]),
            (.iterm, "stories", [me, "print", "--graphics", "iterm", "--size", grid, path]),
            (.iterm, "chafa", ["chafa", "-f", "iterm", "-s", grid, "--animate", "off", path]),
            (.iterm, "timg", ["timg", "-pi", "-g" + grid, path]),
        ]
        for (graphics, program, command) in commands {
            guard program == "stories" || FidelityBench.which(program) != nil else {
                print(json ? JSONValue.object(["bench": "graphics", "protocol": .string(graphics.rawValue), "program": .string(program), "missing": true]).text()
                    : "\(graphics.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0))\(program): not installed")
                continue
            }
            var times: [Double] = []
            var output = Data()
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                output = try FidelityBench.output(of: command)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let time = Stats.medianAndP90(times).median
            let pixels = Self.pixels(in: output, graphics: graphics)
            // A size not read from the stream (chafa's iTerm2 pictures are TIFF) is left unsaid.
            let area = pixels.width * pixels.height
            let perKilopixel = area > 0 ? String(format: "%.4f", time * 1000 / Double(area)) : "null"
            let perPixel = area > 0 ? String(format: "%.3f", Double(output.count) / Double(area)) : "null"
            if json {
                print(JSONValue.object([
                    "bench": "graphics", "protocol": .string(graphics.rawValue), "program": .string(program),
                    "pixels": .string("\(pixels.width)x\(pixels.height)"), "ms": .rounded(time, places: 2), "bytes": .int(output.count),
                    "ms_per_kpx": area > 0 ? .rounded(time * 1000 / Double(area), places: 4) : .null,
                    "bytes_per_px": area > 0 ? .rounded(Double(output.count) / Double(area), places: 3) : .null,
                ]).text())
            } else {
                print([graphics.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0),
                       program.padding(toLength: 9, withPad: " ", startingAt: 0),
                       (area > 0 ? "\(pixels.width)×\(pixels.height)" : "?").padding(toLength: 12, withPad: " ", startingAt: 0),
                       format(time).padding(toLength: 9, withPad: " ", startingAt: 0),
                       "\(output.count)".padding(toLength: 10, withPad: " ", startingAt: 0),
                       (area > 0 ? perKilopixel : "?").padding(toLength: 8, withPad: " ", startingAt: 0),
                       area > 0 ? perPixel : "?"].joined())
            }
        }
    }

    func format(_ value: Double) -> String { String(format: "%.2f", value) }

    /// The size in pixels of the picture in `output`: sixel's raster attributes, kitty's
    /// `s=`/`v=` (or the PNG's header), iTerm2's PNG or TIFF header.
    static func pixels(in output: Data, graphics: GraphicsProtocol) -> (width: Int, height: Int) {
        let text = String(decoding: output.prefix(4096), as: UTF8.self)
        switch graphics {
        case .sixel:
            guard let range = text.range(of: "q\"") else { return (0, 0) }
            let numbers = text[range.upperBound...].prefix { $0.isNumber || $0 == ";" }.split(separator: ";").compactMap { Int($0) }
            return numbers.count >= 4 ? (numbers[2], numbers[3]) : (0, 0)
        case .kitty, .iterm:
            if graphics == .kitty, let s = Self.key("s", in: text), let v = Self.key("v", in: text) { return (s, v) }
            // The first payload's start, decoded: a PNG's IHDR, or a TIFF's first tags.
            let marker = graphics == .kitty ? ";" : ":"
            guard let start = text.firstIndex(of: graphics == .kitty ? "_" : "]"),
                  let semicolon = text[start...].range(of: marker) else { return (0, 0) }
            let base64 = String(text[semicolon.upperBound...].prefix(64))
            guard let head = Data(base64Encoded: String(base64.prefix(base64.count / 4 * 4))), head.count >= 24,
                  head.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return (0, 0) }
            let bytes = Array(head)
            func big(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
            return (big(16), big(20))
        case .cells:
            return (0, 0)
        }
    }

    static func key(_ name: String, in text: String) -> Int? {
        guard let range = text.range(of: "," + name + "=") ?? text.range(of: "G" + name + "=") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
