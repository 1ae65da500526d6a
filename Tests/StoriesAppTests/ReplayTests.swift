@testable import StoriesFeedIO
import StoriesTestSupport
import Foundation
import StoriesAssets
import StoriesCore
import StoriesUI
import Testing
@testable import StoriesApp

/// Recordings replayed headless: on the virtual clock the same recording gives the same
/// last screen every time, and that screen is what the inputs lead to.
@MainActor
@Suite struct ReplayTests {
    func demoClient(_ profile: NetworkProfile = .local) throws -> FeedClient {
        let directory = try #require(DemoFeed.directory)
        return FeedClient(source: try FeedFolder(directory: directory), profile: profile)
    }

    /// A QA session: open Mika, tap on, hold, swipe to the next story by dragging, tap back
    /// (on a first item: the previous story), a short pull-down that snaps back, then open
    /// the gesture log.
    static let session: InputRecording = {
        func mouse(_ kind: MouseEvent.Kind, _ x: Int, _ y: Int) -> InputRecording.Entry {
            .input(.mouse(MouseEvent(kind: kind, column: x, row: y)))
        }
        return InputRecording(width: 100, height: 30, started: 1_795_240_800, entries: [
            (0.4, .input(.key(.right))),
            (0.8, .input(.key(.enter))),
            (1.5, mouse(.press(.left), 80, 15)), (1.55, mouse(.release(.left), 80, 15)),
            (2.0, mouse(.press(.left), 60, 15)), (2.6, mouse(.release(.left), 60, 15)),
            (3.0, mouse(.press(.left), 80, 15)), (3.05, mouse(.drag(.left), 70, 15)),
            (3.1, mouse(.drag(.left), 50, 16)), (3.15, mouse(.release(.left), 50, 16)),
            (4.0, mouse(.press(.left), 10, 15)), (4.05, mouse(.release(.left), 10, 15)),
            (4.5, mouse(.press(.left), 50, 4)), (4.55, mouse(.drag(.left), 50, 6)), (4.6, mouse(.release(.left), 50, 6)),
            (5.0, .input(.key(.character("g")))),
            (6.5, .end),
        ])
    }()

    @Test func theSameRecordingGivesTheSameScreenEveryTime() throws {
        let options = HeadlessRun.Options(width: 100, height: 30, recording: Self.session)
        let first = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        let second = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        #expect(first == second)
        let third = HeadlessRun.runOnVirtualClock(client: try demoClient(.slow), options: options)
        #expect(third == HeadlessRun.runOnVirtualClock(client: try demoClient(.slow), options: options),
                "with network delays (in virtual time) too")
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__/replay-session-100x30.txt")
        switch SnapshotFile.verify(first.joined(separator: "\n"), at: url) {
        case .matched: break
        case .recorded(let path): Issue.record("Recorded a new snapshot at \(path); review it, then run the tests again.")
        case .mismatched(let diff): Issue.record("Replay screen differs:\n\(diff)")
        }
        let screen = first.joined(separator: "\n")
        // The drag went on to 山田 花子; the tap back on its first item went back to Mika.
        #expect(screen.contains("30 of 100 columns, at least a quarter"))
        #expect(screen.contains("tap left → viewer.tapZones → previousItem"))
        #expect(first[1].contains("Mika 🌸") && first[1].hasSuffix("1/3"))
        #expect(screen.contains("pull down cancelled (snaps back)"))
    }

    @Test func aRecordingMadeByTheEngineReplaysToTheSameScreen() throws {
        let path = NSTemporaryDirectory() + "stories-record-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try LineFile.open(path, append: false)

        // Drive an engine on the virtual clock by hand, recording as the app does.
        let scheduler = VirtualScheduler(start: Moment(uptime: 50, date: Date(timeIntervalSince1970: 1_795_240_800)))
        let engine = AppEngine(services: VirtualServices(client: try demoClient(), scheduler: scheduler),
                               scheduler: scheduler, width: 90, height: 26)
        engine.record(to: handle)
        engine.start()
        scheduler.run(until: 50.5)
        engine.input(.key(.enter))
        scheduler.run(until: 51.2)
        engine.input(.mouse(MouseEvent(kind: .press(.left), column: 70, row: 10)))
        scheduler.run(until: 51.25)
        engine.input(.mouse(MouseEvent(kind: .release(.left), column: 70, row: 10)))
        scheduler.run(until: 51.6)
        engine.resize(width: 84, height: 24)
        scheduler.run(until: 52)
        engine.input(.key(.character("]")))
        scheduler.run(until: 52.5)
        engine.input(.key(.character("z"), .control)) // job control: not kept (a replay never stops itself)
        scheduler.run(until: 53)
        engine.endRecording()
        _ = handle // each line is written as it comes: nothing to close
        let live = Snapshot.lines(of: engine.redraw())

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let recording = try InputRecording.parse(text, file: path)
        #expect(recording.entries.count == 6, "Ctrl-Z is not among them: \(recording.entries)")
        #expect(recording.entries.last?.entry == .end)
        let replayed = HeadlessRun.runOnVirtualClock(client: try demoClient(),
                                                     options: HeadlessRun.Options(width: 90, height: 26, recording: recording))
        #expect(replayed == live)
        #expect(replayed.count == 24, "the recorded resize applied")
    }

    @Test func theVirtualSchedulerRunsWorkInTimeOrderAndSkipsCancelled() {
        let scheduler = VirtualScheduler(start: Moment(uptime: 0, date: Date(timeIntervalSince1970: 0)))
        var ran: [String] = []
        scheduler.after(0.2) { ran.append("b@\(scheduler.now().uptime)") }
        scheduler.after(0.1) { ran.append("a@\(scheduler.now().uptime)") }
        let cancelled = scheduler.after(0.15) { ran.append("never") }
        scheduler.after(0.1) { ran.append("a2") }
        cancelled.cancel()
        scheduler.run(until: 0.3)
        #expect(ran == ["a@0.1", "a2", "b@0.2"])
        #expect(scheduler.now().uptime == 0.3)
        #expect(!scheduler.runNext(), "nothing left, the cancelled work included")
    }

    @Test func progressWaitsUntilThePipelineSaysThePhotoIsReady() throws {
        // Over a network of 0.5 s the photo comes after the items: the viewer opens on its
        // BlurHash with the bar standing still, and the bar starts when the photo is ready.
        let pilot = AppDriver(width: 100, height: 30, network: AppDriver.network(latency: 0.5), preload: .off)
        pilot.wait(0.5)                                   // the first page
        pilot.press(.key(.enter))
        pilot.wait(0.5)                                   // the items: the viewer opens
        let location = try #require(pilot.state.visibleMedia?.location)
        #expect(pilot.state.awaitsMedia)
        #expect(pilot.state.media.status[location] == .fetching)
        pilot.wait(0.4)
        #expect(pilot.elapsed == 0, "no progress while the photo is on its way")
        pilot.wait(0.2)                                   // the bytes arrive and decode in that moment
        #expect(pilot.state.media.status[location] == .ready)
        #expect(!pilot.state.awaitsMedia)
        pilot.wait(1)
        #expect(abs((pilot.elapsed ?? 0) - 1.1) < 0.05, "the bar runs from the moment the photo came")
    }

    /// `--until`: the screen as it was at that moment, not after the rest of the recording.
    @Test func untilStopsAtAMoment() throws {
        var options = HeadlessRun.Options(width: 100, height: 30, recording: Self.session)
        options.until = 1.2
        let atOne = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        #expect(atOne.contains { $0.contains("Mika 🌸") && $0.contains("1/3") }, "Mika's first item, opened at 0.8 s (the zoom over by 1.05 s)")
        #expect(!atOne.joined().contains("Gestures"), "the g at 5 s has not come")
        options.until = 6.0
        let atSix = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        #expect(atSix.joined().contains("Gestures"))
        #expect(atOne == HeadlessRun.runOnVirtualClock(client: try demoClient(), options: { var o = options; o.until = 1.2; return o }()),
                "the same moment gives the same screen")
    }

    /// `--gesture-log`: every decision, resizes included, one JSON line each.
    @Test func theGestureLogIsWrittenAsJSONLinesWithResizes() throws {
        var recording = Self.session
        recording.entries.insert((4.8, .resize(width: 90, height: 28)), at: recording.entries.count - 2)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gestures-\(UUID()).jsonl")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        var options = HeadlessRun.Options(width: 100, height: 30, recording: recording)
        options.gestureLog = try LineFile.open(url.path, append: false)
        _ = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        let inputs = recording.entries.filter { if case .input = $0.entry { true } else { false } }.count
        #expect(lines.count == inputs + 1 + 1, "each input, the hold check, and the resize")
        struct Line: Decodable { var t: Double; var phase: String; var input: String; var gesture: String; var handler: String; var result: [String] }
        let decoded = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(decoded.first?.input == "key →" && decoded.first?.phase == "home" && decoded.first?.t == 0.4)
        #expect(decoded.contains { $0.input == "resize to 90×28" && $0.gesture == "resize" && $0.t == 4.8 })
        #expect(decoded.contains { $0.gesture == "hold" && $0.input.hasPrefix("timer") })
        #expect(decoded.map(\.t) == decoded.map(\.t).sorted())
    }

    @Test func aResizeIsInTheLogAndSaysWhatItInterrupted() {
        let d = AppDriver(width: 100, height: 30, motion: true)
        d.press(.key(.enter))
        d.resize(width: 30, height: 10)
        let decision = d.lastDecision
        #expect(decision?.input == "resize to 30×10" && decision?.handler == "app")
        #expect(decision?.notes.contains("the animation ended at once") == true)
        #expect(decision?.notes.contains { $0.hasPrefix("too small to show anything") } == true)
        d.resize(width: 30, height: 10)
        #expect(d.state.gesture.log.filter { $0.gesture == "resize" }.count == 1, "the same size again is no resize")
    }

    /// A live replay says so on the hint line, with its clock, and ticks only while it runs.
    @Test func aLiveReplayShowsReplayingWithItsTime() {
        let d = AppDriver(width: 100, height: 30)
        #expect(AppView.secondsUntilNextChange(d.state, width: 100, height: 30) == nil, "idle: no frames")
        d.deliver(.replay(ReplayStatus(name: "session.jsonl", since: d.now.uptime, end: 9.5, stoppedEarly: false)))
        d.wait(3.25)
        #expect(d.lines.last?.hasSuffix("▶ replaying session.jsonl 3.2/9.5 s") == true, "\(d.lines.last ?? "")")
        #expect(d.lines.last?.hasPrefix(" ←→ choose") == true, "the hints keep their place")
        #expect(AppView.secondsUntilNextChange(d.state, width: 100, height: 30) != nil)
        var over = ReplayStatus(name: "session.jsonl", since: 0, end: 3.2, stoppedEarly: true)
        over.isOver = true
        d.deliver(.replay(over))
        #expect(d.lines.last?.hasSuffix("■ replay session.jsonl stopped at 3.2 s") == true)
        #expect(AppView.secondsUntilNextChange(d.state, width: 100, height: 30) == nil, "over: idle again")
    }

    /// `--until` far past the recording's end stops after a bounded number of steps (a story
    /// playing on for a virtual year would be 10⁹ frames), and still prints a screen.
    @Test func untilFarPastTheEndIsBounded() throws {
        var options = HeadlessRun.Options(width: 100, height: 30, recording: Self.session)
        options.until = InputLimits.maxRecordingTime
        let started = Date()
        let lines = HeadlessRun.runOnVirtualClock(client: try demoClient(), options: options)
        #expect(lines.count == 30)
        #expect(Date().timeIntervalSince(started) < 60, "bounded")
    }
}
