import Foundation
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
                == #"{"height":24,"seen":{},"started":0,"stories-recording":1,"width":80}"#)
    }

    @Test(arguments: [
        ("", "r.jsonl:1: empty: a recording starts with {\"stories-recording\":1,…}"),
        ("{\"width\":80}", "r.jsonl:1: not a stories recording header (expected {\"stories-recording\":1,\"width\":…,\"height\":…})"),
        ("{\"stories-recording\":2,\"width\":80,\"height\":24,\"started\":0}", "r.jsonl:1: recording version 2 is not supported (this stories reads version 1)"),
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
        ("H\n{\"t\":1}", "r.jsonl:2: a line needs \"key\", \"mouse\", \"resize\" or \"end\""),
        ("H\nnot json", "r.jsonl:2: not a JSON object with a number \"t\""),
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
        ("speed = 3", "s.conf:1: unknown setting 'speed' (reduce-motion)"),
        ("\nreduce-motion = maybe", "s.conf:2: reduce-motion takes on or off; got 'maybe'"),
        ("reduce-motion", "s.conf:1: expected: name = value"),
    ])
    func badLinesSayWhereAndWhy(text: String, message: String) {
        do {
            _ = try AppSettings().applying(text, file: "s.conf")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func configFilesWithCRLFOrAByteOrderMarkReadLikeLF() throws {
        #expect(try AppSettings().applying("\u{FEFF}# comment\r\nreduce-motion = on\r\n", file: "s.conf").reduceMotion)
        do {
            _ = try AppSettings().applying("# comment\r\nspeed = 3\r\n", file: "s.conf")
            Issue.record("the bad second line was swallowed by the comment")
        } catch {
            #expect(error.description == "s.conf:2: unknown setting 'speed' (reduce-motion)")
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
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: -1e300), to: now).hasSuffix("w"))
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: .nan), to: now) == "now")
        #expect(RelativeTime.short(from: Date(timeIntervalSince1970: 1e300), to: now) == "now")
    }
}
