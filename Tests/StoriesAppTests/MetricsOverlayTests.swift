import StoriesTestSupport
import StoriesApp
import StoriesCore
import Testing
@testable import StoriesUI

@MainActor
@Suite struct MetricsOverlayTests {
    @Test func theOverlayReadsAsANumberedReport() {
        var state = AppDriver().state
        state.chrome.showsMetrics = true
        let metrics = MetricsSnapshot(
            policy: .on,
            latest: [
                NavigationRecord(trigger: "open", story: "ayla", item: "astronaut", t2: 0, t1: 0, t3: 0, timeToVisible: 1.2, firstFrame: 1.2, hit: true),
                NavigationRecord(trigger: "tap right", story: "ayla", item: "rocket", t2: 0, t1: 0, t3: 297.3, timeToVisible: 305.3, firstFrame: 8.2, hit: false),
                NavigationRecord(trigger: "swipe to the next story", story: "mika", item: "chelsea", t2: 120, t1: 0, t3: 0,
                                 timeToVisible: 150, firstFrame: 150, hit: false, complete: false),
            ],
            window: [.init(label: "2/3", stage: "shown", isVisible: true), .init(label: "3/3", stage: "fetching"),
                     .init(label: "1/3", stage: "ready"), .init(label: "next 1/3", stage: "decoding"), .init(label: "feed 4", stage: "queued")],
            memoryBytes: 3_250_000, memoryBudget: 64 << 20, bytesFetched: 1_000_000, bytesNeverShown: 200_000, hits: 1, navigations: 3)
        let canvas = AppView.render(state, width: 100, height: 24, metrics: metrics)
        let lines = Snapshot.lines(of: canvas)
        expectSnapshot(Snapshot.text(of: canvas, styles: false), named: "metrics-overlay-100x24")
        #expect(lines.contains { $0.contains("Metrics · preload on · hits 1/3 (33%) · i hides") })
        #expect(lines.contains { $0.contains("memory 3.1 MB of 64.0 MB · fetched 977 KB · never shown 195 KB (20% of it)") })
        #expect(lines.contains { $0.contains("window [2/3 shown] [3/3 fetching] [1/3 ready] [next 1/3 decoding] [feed 4 queued]") })
        #expect(lines.contains { $0.hasPrefix(" miss tap right") && $0.contains("visible 305 ms") && $0.contains("t3 297 ms") })
        #expect(lines.contains { $0.hasPrefix(" left swipe to the next story") })
    }

    @Test func iTogglesItAndOnlyOneOverlayShowsAtATime() {
        let pilot = AppDriver()
        pilot.type("g")
        pilot.type("i")
        #expect(pilot.state.chrome.showsMetrics && !pilot.state.chrome.showsGestures)
        #expect(pilot.text.contains("Metrics · preload on"))
        pilot.type("g")
        #expect(!pilot.state.chrome.showsMetrics && pilot.state.chrome.showsGestures)
        pilot.type("g")
        #expect(!pilot.text.contains("Metrics ·") && !pilot.text.contains("Gestures ·"))
    }
}

@Suite struct MetricsWordsTests {
    /// Small amounts are said in bytes or KB: "never shown 0.0 MB (23%)" said nothing true.
    @Test func amountsAreNeverRoundedAwayToZero() {
        #expect(MetricsOverlay.bytes(0) == "0 B")
        #expect(MetricsOverlay.bytes(512) == "512 B")
        #expect(MetricsOverlay.bytes(23_000) == "22 KB")
        #expect(MetricsOverlay.bytes(1_048_576) == "1.0 MB")
        #expect(MetricsOverlay.bytes(3_250_000) == "3.1 MB")
    }
}
