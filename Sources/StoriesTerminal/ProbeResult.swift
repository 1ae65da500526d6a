import Foundation

/// What a probe found.
public struct ProbeResult: Sendable {
    /// Whether anything was asked (false: not a terminal).
    public var asked: Bool
    public var replies = ProbeReplies()
    /// From sending the burst to the last answer read (or the timeout).
    public var elapsed: Duration = .zero
    /// DA1's answer came, but after the timeout (read while lingering).
    public var late = false
    /// `ask(handOver: true)`: the terminal's modes before the probe, to give back at the end
    /// (the terminal is still raw).
    public var savedModes: termios?
    /// The shared-memory object offered to kitty's `t=s` query, still there because DA1 had
    /// not answered when the probe stopped reading: removed once it does, or at the end
    /// (`KittySharedMemory.remove`).
    public var sharedMemoryOffer: String?

    public init(asked: Bool, replies: ProbeReplies = ProbeReplies(), elapsed: Duration = .zero, late: Bool = false, savedModes: termios? = nil) {
        self.asked = asked
        self.replies = replies
        self.elapsed = elapsed
        self.late = late
        self.savedModes = savedModes
    }
}
