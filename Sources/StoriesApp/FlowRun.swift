import Foundation
import StoriesCells
import StoriesCore
import StoriesFeedIO
import StoriesUI

/// `stories check`: a flow run headless on the virtual clock — its inputs fed at their
/// moments, time passing as its waits say, and each expectation checked against the screen
/// and the state as they are then. The same flow gives the same results every time.
@MainActor
public enum FlowRun {
    /// Runs `flow`; `onFrame` sees every frame drawn with its time (seconds since the start)
    /// and the engine that drew it, for `stories render`.
    public static func run(_ flow: Flow, client: FeedClient, options: HeadlessRun.Options,
                           onFrame: (@MainActor (Canvas, Double, AppEngine) -> Void)? = nil) -> FlowRunReport {
        let start = Moment(uptime: 1000, date: Date(timeIntervalSince1970: flow.started))
        let scheduler = VirtualScheduler(start: start)
        var options = options
        options.recording = InputRecording(width: flow.width, height: flow.height, started: flow.started, seen: flow.seen,
                                           setup: flow.setup)
        let engine = HeadlessRun.makeEngine(VirtualServices(client: client, scheduler: scheduler), scheduler, options)
        var navigations: [NavigationRecord] = []
        engine.onNavigation = { navigations.append($0) }
        var quitAt: Double?
        func now() -> Double { scheduler.now().uptime - start.uptime }
        engine.quit = { _ in if quitAt == nil { quitAt = now() } }
        if let onFrame { engine.draw = { [unowned engine] in onFrame($0, now(), engine) } }
        engine.start()

        // A story playing on is a frame every 1/30 s: work is bounded per step, not only by time.
        let limit = 20_000_000
        func advance(by seconds: Double) {
            guard seconds > 0 else { return }
            scheduler.run(until: scheduler.now().uptime + seconds, limit: limit)
        }
        /// Until nothing is left to do (loads, pictures, an animation, a frame to draw), at
        /// most `Flow.settleLimit` seconds.
        func settle() {
            let deadline = scheduler.now().uptime + Flow.settleLimit
            var steps = 0
            while engine.isBusy, let due = scheduler.nextDue, due <= deadline, steps < limit {
                scheduler.runNext()
                steps += 1
            }
        }
        // A person waits for the app to come up before the first input: a flow written by hand
        // starts on the first screen that has settled (a recording keeps its own times).
        if flow.steps.first?.at == nil { settle() }
        var decisionsFrom = engine.state.gesture.decisionCount
        var ended = false
        var skipped = false
        var endedAt: Double?
        var failures = 0
        var results: [FlowResult] = []
        for step in flow.steps {
            if now() > Flow.maxRunTime {
                // Past the run's bound (its settles added up): the rest is not run.
                if case .expect(let expectation, _) = step.kind {
                    results.append(FlowResult(line: step.line, name: step.name ?? expectation.summary, expected: expectation.summary,
                                              verdict: FlowVerdict(passed: false, actual: "not run: the flow passed \(Int(Flow.maxRunTime)) s of virtual time"),
                                              time: now()))
                }
                continue
            }
            if let at = step.at { advance(by: at - now()) }
            switch step.kind {
            case .inputs(let entries):
                decisionsFrom = engine.state.gesture.decisionCount
                for (after, entry) in entries {
                    advance(by: after)
                    guard !ended, quitAt == nil else {
                        if entry != .end { skipped = true }
                        continue
                    }
                    if !RecordingFeeder.feed(entry, to: engine, screen: .recorded) {
                        ended = true
                        endedAt = now()
                    }
                }
            case .wait(let seconds):
                advance(by: seconds)
            case .settle:
                settle()
            case .expect(let expectation, let checkNow):
                if !checkNow { settle() }
                let state = engine.state
                let new = min(state.gesture.decisionCount - decisionsFrom, state.gesture.log.count)
                let canvas = engine.render()
                let observation = FlowObservation(time: now(), rows: rows(of: canvas), state: state,
                                                  decisions: Array(state.gesture.log.suffix(max(0, new))), navigations: navigations)
                var verdict = expectation.check(observation)
                // A failure shows the screen it was checked on, when it has nothing closer.
                // (The first failures' screens only: a flow of thousands of failures is not held in memory whole.)
                if !verdict.passed { failures += 1 }
                if !verdict.passed, verdict.evidence.isEmpty, failures <= 20 { verdict.evidence = FlowExpectation.framed(observation.lines) }
                if failures > 20 { verdict.evidence = [] }
                var result = FlowResult(line: step.line, name: step.name ?? expectation.summary, expected: expectation.summary,
                                        verdict: verdict, time: observation.time)
                if !verdict.passed, case .screen(_, let file?) = expectation { result.snapshot = (file, observation.lines) }
                results.append(result)
            }
        }
        let duration = now()
        engine.stop()
        var report = FlowRunReport(file: flow.file, results: results, duration: duration, endedEarly: skipped ? (quitAt ?? endedAt) : nil)
        if skipped, quitAt == nil { report.endedBy = "an end line" }
        return report
    }

    /// Each row's columns as text: the grapheme drawn there, "" for a wide one's right half.
    public static func rows(of canvas: Canvas) -> [[String]] {
        (0..<canvas.height).map { y in
            (0..<canvas.width).map { x in canvas[x, y].grapheme.map(String.init) ?? "" }
        }
    }
}
