import Foundation
import Testing
@testable import StoriesCore

/// Flow files: what each line becomes, and a clear error (file, line, field) for a line
/// that is wrong, whoever wrote it.
@Suite struct FlowTests {
    static let header = #"{"stories-flow":1,"width":100,"height":30}"#

    func parse(_ lines: String...) throws -> Flow {
        try Flow.parse(([Self.header] + lines).joined(separator: "\n"), file: "f.jsonl")
    }

    func problem(_ lines: String...) -> String {
        do {
            _ = try Flow.parse(([Self.header] + lines).joined(separator: "\n"), file: "f.jsonl")
            return "(read)"
        } catch {
            return error.description
        }
    }

    @Test func stepsBecomeInputsWaitsAndExpectations() throws {
        let flow = try parse(
            #"{"key":"Right"}"#, "# a comment", "", #"{"wait":0.5}"#, #"{"wait":"idle"}"#, #"{"wait":"300ms"}"#,
            #"{"tap":[80,15]}"#, #"{"hold":[50,15],"for":0.8}"#,
            #"{"expect":"text","text":"Mika","at":[2,1],"name":"the name","now":true}"#,
            #"{"t":9,"mouse":"press","button":"left","x":3,"y":4}"#)
        #expect(flow.width == 100 && flow.height == 30 && flow.setup == SessionSetup() && !flow.setupGiven)
        #expect(flow.steps.map(\.line) == [2, 5, 6, 7, 8, 9, 10, 11])
        #expect(flow.steps[0].kind == .inputs([(0, .input(.key(.right)))]))
        #expect(flow.steps[1].kind == .wait(0.5))
        #expect(flow.steps[2].kind == .settle)
        #expect(flow.steps[3].kind == .wait(0.3))
        let press = InputRecording.Entry.input(.mouse(MouseEvent(kind: .press(.left), column: 80, row: 15)))
        let release = InputRecording.Entry.input(.mouse(MouseEvent(kind: .release(.left), column: 80, row: 15)))
        #expect(flow.steps[4].kind == .inputs([(0, press), (0.05, release)]))
        guard case .inputs(let hold) = flow.steps[5].kind else { Issue.record("hold"); return }
        #expect(hold.map(\.after) == [0, 0.8])
        #expect(flow.steps[6].kind == .expect(.text("Mika", place: .cell(x: 2, y: 1), present: true), now: true))
        #expect(flow.steps[6].name == "the name")
        #expect(flow.steps[7].at == 9)
        #expect(flow.expectationCount == 1)
    }

    @Test func aDragIsPressedMovedSteadilyAndReleased() throws {
        let flow = try parse(#"{"drag":[[80,15],[20,15]],"over":0.3}"#, #"{"drag":[[10,5],[10,8],[14,8]],"over":0.1,"release":false}"#)
        guard case .inputs(let swipe) = flow.steps[0].kind, case .inputs(let held) = flow.steps[1].kind else { Issue.record("drags"); return }
        // 0.3 s at 30 reports a second: 9 moves, the last at the end point, then the release.
        #expect(swipe.count == 11)
        #expect(swipe.first?.entry == .input(.mouse(MouseEvent(kind: .press(.left), column: 80, row: 15))))
        #expect(swipe[9].entry == .input(.mouse(MouseEvent(kind: .drag(.left), column: 20, row: 15))))
        #expect(swipe.last?.entry == .input(.mouse(MouseEvent(kind: .release(.left), column: 20, row: 15))))
        #expect(abs(swipe.reduce(0) { $0 + $1.after } - 0.3) < 1e-9)
        let xs = swipe.dropFirst().dropLast().compactMap { step -> Int? in
            if case .input(.mouse(let mouse)) = step.entry { return mouse.column } else { return nil }
        }
        #expect(xs == xs.sorted(by: >), "moving left all the way")
        // Through a corner, and left held (no release) for a later step to interrupt.
        #expect(held.count == 4)
        #expect(held.last?.entry == .input(.mouse(MouseEvent(kind: .drag(.left), column: 14, row: 8))))
    }

    @Test func everyExpectationKindReads() throws {
        let flow = try parse(
            #"{"expect":"text","text":"x","region":[0,0,10,2],"visible":false}"#,
            #"{"expect":"gesture","gesture":"tap right","handler":"viewer.tapZones","declined":["hold"],"result":["nextItem"]}"#,
            #"{"expect":"shown","home":true}"#, #"{"expect":"shown","story":"mika","item":"chelsea"}"#,
            #"{"expect":"progress","item":2,"of":3,"atLeast":0.1,"atMost":0.9}"#,
            #"{"expect":"seen","story":"ayla","item":"astronaut","seen":false}"#,
            #"{"expect":"navigation","story":"mika","item":1,"hit":true,"visibleWithin":300}"#,
            #"{"expect":"screen","lines":["a","b"]}"#, #"{"expect":"screen","file":"snap/home.txt"}"#)
        let kinds = flow.steps.compactMap { step -> FlowExpectation? in if case .expect(let e, _) = step.kind { e } else { nil } }
        #expect(kinds == [
            .text("x", place: .region(x: 0, y: 0, width: 10, height: 2), present: false),
            .gesture(FlowGesture(gesture: "tap right", handler: "viewer.tapZones", declined: ["hold"], result: ["nextItem"])),
            .shown(.home), .shown(.story("mika", item: .id("chelsea"))),
            .progress(item: 2, of: 3, atLeast: 0.1, atMost: 0.9),
            .seen(story: "ayla", item: "astronaut", seen: false),
            .navigation(story: "mika", item: .number(1), hit: true, visibleWithin: 300),
            .screen(lines: ["a", "b"], file: nil), .screen(lines: [], file: "snap/home.txt"),
        ])
        #expect(flow.snapshotFiles.map(\.file) == ["snap/home.txt"])
    }

    @Test func aPartialSetupIsTheDefaultsWithWhatItNames() throws {
        let flow = try Flow.parse(#"{"stories-flow":1,"setup":{"feed":{"synthetic":20,"seed":3},"network":"3g","seed":7,"reduceMotion":true}}"#,
                                  file: "f.jsonl")
        #expect(flow.setupGiven && flow.width == 80 && flow.height == 24)
        #expect(flow.setup == SessionSetup(feed: .synthetic(20, seed: 3), network: .slow, seed: 7, reduceMotion: true))
    }

    @Test func aBareNumberWaitIsSecondsAndTooltipsRoundTrip() throws {
        let flow = try parse(#"{"wait":"2"}"#, #"{"wait":" 0.25 "}"#)
        #expect(flow.steps.map(\.kind) == [.wait(2), .wait(0.25)], "\"2\" is two seconds, as 2 is")
        let header = Flow.headerLine(width: 90, height: 20, started: 1_795_240_800,
                                     seen: SeenState(items: ["mika": ["chelsea"]], tooltips: ["sections"]), setup: SessionSetup(seed: 9))
        let read = try Flow.parse(header, file: "h.jsonl")
        #expect(read.seen.tooltips == ["sections"] && read.seen.items == ["mika": ["chelsea"]] && read.setup.seed == 9 && read.width == 90)
    }

    @Test func aRecordingOverAnHourIsRefusedAsAFlow() {
        let recording = InputRecording(width: 90, height: 20, started: 1_795_240_800, entries: [(0.5, .input(.key(.right))), (50_000, .end)])
        do {
            _ = try Flow.parse(recording.text, file: "long.jsonl")
            Issue.record("a recording of 50 000 s was read as a flow")
        } catch {
            #expect(error.description == "long.jsonl:1: a recording run as a flow (checked or rendered) lasts at most 3600 s; this one lasts 50000 s")
        }
    }

    @Test func aRecordingIsAFlowWithoutExpectations() throws {
        let recording = InputRecording(width: 90, height: 20, started: 1_795_240_800, setup: SessionSetup(seed: 5),
                                       entries: [(0.5, .input(.key(.right))), (1, .end)])
        let flow = try Flow.parse(recording.text, file: "r.jsonl")
        #expect(flow.width == 90 && flow.setup.seed == 5 && flow.expectationCount == 0)
        #expect(flow.steps.map(\.at) == [0.5, 1])
    }

    @Test func badLinesSayTheFileTheLineAndTheField() {
        #expect(problem(#"{"expect":"txt","text":"a"}"#).hasPrefix("f.jsonl:2: \"expect\": unknown kind 'txt' (text, gesture"))
        #expect(problem(#"{"expect":"text","text":"a","vissible":false}"#).hasPrefix("f.jsonl:2: unknown member \"vissible\" here"))
        #expect(problem(#"{"expect":"text"}"#) == "f.jsonl:2: \"text\" is missing")
        #expect(problem(#"{"expect":"text","text":""}"#) == "f.jsonl:2: \"text\" must be 1 to 1000 bytes of text")
        #expect(problem(#"{"expect":"text","text":"a","region":[0,0,0,1]}"#).hasPrefix("f.jsonl:2: \"region\" must be [x, y, width, height]"))
        #expect(problem(#"{"expect":"text","text":"a","region":[0,0,5,1],"at":[1,1]}"#).contains("one place a line"))
        #expect(problem(#"{"expect":"progress","atLeast":0.8,"atMost":0.2}"#) == "f.jsonl:2: \"atLeast\" is more than \"atMost\"")
        #expect(problem(#"{"expect":"progress","atLeast":2}"#) == "f.jsonl:2: \"atLeast\" must be a share from 0 to 1")
        #expect(problem(#"{"expect":"navigation","visibleWithin":-1}"#).contains("\"visibleWithin\" must be milliseconds"))
        #expect(problem(#"{"expect":"shown"}"#).contains("needs \"story\""))
        #expect(problem(#"{"expect":"screen","file":"../../etc/passwd"}"#).contains("inside the flow's folder"))
        #expect(problem(#"{"expect":"screen","file":"/etc/passwd"}"#).contains("inside the flow's folder"))
        #expect(problem(#"{"expect":"screen","file":"a","lines":[]}"#).contains("one of them"))
        #expect(problem(#"{"expect":"text","text":"a\nb"}"#).contains("what one row shows: no line breaks"))
        #expect(problem(#"{"expect":"text","text":"a","region":[990,0,5,5]}"#) == "f.jsonl:2: the text's place starts at column 990, row 0: off the 100×30 screen the flow starts on")
        #expect(problem(#"{"expect":"text","text":"a","at":[5,40]}"#).contains("off the 100×30 screen"))
        #expect(problem(#"{"tap":[1]}"#) == "f.jsonl:2: \"tap\" must be [x, y], each a cell from 0 to 999")
        #expect(problem(#"{"tap":[1000,1]}"#) == "f.jsonl:2: \"tap\" must be [x, y], each a cell from 0 to 999")
        #expect(problem(#"{"tap":[1,1],"key":"q"}"#).contains("one step a line"))
        #expect(problem(#"{"hold":[1,1],"for":1e308}"#) == "f.jsonl:2: \"for\" must be seconds over 0, at most 60")
        #expect(problem(#"{"drag":[[1,1]]}"#).contains("2 to 1000 points"))
        #expect(problem(#"{"drag":[[1,1],"x"]}"#).contains("a list of points"))
        #expect(problem(#"{"wait":-1}"#).contains("\"wait\" must be seconds"))
        #expect(problem(#"{"wait":"soon"}"#).contains("\"wait\" must be seconds"))
        #expect(problem(#"{"wait":3000}"#, #"{"wait":3000}"#).hasPrefix("f.jsonl:3: the flow would run past 3600 s"))
        #expect(problem(#"{"key":"Hyper-Q"}"#) == "f.jsonl:2: \"key\": unknown key 'Hyper-Q'")
        #expect(problem(#"{"t":5,"key":"q"}"#, #"{"t":4,"key":"q"}"#).contains("\"t\" must not be smaller"))
        #expect(problem(#"{"key":"q","key":"r"}"#).contains("the key \"key\" twice"))
        #expect(problem(#"["key"]"#) == "f.jsonl:2: expected a JSON object, found an array")
        // Whatever a hostile line holds is said printable: no escape sequence reaches the terminal.
        #expect(!problem("{\"expect\":\"\u{1B}[31mx\"}").contains("\u{1B}"))
        #expect(!problem("{\"expect\":\"text\",\"text\":\"a\",\"\u{1B}]52;c;x\u{07}\":1}").contains("\u{1B}"))
    }

    @Test func badHeadersAreSaidToo() {
        func header(_ text: String) -> String {
            do { _ = try Flow.parse(text, file: "f.jsonl"); return "(read)" } catch { return error.description }
        }
        #expect(header("").hasPrefix("f.jsonl:1: empty"))
        #expect(header(#"{"stories-flow":2}"#).contains("flow version 2 is not supported"))
        #expect(header(#"{"hello":1}"#).contains("not a flow header"))
        #expect(header(#"{"stories-flow":1,"width":0}"#).contains("width and height must be from 1 to 1000"))
        #expect(header(#"{"stories-flow":1,"setup":{"seed":-1}}"#) == "f.jsonl:1: \"setup.seed\" must be a whole number from 0 to 9007199254740991")
        #expect(header(#"{"stories-flow":1,"setup":{"network":"5g"}}"#).contains("names no network profile"))
        #expect(header(#"{"stories-flow":1,"setup":{"feed":{"server":"ftp://x"}}}"#).contains("setup.feed"))
        #expect(header(#"{"stories-flow":1,"seen":[1]}"#).contains("\"seen\" must be an object"))
    }
}
