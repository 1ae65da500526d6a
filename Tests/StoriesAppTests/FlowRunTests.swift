import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import StoriesAssets
import StoriesCore
import StoriesFeedIO
import Testing
@testable import StoriesApp

/// Flows run through the real engine on the virtual clock: the project's own flows pass,
/// a wrong expectation fails with what it expected and what was there, and the same flow
/// gives the same results every time.
@MainActor
@Suite struct FlowRunTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/flows")

    func demoClient(_ flow: Flow) throws -> FeedClient {
        let directory = try #require(DemoFeed.directory)
        return FeedClient(source: try FeedFolder(directory: directory), profile: flow.setup.network, seed: flow.setup.seed)
    }

    func run(_ text: String) throws -> FlowRunReport {
        let flow = try Flow.parse(text, file: "f.jsonl")
        return FlowRun.run(flow, client: try demoClient(flow), options: HeadlessRun.Options(width: flow.width, height: flow.height))
    }

    func asset(_ name: String) throws -> FlowRunReport {
        let text = try String(contentsOf: Self.assets.appendingPathComponent(name), encoding: .utf8)
        let flow = try Flow.parse(text, file: name)
        return FlowRun.run(flow, client: try demoClient(flow), options: HeadlessRun.Options(width: flow.width, height: flow.height))
    }

    /// Scenarios written as flows where that reads better: each file in Tests/StoriesAppTests/Flows.
    static let scenarioFlows = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Flows")

    @Test func theScenarioFlowsPass() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.scenarioFlows.path).filter { $0.hasSuffix(".jsonl") }.sorted()
        #expect(names.count >= 2)
        for name in names {
            let text = try String(contentsOf: Self.scenarioFlows.appendingPathComponent(name), encoding: .utf8)
            let flow = try Flow.parse(text, file: name)
            let report = FlowRun.run(flow, client: try demoClient(flow), options: HeadlessRun.Options(width: flow.width, height: flow.height))
            #expect(report.results.count == flow.expectationCount && !report.results.isEmpty)
            for result in report.results where !result.verdict.passed {
                Issue.record("\(name):\(result.line) \(result.name): \(result.verdict.actual)")
            }
        }
    }

    @Test(arguments: ["tour.jsonl", "gesture-qa.jsonl"])
    func theProjectsFlowsPass(_ name: String) throws {
        let report = try asset(name)
        #expect(report.results.count >= 10)
        for result in report.results where !result.verdict.passed {
            Issue.record("\(name):\(result.line) \(result.name): \(result.verdict.actual)")
        }
        #expect(try asset(name) == report, "the same results, times and all, every time")
    }

    @Test func aWrongExpectationSaysWhatItExpectedAndWhatWasThere() throws {
        let report = try run("""
            {"stories-flow":1,"width":100,"height":30}
            {"key":"Enter"}
            {"expect":"shown","story":"mika","item":2}
            {"tap":[80,15]}
            {"expect":"gesture","gesture":"tap left"}
            {"expect":"text","text":"Training day","visible":false}
            {"expect":"screen","lines":["nothing like it"]}
            """)
        #expect(report.results.map(\.verdict.passed) == [false, false, true, false])
        #expect(report.results[0].verdict.actual == "story ayla, item 1 of 3 (astronaut)")
        #expect(report.results[1].verdict.actual == "\"press\" by recognizer; \"tap right\" by viewer.tapZones → nextItem (declined by hold, swipe)")
        let lines = report.lines()
        #expect(lines[0] == "✗ f.jsonl:3 story mika, item 2, shown (0.27 s)")
        #expect(lines[1] == "    found:    story ayla, item 1 of 3 (astronaut)")
        // The screen it was checked on: its text rows as they are, the photo's cells one line.
        #expect(lines.contains("        2|(rows 2–27: picture cells)") && lines.contains { $0.hasPrefix("       28|  Training day at the space centre.") },
                "\(lines.prefix(8))")
        #expect(lines.contains { $0.hasPrefix("    +   1| AD Ayla Demir  @ayla · 8h      ") && $0.hasSuffix(" 2/3") },
                "the screen's diff against the snapshot, its columns as they are")
        #expect(lines.contains("    -   0|nothing like it"))
        #expect(lines.last == "FAILED f.jsonl: 1 of 4 expectations met, 0.32 s of virtual time")
    }

    @Test func textIsFoundWhereTheFlowSaysAndOnlyThere() throws {
        let report = try run("""
            {"stories-flow":1,"width":100,"height":30}
            {"expect":"text","text":"Demo stories","at":[13,0]}
            {"expect":"text","text":"Demo stories","at":[12,0]}
            {"expect":"text","text":"Demo stories","region":[0,0,100,1]}
            {"expect":"text","text":"Demo stories","region":[0,1,100,29]}
            {"expect":"text","text":"山田 花子","region":[0,0,100,30]}
            {"resize":[40,10]}
            {"expect":"text","text":"a","at":[90,0],"now":true}
            {"expect":"text","text":"a","at":[5,20],"now":true}
            {"expect":"text","text":"a","region":[50,20,50,50],"now":true}
            {"expect":"text","text":"Demo stories","visible":false,"at":[90,0],"now":true}
            """)
        // Cells and regions off the screen (after a resize) find nothing, and break nothing.
        #expect(report.results.map(\.verdict.passed) == [true, false, true, false, true, false, false, false, true])
    }

    @Test func theGestureWindowIsTheLastInputStep() throws {
        // The hold's decision is made by the timer after the press: it belongs to the press's step.
        let report = try run("""
            {"stories-flow":1,"width":100,"height":30}
            {"key":"Enter"}
            {"mouse":"press","button":"left","x":50,"y":15}
            {"wait":0.5}
            {"expect":"gesture","gesture":"hold","handler":"viewer.playback","now":true}
            {"expect":"progress","item":1,"atMost":0.1,"now":true}
            {"mouse":"release","button":"left","x":50,"y":15}
            {"expect":"gesture","gesture":"hold"}
            {"wait":1}
            {"expect":"progress","item":1,"atLeast":0.15,"atMost":0.3}
            """)
        #expect(report.results.map(\.verdict.passed) == [true, true, false, true], "\(report.lines())")
    }

    @Test func inputsAfterAnEndLineAreSaidNotFed() throws {
        let report = try run("""
            {"stories-flow":1,"width":100,"height":30}
            {"end":true}
            {"key":"Enter"}
            {"expect":"shown","home":true}
            """)
        #expect(report.results.map(\.verdict.passed) == [true], "Enter was not fed")
        #expect(report.lines().contains("  f.jsonl: an end line at 0.00 s; later inputs were not fed"))
    }

    @Test func junitXMLIsWellFormedWhateverTheTextHolds() throws {
        let report = FlowRunReport(file: "a<b>&\"c\".jsonl", results: [
            FlowResult(line: 2, name: "ok", expected: "ok", verdict: FlowVerdict(passed: true, actual: "fine"), time: 0.5),
            FlowResult(line: 3, name: "text \"x\u{1B}]52\" visible", expected: "x", verdict: FlowVerdict(passed: false, actual: "a\u{0}b\u{7}c", evidence: ["<row>"]),
                       time: 1),
        ], duration: 1)
        let xml = JUnitReport.xml([report], problems: [("bad.jsonl", "bad.jsonl:1: empty")])
        #expect(!xml.contains("\u{1B}") && !xml.contains("\u{0}") && !xml.contains("\u{7}"))
        let parser = XMLParser(data: Data(xml.utf8))
        final class Counter: NSObject, XMLParserDelegate {
            var cases = 0, failures = 0, errors = 0
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if name == "testcase" { cases += 1 }
                if name == "failure" { failures += 1 }
                if name == "error" { errors += 1 }
            }
        }
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect((counter.cases, counter.failures, counter.errors) == (3, 1, 1))
        #expect(xml.contains("<testsuite name=\"a&lt;b&gt;&amp;&quot;c&quot;.jsonl\" tests=\"2\" failures=\"1\""))
    }
}
