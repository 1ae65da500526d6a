/// Where a clip's frames fall on the video's clock as it plays through, pass after pass:
/// the one arithmetic of looping, used by the viewer's players (`VideoWorker`) and by
/// `stories play` (`TerminalPlayback`).
///
/// A pass ends when its last frame gives way (the frame's own duration: a GIF's last delay
/// whole), and the next begins there; passes the clock has already left behind (a suspend,
/// a jump) are skipped whole, as many as are left to play. The stream's last frame (by its
/// declared length, in its last pass) is never to be dropped as late: it is what stays.
public struct PassClock: Sendable {
    /// How many times the clip plays through in all when it loops (nil: for ever).
    public let plays: Int?
    /// The stream's declared length, seconds, if it says.
    public let length: Double?
    /// When the pass under way began (0 on the first).
    public private(set) var offset = 0.0
    /// Passes begun before the one under way.
    public private(set) var pass = 0
    /// When the last frame placed gives way.
    public private(set) var lastEnd = 0.0

    public init(plays: Int?, length: Double?) {
        self.plays = plays
        self.length = length
    }

    /// A frame decoded at `pts` that gives way at `frameEnd` (both the stream's own
    /// times): when it is due and when it ends on the clock.
    @discardableResult
    public mutating func place(pts: Double, frameEnd: Double) -> (time: Double, end: Double) {
        let end = frameEnd + offset
        lastEnd = max(lastEnd, end)
        return (pts + offset, end)
    }

    /// Whether, looping, another pass is to be played after this one.
    public func playsAgain(looping: Bool) -> Bool {
        guard looping else { return false }
        return plays.map { pass + 1 < $0 } ?? true
    }

    /// Whether the frame ending at `end` is the clip's very last.
    public func isLast(end: Double, looping: Bool) -> Bool {
        let lastPass = !looping || plays.map { pass + 1 >= $0 } == true
        return lastPass && length.map { end - offset >= $0 - 1e-3 } == true
    }

    /// The next pass begins where the last frame gave way; whole passes the clock (`now`)
    /// has already left behind are skipped.
    public mutating func nextPass(now: Double) {
        let passLength = max(1e-3, lastEnd - offset)
        pass += 1
        offset = lastEnd
        let behind = min(1e6, ((now - offset) / passLength).rounded(.down))
        guard behind >= 1 else { return }
        let skipped = plays.map { min(behind, Double(max(0, $0 - pass - 1))) } ?? behind
        offset += skipped * passLength
        pass += Int(skipped)
    }

    /// Back to the first pass.
    public mutating func reset() {
        offset = 0
        pass = 0
        lastEnd = 0
    }
}
