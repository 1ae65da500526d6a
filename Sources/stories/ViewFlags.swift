import StoriesCommandLine

/// The viewer's flags as plain values (`ViewCommand.flags`, read by `runViewer`). For
/// `stories` alone — the viewer on the demo feed, the command people run most — they are
/// `ViewFlags()`, and ArgumentParser is never started: reflecting over the viewer's thirty
/// options was 6 of the 22 ms to the first ring (docs/performance.md, "Start-up"). A plain
/// struct, not a protocol both conform to: Swift 6.3's optimizer crashed on the generic
/// specialisation of `start` for `ViewCommand`. No flags (`ViewFlags()`) is what
/// ArgumentParser makes of an empty command line (`ViewFlagsTests` holds the two to it).
struct ViewFlags: Sendable {
    var folder: String?
    var feed: String?
    var server: String?
    var tokenFile: String?
    var synthetic: Int?
    /// The pretend network's flags; nil: none given.
    var networkFlags: NetworkOptions?
    var reduceMotion = false
    var preload: String?
    var colors: String?
    var theme: String?
    var symbols: String?
    var graphics: String?
    var seed: UInt64?
    var metrics: String?
    var record: String?
    var replay: String?
    var until: String?
    var gestureLog: String?
    var step = false
    var headless = false
    var mute = false
    var sound = false
    var screenReader = false
    var direction: String?
    var cursor: String?
    var size: String?
    var virtualClock = false
    /// `stories record --flow`: `record` is written as a flow, with the screen's checkpoints.
    var recordsFlow = false
}
