import Foundation
import StoriesCore
import StoriesTestSupport
import Testing

/// The paths that never reach the screen: flags, bad feeds, no terminal.
@Suite(.ownThread) struct CommandLineTests {
    @Test func helpAndVersion() throws {
        let help = try Binary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("view (default)"))
        #expect(help.out.contains("print"))
        #expect(help.out.contains("--version"))
        // The viewer is the default: its flags are in the first help a newcomer reads.
        for flag in ["--feed <path>", "--synthetic <N>", "--network <name>", "--reduce-motion", "--record <file>", "--headless"] {
            #expect(help.out.contains(flag), "stories --help shows \(flag)")
        }
        #expect(help.out.components(separatedBy: "--version").count == 2, "said once")
        let short = try Binary.run(["-h"]), word = try Binary.run(["help"])
        #expect(short.out == help.out && word.out == help.out)
        // Completion scripts come from the commands themselves, the newest flags included.
        for shell in ["bash", "zsh", "fish"] {
            let script = try Binary.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            for flag in ["gesture-log", "until", "seed", "synthetic"] { #expect(script.out.contains(flag), "\(shell) completes --\(flag)") }
        }
        let view = try Binary.run(["view", "--help"])
        #expect(view.status == 0)
        #expect(view.out.contains("--feed <path>"))
        #expect(view.out.contains("Keys:"))
        let version = try Binary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.out == "stories 0.1.0\n")
    }

    @Test func aMissingFeedExitsNonZeroWithOneLine() throws {
        let result = try Binary.run(["--feed", "/nonexistent/feed"])
        #expect(result.status == 1)
        #expect(result.out.isEmpty, "nothing drawn")
        #expect(result.err == "stories: /nonexistent/feed: no such file or folder\n")
    }

    @Test func aMalformedFeedNamesTheFileAndField() throws {
        let feed = FileManager.default.temporaryDirectory.appendingPathComponent("bad-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: feed, withIntermediateDirectories: true)
        try #"{"version":1,"stories":[42]}"#.write(to: feed.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        let result = try Binary.run(["--feed", feed.path])
        #expect(result.status == 1)
        #expect(result.out.isEmpty)
        #expect(result.err == "stories: \(feed.path)/feed.json: stories[0]: expected a string, found a number\n")
    }

    @Test func networkFlagsAreChecked() throws {
        let unknown = try Binary.run(["--network", "5g"])
        #expect(unknown.status == 64)
        #expect(unknown.err.contains("--network: unknown profile '5g'; choose one of 3g, 4g, local, offline, wifi"))
        let latency = try Binary.run(["--latency", "soon"])
        #expect(latency.status == 64 && latency.err.contains("--latency: 'soon' is not a time like 300ms or 1.5s"))
        let bandwidth = try Binary.run(["--bandwidth", "fast"])
        #expect(bandwidth.status == 64 && bandwidth.err.contains("--bandwidth: 'fast' is not a rate like 2MB/s or 500KB/s"))
        let fail = try Binary.run(["--fail", "2"])
        #expect(fail.status == 64 && fail.err.contains("--fail takes a share from 0 to 1; got 2.0"))
    }

    @Test func benchViewModelsPrintsOneJSONObjectPerLine() throws {
        let result = try Binary.run(["bench", "viewmodels", "--json", "--runs", "1", "--frames", "300"]) // far enough along 1012 stories for item models to be let go and built again
        #expect(result.status == 0)
        // The tests run a debug build: its figures are not to be compared, and it says so.
        #expect(result.err.hasPrefix("stories: warning: this is a debug build"), "\(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 4)
        var sizes: [Int] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let stories = object["stories"] as? Int {
                sizes.append(stories)
                #expect((object["build_ms"] as? Double ?? -1) > 0)
            } else {
                #expect((object["frame_us_10"] as? Double ?? -1) > 0)
                #expect((object["frame_us_1012"] as? Double ?? -1) > 0)
            }
        }
        #expect(sizes == [170, 200, 1012])
    }

    @Test func withoutATerminalItSaysSo() throws {
        let result = try Binary.run([])
        #expect(result.status == 1)
        #expect(result.out.isEmpty)
        #expect(result.err.hasPrefix("stories: standard input and output must be a terminal"))
        #expect(result.err.split(separator: "\n").count == 1)
    }

    /// In a terminal, `stories print` takes the picture's own shape within the terminal, less
    /// two lines: the command stays in view above it and the prompt comes back below.
    @Test func printInATerminalFitsItsHeightAndKeepsTheCommandInView() throws {
        let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media").path
        let tmux = try Tmux(width: 100, height: 24)
        // A command short enough for one line, as a person would type it.
        try tmux.type("S=\(try Binary.requireBuilt()); cd \(media); clear")
        try tmux.type("$S print chelsea.jpg --colors 256")
        let lines = try tmux.waitFor("the photo and the prompt") { lines in
            lines.count > 23 && lines.contains { $0.contains("▀") } && (lines.last { !$0.isEmpty }.map { $0.hasSuffix("$") || $0.hasSuffix("# ") || $0.hasSuffix("#") } ?? false)
        }
        #expect(lines.first?.hasSuffix("$S print chelsea.jpg --colors 256") == true, "the command is still on screen: \(lines.first ?? "")")
        let rows = lines.filter { $0.contains("▀") }
        #expect(rows.count == 22, "the terminal's height less two lines")
        // A portrait photo (169×300) in cells half as wide as tall: about 25 columns, no bars.
        let width = rows.map { $0.count }.max() ?? 0
        #expect((20...28).contains(width), "\(width) columns")
    }

    @Test func printRendersAPhotoAndRejectsBadInputWithOneLine() throws {
        let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media")
        let ok = try Binary.run(["print", media.appendingPathComponent("chelsea.jpg").path, "--size", "20x10", "--colors", "256"])
        #expect(ok.status == 0)
        #expect(ok.out.split(separator: "\n").count == 10)
        #expect(ok.out.hasSuffix("\u{1B}[0m\n"))
        let text = try Binary.run(["print", "/etc/hostname"])
        #expect(text.status == 1)
        #expect(text.err == "stories: /etc/hostname: not a JPEG, PNG or WebP image\n")
        let size = try Binary.run(["print", "x.jpg", "--size", "0x5"])
        #expect(size.status == 64)
        #expect(size.err.contains("--size takes WxH in cells") && size.err.contains("stories print"))
    }

    /// `print` and `play` are parsed by a fast path (issue 17): every spelling of the same
    /// options prints the same, and whatever the fast path leaves is ArgumentParser's to
    /// answer, exactly as before.
    @Test func printsFastPathAcceptsWhatArgumentParserAcceptsAndNothingElse() throws {
        let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/chelsea.jpg").path
        let spaced = try Binary.run(["print", photo, "--size", "20x10", "--colors", "256", "--fit", "fill", "--symbols", "quad"])
        let joined = try Binary.run(["print", "--size=20x10", "--colors=256", "--fit=fill", "--symbols=quad", photo])
        #expect(spaced.status == 0 && !spaced.out.isEmpty)
        #expect(spaced.out == joined.out, "the same options, spelled either way, print the same")
        for (arguments, message) in [
            (["print", photo, "--colors", "nope"], "--colors takes truecolor, 256, 16, 8 or none"),
            (["print", photo, "--symbols", "hex"], "--symbols"),
            (["print", photo, photo], "Unexpected argument"),
            (["print", photo, "--loop"], "--loop"),
            (["play", photo, "--tolerance", "300"], "--tolerance must be 0 to 255"),
            (["print"], "Missing expected argument"),
        ] {
            let result = try Binary.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status)")
            #expect(result.err.contains(message), "\(arguments): \(result.err)")
        }
        let help = try Binary.run(["print", "--help"])
        #expect(help.status == 0 && help.out.contains("--symbols"))
        let playPhoto = try Binary.run(["play", photo, "--size", "20x10", "--colors", "256", "--fit", "fill", "--symbols", "quad"])
        #expect(playPhoto.status == 0 && playPhoto.out == spaced.out, "play shows a photo as print does")
    }

    /// `assets blurhash` hashes only regular files inside the feed folder: a `../` path, a
    /// link out of the folder and a FIFO are each said (printably) and left without a hash,
    /// and nothing outside the folder is read.
    @Test func assetsBlurhashReadsNothingOutsideTheFeedFolder() throws {
        let fm = FileManager.default
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/brick.jpg")
        let root = fm.temporaryDirectory.appendingPathComponent("e2e-assets-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: root) }
        let feed = root.appendingPathComponent("feed")
        try fm.createDirectory(at: feed.appendingPathComponent("stories"), withIntermediateDirectories: true)
        try fm.createDirectory(at: feed.appendingPathComponent("media"), withIntermediateDirectories: true)
        try fm.copyItem(at: demo, to: root.appendingPathComponent("outside.jpg"))
        try fm.copyItem(at: demo, to: feed.appendingPathComponent("media/ok.jpg"))
        try fm.createSymbolicLink(atPath: feed.appendingPathComponent("media/link.jpg").path, withDestinationPath: root.appendingPathComponent("outside.jpg").path)
        #expect(mkfifo(feed.appendingPathComponent("media/pipe.jpg").path, 0o644) == 0)
        try #"{"version":1,"title":"A","stories":["a"]}"#.write(to: feed.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        let paths = ["../outside.jpg", "media/link.jpg", "media/pipe.jpg", "media/\\u001b]0;pwned\\u0007x.jpg", "media/ok.jpg"]
        let items = paths.enumerated().map { #"{"id":"\#($0.offset)","type":"image","media":{"path":"\#($0.element)"}}"# }
        let story = feed.appendingPathComponent("stories/a.json")
        try (#"{"id":"a","author":{"name":"A"},"items":["# + items.joined(separator: ",") + "]}").write(to: story, atomically: true, encoding: .utf8)

        let result = try Binary.run(["assets", "blurhash", feed.path])
        #expect(!result.err.contains("\u{1B}") && !result.out.contains("\u{1B}"), "every message printable")
        #expect(result.err.contains("../outside.jpg"), "\(result.err)")
        #expect(result.err.contains("link.jpg") && result.err.contains("symbolic link"), "\(result.err)")
        #expect(result.err.contains("pipe.jpg") && result.err.contains("FIFO"), "\(result.err)")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: story)) as? [String: Any])
        let media = (written["items"] as? [[String: Any]] ?? []).map { $0["media"] as? [String: Any] ?? [:] }
        #expect(media.count == 5)
        #expect(media.prefix(4).allSatisfy { $0["blurhash"] == nil }, "nothing hashed but the one file inside: \(media)")
        #expect((media.last?["blurhash"] as? String)?.count ?? 0 >= 6, "the file inside is hashed")
    }

    /// `print` follows `TERM=dumb` and `NO_COLOR` when no `--colors` is given: shading
    /// characters only, not one escape sequence.
    @Test func printWritesNoEscapeSequenceToADumbTerminalOrWithNoColor() throws {
        let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/chelsea.jpg").path
        for environment in [["TERM": "dumb", "NO_COLOR": ""], ["TERM": "xterm-256color", "NO_COLOR": "1"]] {
            let result = try Binary.run(["print", photo, "--size", "20x6"], environment: environment)
            #expect(result.status == 0, "\(environment): \(result.err)")
            #expect(result.out.split(separator: "\n").count == 6)
            #expect(!result.out.contains("\u{1B}"), "\(environment)")
        }
        let colour = try Binary.run(["print", photo, "--size", "20x6"], environment: ["TERM": "xterm-256color", "NO_COLOR": "", "COLORTERM": ""])
        #expect(colour.out.contains("\u{1B}[38;5;"), "a colour terminal gets its colours")
    }

    /// Issue 30, point 5 (begun): a GIF prints as its first frame and plays by its delays.
    @Test func gifsPrintAndPlay() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StoriesMediaTests/Fixtures")
        let still = try Binary.run(["print", fixtures.appendingPathComponent("still.gif").path, "--size", "16x8", "--colors", "256"])
        #expect(still.status == 0, "\(still.err)")
        #expect(still.out.contains("\u{1B}[38;5;46") || still.out.contains("\u{1B}[48;5;46"), "lime, as palette 46")
        let moving = try Binary.run(["play", fixtures.appendingPathComponent("colors.gif").path, "--size", "16x8", "--colors", "256"])
        #expect(moving.status == 0, "\(moving.err)")
        #expect(moving.out.contains("5;21m") || moving.out.contains("5;21;"), "its blue frame was drawn")
        // Issue 49: print's help names GIF and says an animation prints its first frame.
        let help = try Binary.run(["print", "--help"])
        #expect(help.out.contains("JPEG, PNG, WebP or GIF") && help.out.contains("first frame"), "\(help.out)")
        let animated = try Binary.run(["print", fixtures.appendingPathComponent("mixed.gif").path, "--size", "16x8", "--colors", "truecolor"])
        #expect(animated.status == 0 && animated.out.contains("255;0;0") && !animated.out.contains("0;255;0"), "the first frame, red, alone")
    }

    @Test func theViewerTakesColorsAsPrintAndPlayDo() throws {
        let wrong = try Binary.run(["--colors", "12"])
        #expect(wrong.status == 64)
        #expect(wrong.err.contains("--colors takes truecolor, 256, 16, 8 or none; got '12'"))
        let help = try Binary.run(["help", "view"])
        #expect(help.out.contains("--colors <depth>"))
        let headless = try Binary.run(["--headless", "--colors", "16", "--size", "80x24"])
        #expect(headless.status == 0, "\(headless.err)")
        #expect(headless.out.contains("stories"))
    }

    @Test func syntheticFlagsAreChecked() throws {
        let both = try Binary.run(["--feed", "/tmp", "--synthetic", "5"])
        #expect(both.status == 64)
        #expect(both.err.contains("--feed, --server and --synthetic cannot be used together"))
        let zero = try Binary.run(["--synthetic", "0"])
        #expect(zero.status == 64)
        #expect(zero.err.contains("--synthetic takes a number of stories from 1 to 100000; got 0"))
    }

    @Test func anUnknownFlagIsAUsageError() throws {
        let result = try Binary.run(["--nope"])
        #expect(result.status != 0)
        #expect(result.err.contains("Unknown option '--nope'"))
    }
}

extension CommandLineTests {
    /// `stories help view` names every key of the home and the viewer (issue 29, point 12:
    /// f, o, u, y and i were missing). A command bound there that this table does not know
    /// fails too, so a new key cannot go unmentioned.
    @Test func helpViewNamesEveryKeyOfTheHomeAndTheViewer() throws {
        let phrases: [Command: String] = [
            .selectNext: "Left/Right (h/l) choose", .selectPrevious: "Left/Right (h/l) choose", .open: "Enter open",
            .focusDown: "Down/Up the home sections", .focusUp: "Down/Up the home sections", .selectFirst: "Home/End the first",
            .selectLast: "the feed's last story", .screenfulNext: "PgUp/PgDn a screenful", .screenfulPrevious: "PgUp/PgDn a screenful",
            .nextUnseen: "n the next unseen story", .search: "/ a person by name", .toggleProblems: "p every feed problem",
            .nextItem: "Left/Right previous/next item", .previousItem: "Left/Right previous/next item",
            .nextStory: "[ ] previous/next story", .previousStory: "[ ] previous/next story", .togglePause: "Space pause",
            .toggleSound: "m turns the sound off or on",
            .toggleFit: "f photos fill the screen", .openLink: "o opens the item's link", .copyLink: "y copies it",
            .toggleLinkAddress: "u shows links' addresses", .dismiss: "Esc back to the row",
            .toggleGestures: "g shows how each input was routed", .toggleMetrics: "i the metrics", .redraw: "Ctrl-L redraws",
            .suspend: "Ctrl-Z stops (fg brings it back)",
            .toggleHelp: "? shows every key", .quit: "q quits",
        ]
        let help = try Binary.run(["help", "view"]).out.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
        let bound = Set(KeyBindings.standard.bindings(in: .home).map(\.command) + KeyBindings.standard.bindings(in: .viewer).map(\.command))
        for command in bound.sorted(by: { $0.rawValue < $1.rawValue }) {
            let phrase = try #require(phrases[command], "\(command) is bound on the home or in the viewer: give it a phrase here and in the help")
            #expect(help.contains(phrase), "`stories help view` does not say \"\(phrase)\" (\(command))")
        }
    }
}
