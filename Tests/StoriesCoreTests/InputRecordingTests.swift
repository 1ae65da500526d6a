import Foundation
import StoriesCells
import Testing
@testable import StoriesCore

@Suite struct InputRecordingTests {
    @Test func everyKindOfEntryRoundTrips() throws {
        let entries: [(Double, InputRecording.Entry)] = [
            (0.5, .input(.key(.right))),
            (0.75, .input(.key(.right, .shift))),
            (1, .input(.key(.character(" ")))),
            (1, .input(.key(.character("c"), .control))),
            (1.25, .input(.key(.character("-")))),
            (1.5, .input(.key(.function(5)))),
            (2, .input(.mouse(MouseEvent(kind: .press(.left), column: 70, row: 12)))),
            (2.1, .input(.mouse(MouseEvent(kind: .drag(.left), column: 50, row: 12, modifiers: [.shift])))),
            (2.2, .input(.mouse(MouseEvent(kind: .release(.right), column: 50, row: 12)))),
            (2.3, .input(.mouse(MouseEvent(kind: .wheelDown, column: 1, row: 2)))),
            (2.4, .input(.mouse(MouseEvent(kind: .move, column: 0, row: 0)))),
            (3, .resize(width: 80, height: 24)),
            (4.5, .end),
        ]
        let recording = InputRecording(width: 100, height: 30, started: 1_795_240_800,
                                       seen: SeenState(items: ["mika": ["mika-t1", "chelsea"]]), entries: entries)
        let parsed = try InputRecording.parse(recording.text, file: "r.jsonl")
        #expect(parsed == recording)
        #expect(parsed.duration == 4.5)
    }

    @Test func linesAreTheDocumentedShape() {
        #expect(InputRecording.line(.input(.key(.right, .shift)), at: 0.5124) == #"{"key":"Shift-Right","t":0.512}"#)
        #expect(InputRecording.line(.input(.mouse(MouseEvent(kind: .press(.left), column: 70, row: 12))), at: 1.02)
                == #"{"button":"left","mouse":"press","t":1.02,"x":70,"y":12}"#)
        #expect(InputRecording.line(.end, at: 9.5) == #"{"end":true,"t":9.5}"#)
        #expect(InputRecording(width: 80, height: 24, started: 0).headerLine
                == #"{"height":24,"seen":{},"started":0,"stories-recording":2,"width":80}"#)
    }

    @Test(arguments: [
        ("", "r.jsonl:1: empty: a recording starts with {\"stories-recording\":2,…}"),
        ("{\"width\":80}", "r.jsonl:1: not a stories recording header (expected {\"stories-recording\":2,\"width\":…,\"height\":…})"),
        ("{\"stories-recording\":3,\"width\":80,\"height\":24,\"started\":0}", "r.jsonl:1: recording version 3 is not supported (this stories reads versions 1 to 2)"),
        ("{\"stories-recording\":1,\"width\":\"80\",\"height\":24,\"started\":0}", "r.jsonl:1: header: \"width\" must be a number, found a string"),
        // Read by the feeds' JSON reader: a key named twice is refused, not guessed at (and
        // a reason that is not JSON's says the column).
        ("{\"stories-recording\":2,\"width\":80,\"width\":1000,\"height\":24,\"started\":0}", "r.jsonl:1: not a stories recording header: not valid JSON at column 35: the key \"width\" twice in one object"),
        ("{\"stories-recording\":2,\"width\":80", "r.jsonl:1: not a stories recording header: not valid JSON at column 34: the document ends early"),
        ("{\"stories-recording\":\"2\",\"width\":80,\"height\":24,\"started\":0}", "r.jsonl:1: not a stories recording header (expected {\"stories-recording\":2,\"width\":…,\"height\":…})"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24}", "r.jsonl:1: header: \"started\" is missing"),
        ("{\"stories-recording\":1,\"width\":80.5,\"height\":24,\"started\":0}", "r.jsonl:1: width and height must be from 1 to 1000 (the largest screen, as for --size)"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":0,\"seen\":{\"s\":[1]}}", "r.jsonl:1: header: \"seen\" must be an object of story ids, each with a list of item ids, found a number at \"s\"[0]"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":0,\"tooltips\":\"all\"}", "r.jsonl:1: header: \"tooltips\" must be a list of tooltip ids, found a string"),
        ("H\n{\"t\":1,\"key\":\"a\",\"key\":\"q\"}", "r.jsonl:2: not valid JSON at column 18: the key \"key\" twice in one object"),
        ("H\n{\"t\":1,\"key\":7}", "r.jsonl:2: \"key\" must be text, found a number"),
        ("H\n{\"t\":1,\"end\":\"yes\"}", "r.jsonl:2: \"end\" must be true or false, found a string"),
        ("H\n{\"t\":1,\"mouse\":\"press\",\"button\":\"left\",\"x\":1,\"y\":1,\"mods\":[\"ctrl\",3]}", "r.jsonl:2: \"mods\" must be a list of modifier names, found a number at [1]"),
        ("H\n{\"t\":1,\"mouse\":\"press\",\"button\":\"left\",\"x\":1.5,\"y\":1}", "r.jsonl:2: \"mouse\" needs \"x\" and \"y\", each from 0 to 999"),
        ("H\n{\"t\":\"1\",\"key\":\"a\"}", "r.jsonl:2: not a JSON object with a number \"t\""),
        ("H\n[1,2]", "r.jsonl:2: not a JSON object with a number \"t\""),
        ("H\n" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "r.jsonl:2: nested more than 64 deep"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":0,\"setup\":\(SetupSamples.good)}", "r.jsonl:1: \"setup\" came with version 2; this file says version 1"),
        ("{\"stories-recording\":1,\"width\":0,\"height\":24,\"started\":0}", "r.jsonl:1: width and height must be from 1 to 1000 (the largest screen, as for --size)"),
        ("{\"stories-recording\":1,\"width\":10000,\"height\":10000,\"started\":0}", "r.jsonl:1: width and height must be from 1 to 1000 (the largest screen, as for --size)"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":1e308}", "r.jsonl:1: \"started\" must be seconds since 1970, up to the year 5000"),
        ("{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":-1}", "r.jsonl:1: \"started\" must be seconds since 1970, up to the year 5000"),
        ("H\n{\"t\":1e308,\"key\":\"a\"}", "r.jsonl:2: \"t\" must be a number not smaller than the line before's (0.0), at most a year (31622400 s)"),
        ("H\n{\"t\":1,\"resize\":[9223372036854775807,2]}", "r.jsonl:2: \"resize\" must be [width, height], each from 1 to 1000"),
        ("H\n{\"t\":1,\"resize\":[100000,100000]}", "r.jsonl:2: \"resize\" must be [width, height], each from 1 to 1000"),
        ("H\n{\"t\":1,\"mouse\":\"press\",\"button\":\"left\",\"x\":3000000000000000000,\"y\":1}", "r.jsonl:2: \"mouse\" needs \"x\" and \"y\", each from 0 to 999"),
        ("H\n{\"t\":1,\"key\":\"\\u001b]52;c;aGk=\\u0007\"}", "r.jsonl:2: \"key\": unknown key ''"), // the escape sequence is removed whole
        ("H\n{\"t\":1,\"key\":\"Hyper-x\"}", "r.jsonl:2: \"key\": unknown key 'Hyper-x'"),
        ("H\n{\"t\":2,\"key\":\"a\"}\n{\"t\":1,\"key\":\"b\"}", "r.jsonl:3: \"t\" must be a number not smaller than the line before's (2.0), at most a year (31622400 s)"),
        ("H\n{\"t\":1,\"mouse\":\"press\",\"x\":1,\"y\":1}", "r.jsonl:2: \"button\" must be left, middle or right"),
        ("H\n{\"t\":1,\"mouse\":\"pinch\",\"x\":1,\"y\":1}", "r.jsonl:2: \"mouse\": unknown kind 'pinch' (press, release, drag, move, wheel)"),
        ("H\n{\"t\":1,\"mouse\":\"press\",\"button\":\"left\"}", "r.jsonl:2: \"mouse\" needs \"x\" and \"y\", each from 0 to 999"),
        ("H\n{\"t\":1}", "r.jsonl:2: a line needs \"key\", \"mouse\", \"resize\", \"cell\" or \"end\""),
        ("H\n{\"t\":1,\"cell\":9}", "r.jsonl:2: \"cell\" must be a cell's width over its height, from 0.2 to 2.0"),
        ("H\n{\"t\":1,\"cell\":-0.5}", "r.jsonl:2: \"cell\" must be a cell's width over its height, from 0.2 to 2.0"),
        ("H\nnot json", "r.jsonl:2: not valid JSON at column 1: expected a value"),
    ])
    func badFilesSayWhereAndWhy(text: String, message: String) {
        let header = #"{"stories-recording":1,"width":80,"height":24,"started":0}"#
        let file = text.hasPrefix("H\n") ? header + text.dropFirst() : text
        #expect(throws: ConfigError.self) { try InputRecording.parse(file, file: "r.jsonl") }
        do {
            _ = try InputRecording.parse(file, file: "r.jsonl")
        } catch {
            #expect(error.description == message)
        }
    }
}

@Suite struct AppSettingsTests {
    @Test func reduceMotionReadsOnAndOff() throws {
        let on = try AppSettings().applying("# comment\n  reduce-motion = on  # yes\n", file: "s.conf")
        #expect(on.reduceMotion)
        let off = try on.applying("reduce-motion=false", file: "s.conf")
        #expect(!off.reduceMotion)
    }

    @Test(arguments: [
        ("speed = 3", "s.conf:1: unknown setting 'speed' (reduce-motion, colors, fit, preload, network, seed, pause-on-blur, theme, symbols, graphics, sound, volume, cursor, screen-reader, direction, bidi)"),
        ("\nreduce-motion = maybe", "s.conf:2: reduce-motion takes on or off; got 'maybe'"),
        ("reduce-motion", "s.conf:1: expected: name = value"),
        ("colors = 16777216", "s.conf:1: colors takes truecolor, 256, 16, 8, none; got '16777216'"),
        ("fit = stretch", "s.conf:1: fit takes fit (the whole photo) or fill (cropped to the screen); got 'stretch'"),
        ("preload = sometimes", "s.conf:1: preload takes on or off; got 'sometimes'"),
        ("network = 5g", "s.conf:1: network takes 3g, 4g, local, offline, wifi; got '5g'"),
        ("seed = -1", "s.conf:1: seed takes a whole number from 0 to 9007199254740991; got '-1'"),
        ("seed = 9007199254740992", "s.conf:1: seed takes a whole number from 0 to 9007199254740991; got '9007199254740992'"),
        ("network = \u{1B}]0;pwned\u{07}", "s.conf:1: network takes 3g, 4g, local, offline, wifi; got ''"),
        ("direction = up", "s.conf:1: direction takes auto, ltr or rtl; got 'up'"),
        ("bidi = both", "s.conf:1: bidi takes auto, app or terminal; got 'both'"),
        ("cursor = blink", "s.conf:1: cursor takes auto, focus or hidden; got 'blink'"),
        ("screen-reader = sometimes", "s.conf:1: screen-reader takes on or off; got 'sometimes'"),
        ("graphics = png", "s.conf:1: graphics takes auto, kitty, sixel, iterm, cells; got 'png'"),
    ])
    func badLinesSayWhereAndWhy(text: String, message: String) {
        do {
            _ = try AppSettings().applying(text, file: "s.conf")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func everySettingReads() throws {
        let text = "colors = 8\nfit = fit\npreload = off\nnetwork = 3g\nseed = 42\nreduce-motion = yes\n"
        let settings = try AppSettings().applying(text, file: "s.conf")
        #expect(settings.colors == "8" && settings.fit == true && settings.preload == .off)
        #expect(settings.network == .slow && settings.seed == 42 && settings.reduceMotion)
        #expect(try AppSettings().applying("fit = fill\ncolours = TrueColor", file: "s.conf").fit == false)
        #expect(try AppSettings().applying("colours = TrueColor", file: "s.conf").colors == "truecolor")
        #expect(try AppSettings().applying("pause-on-blur = off", file: "s.conf").pauseOnBlur == false)
        #expect(try AppSettings().applying("", file: "s.conf").pauseOnBlur == nil, "unsaid: the app's default (on)")
        #expect(throws: ConfigError.self) { try AppSettings().applying("pause-on-blur = sometimes", file: "s.conf") }
    }

    @Test func graphicsReadsEveryKindAndAutoAndRefusesTheRest() throws {
        for kind in GraphicsProtocol.allCases {
            #expect(try AppSettings().applying("graphics = \(kind.rawValue.uppercased())", file: "s.conf").graphics == kind)
        }
        let sixel = try AppSettings().applying("graphics = sixel", file: "s.conf")
        #expect(try sixel.applying("graphics = auto", file: "s.conf").graphics == nil, "auto: the terminal's answer")
        do {
            _ = try AppSettings().applying("graphics = png\u{1B}[2J", file: "s.conf")
            Issue.record("accepted a protocol that is not one")
        } catch {
            #expect(error.description == "s.conf:1: graphics takes auto, kitty, sixel, iterm, cells; got 'png'")
        }
    }

    @Test func configFilesWithCRLFOrAByteOrderMarkReadLikeLF() throws {
        #expect(try AppSettings().applying("\u{FEFF}# comment\r\nreduce-motion = on\r\n", file: "s.conf").reduceMotion)
        do {
            _ = try AppSettings().applying("# comment\r\nspeed = 3\r\n", file: "s.conf")
            Issue.record("the bad second line was swallowed by the comment")
        } catch {
            #expect(error.description == "s.conf:2: unknown setting 'speed' (reduce-motion, colors, fit, preload, network, seed, pause-on-blur, theme, symbols, graphics, sound, volume, cursor, screen-reader, direction, bidi)")
        }
        let crlf = try KeyBindings.standard.applying("viewer togglePause l\r\n", file: "keys.conf")
        #expect(crlf == (try KeyBindings.standard.applying("viewer togglePause l\n", file: "keys.conf")))
    }

    @Test func theFileLivesBesideKeysConf() {
        let url = AppSettings.configFile(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
        #expect(url.path == "/x/stories/stories.conf")
        #expect(AppSettings.configFile(environment: ["HOME": "/h"]).path == "/h/.config/stories/stories.conf")
    }

    @Test func crlfLineEndsAndAByteOrderMarkReadLikeLF() throws {
        let lf = "{\"stories-recording\":1,\"width\":80,\"height\":24,\"started\":0}\n{\"t\":1,\"key\":\"q\"}\n{\"end\":true,\"t\":2}\n"
        let expected = try InputRecording.parse(lf, file: "r.jsonl")
        for text in [lf.replacingOccurrences(of: "\n", with: "\r\n"), "\u{FEFF}" + lf, "\u{FEFF}" + lf.replacingOccurrences(of: "\n", with: "\r")] {
            #expect(try InputRecording.parse(text, file: "r.jsonl") == expected)
        }
        #expect(TextLines.split("a\r\nb\rc\nd") == ["a", "b", "c", "d"])
    }

    @Test func mouseEventsAndRelativeTimesHoldAnyNumber() {
        let far = MouseEvent(kind: .drag(.left), column: Int.max, row: Int.min)
        #expect(far.column == InputLimits.maxCoordinate && far.row == 0)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: -1e300), to: now) == "long ago")
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: .nan), to: now) == "now")
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: 1e300), to: now) == "now")
    }

    @Test func aSetupRoundTripsAndAVersionOneFileStillReads() throws {
        let setup = SessionSetup(feed: .synthetic(50, seed: 7), network: .slow, seed: 643_734_123, preload: .off,
                                 reduceMotion: true, keys: "viewer nextItem n Right\n", colors: "truecolor")
        var recording = InputRecording(width: 100, height: 30, started: 1_795_240_800, setup: setup)
        recording.entries = [(0.5, .input(.key(.enter))), (1, .resize(width: 80, height: 24)), (2, .end)]
        let read = try InputRecording.parse(recording.text, file: "r.jsonl")
        #expect(read == recording)
        #expect(read.setup == setup)
        #expect(try read.setup?.bindings(file: "r.jsonl").command(for: .key(.character("n")), in: .viewer) == .nextItem)
        for feed: SessionSetup.Feed in [.demo, .folder("/home/me/Pictures"), .server("http://127.0.0.1:8080"), .synthetic(1, seed: 0)] {
            var other = setup
            other.feed = feed
            let text = InputRecording(width: 80, height: 24, started: 0, setup: other).text
            #expect(try InputRecording.parse(text, file: "r.jsonl").setup?.feed == feed)
        }
        let old = try InputRecording.parse(#"{"stories-recording":1,"width":80,"height":24,"started":0}"# + "\n{\"t\":1,\"key\":\"q\"}\n", file: "r.jsonl")
        #expect(old.setup == nil && old.entries.count == 1)
    }

    /// A hostile or damaged setup is one clear line naming the field: never a crash, and
    /// never a value no flag could give.
    @Test(arguments: [
        (#""feed":{"demo":true,"synthetic":5}"#, #""setup.feed" must be one of {"demo":true}, {"folder":…}, {"server":…}, {"synthetic":N}"#),
        (#""feed":{}"#, #""setup.feed" must be one of {"demo":true}, {"folder":…}, {"server":…}, {"synthetic":N}"#),
        (#""feed":{"synthetic":0}"#, #""setup.feed.synthetic" must be a number of stories from 1 to 100000"#),
        (#""feed":{"synthetic":5,"seed":18446744073709551615}"#, #""setup.feed.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""feed":{"folder":"/tmp/\u001b[2Jx"}"#, #""setup.feed.folder" must be a path of 1 to 4096 printable bytes"#),
        (#""feed":{"server":"javascript:alert(1)"}"#, #""setup.feed.server" expected an http or https URL"#),
        (#""seed":9007199254740992"#, #""setup.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""network":{"name":"3g","latency":1e300,"jitter":0,"fail":0,"timeout":15,"offline":false}"#, #""setup.network.latency" must be seconds from 0 to 3600"#),
        (#""network":{"name":"3g","latency":0,"jitter":-1,"fail":0,"timeout":15,"offline":false}"#, #""setup.network.jitter" must be seconds from 0 to 3600"#),
        (#""network":{"name":"3g","latency":0,"jitter":0,"fail":2,"timeout":15,"offline":false}"#, #""setup.network.fail" must be a share from 0 to 1"#),
        (#""network":{"name":"3g","latency":0,"jitter":0,"fail":0,"timeout":0,"offline":false}"#, #""setup.network.timeout" must be seconds over 0, at most 3600"#),
        (#""network":{"name":"3g","latency":0,"jitter":0,"bandwidth":0,"fail":0,"timeout":15,"offline":false}"#, #""setup.network.bandwidth" must be bytes a second from 1 to 1000000000000"#),
        (#""network":{"name":"\u001b]0;x\u0007","latency":0,"jitter":0,"fail":0,"timeout":15,"offline":false}"#, #""setup.network.name" must be 1 to 40 letters, digits or -"#),
        (#""preload":"sometimes""#, #""setup.preload" must be on or off"#),
        (#""colors":"16777216""#, #""setup.colors" must be one of truecolor, 256, 16, 8, none"#),
        // Issue 27, point 7: each field by its own rule, whatever kind of value is there
        // (these were "the header cannot be read" or "has the wrong kind of value").
        (#""seed":"1""#, #""setup.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""seed":-1"#, #""setup.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""seed":1.5"#, #""setup.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""seed":18446744073709551616"#, #""setup.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""seed":null"#, #""setup.seed" is missing"#),
        (#""feed":{"synthetic":2.5}"#, #""setup.feed.synthetic" must be a number of stories from 1 to 100000"#),
        (#""feed":{"synthetic":5,"seed":-3}"#, #""setup.feed.seed" must be a whole number from 0 to 9007199254740991"#),
        (#""feed":{"folder":7}"#, #""setup.feed.folder" must be a path of 1 to 4096 printable bytes"#),
        (#""feed":{"demo":"yes"}"#, #""setup.feed.demo" must be true or false"#),
        (#""feed":[1]"#, #""setup.feed" must be an object, not an array"#),
        (#""network":{"name":"3g","latency":"fast","jitter":0,"fail":0,"timeout":15,"offline":false}"#, #""setup.network.latency" must be seconds from 0 to 3600"#),
        (#""network":{"name":"3g","latency":0,"jitter":0,"fail":0,"timeout":15}"#, #""setup.network.offline" is missing"#),
        (#""network":{"name":"3g","latency":0,"jitter":0,"fail":0,"timeout":15,"offline":0}"#, #""setup.network.offline" must be true or false"#),
        (#""reduceMotion":1"#, #""setup.reduceMotion" must be true or false"#),
        (#""keys":false"#, #""setup.keys" must be text of at most 65536 bytes"#),
        (#""colors":256"#, #""setup.colors" must be one of truecolor, 256, 16, 8, none"#),
    ])
    func aBadSetupNamesItsField(change: String, message: String) throws {
        var json = SetupSamples.good
        let key = String(change.prefix { $0 != ":" })
        // Replace the sample's value for that key with the bad one.
        guard let range = json.range(of: key + ":", options: .backwards) else { Issue.record("no \(key) in the sample"); return }
        let valueStart = range.upperBound
        var depth = 0, end = valueStart, inString = false
        for index in json[valueStart...].indices {
            let c = json[index]
            if c == "\"" { inString.toggle() }
            if !inString {
                if c == "{" { depth += 1 }
                if c == "}" { if depth == 0 { end = index; break }; depth -= 1 }
                if c == ",", depth == 0 { end = index; break }
            }
            end = json.index(after: index)
        }
        json.replaceSubrange(range.lowerBound..<end, with: change)
        let file = #"{"stories-recording":2,"width":80,"height":24,"started":0,"setup":"# + json + "}"
        do {
            _ = try InputRecording.parse(file, file: "r.jsonl")
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.description == "r.jsonl:1: " + message)
        }
    }

    @Test func onlyThisMachineIsLoopback() {
        for address in ["http://127.0.0.1:8080", "http://localhost/", "http://[::1]:9000", "https://127.1.2.3"] {
            #expect(SessionSetup.isLoopback(address), "\(address)")
        }
        for address in ["http://127.evil.example", "http://127.0.0.1.example.com", "http://10.0.0.1", "http://128.0.0.1",
                        "http://localhost.example", "http://127.0.0.256", "not a url"] {
            #expect(!SessionSetup.isLoopback(address), "\(address)")
        }
    }

    @Test func colourNamesReadAsTheyDoForColors() {
        #expect(SessionSetup.colorName("24bit") == "truecolor" && SessionSetup.colorName("Direct") == "truecolor")
        #expect(SessionSetup.colorName("mono") == "none" && SessionSetup.colorName("256") == "256")
        #expect(SessionSetup.colorName("65536") == nil)
    }

    @Test func aLongKeysTextIsRefusedAndABadOneNamesTheRecording() throws {
        var setup = SessionSetup()
        setup.keys = String(repeating: "#", count: SessionSetup.maxKeysLength + 1)
        let long = InputRecording(width: 80, height: 24, started: 0, setup: setup).text
        #expect(throws: ConfigError.self) { try InputRecording.parse(long, file: "r.jsonl") }
        setup.keys = "viewer fly q\n"
        let bad = try InputRecording.parse(InputRecording(width: 80, height: 24, started: 0, setup: setup).text, file: "r.jsonl")
        #expect(throws: ConfigError.self) { try bad.setup?.bindings(file: "r.jsonl: setup.keys") }
    }
}

enum SetupSamples {
    static let good = #"{"colors":"256","feed":{"seed":1,"synthetic":50},"keys":"","network":{"bandwidth":400000,"fail":0.02,"jitter":0.1,"latency":0.3,"name":"3g","offline":false,"timeout":15},"preload":"on","reduceMotion":false,"seed":643734123}"#
}
