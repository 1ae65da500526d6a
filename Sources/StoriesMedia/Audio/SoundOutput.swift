import CStoriesVideo
import Foundation
import StoriesCore

/// Opens an output for `rate` Hz and `channels` channels (on the sound's own thread).
public typealias SoundOutputFactory = @Sendable (_ rate: Int, _ channels: Int) throws(AudioProblem) -> SoundOutput

/// Where sound goes: the desktop's sound server, or a stand-in in tests. Called from one
/// thread (the `AudioPlayer`'s); `write` blocks until the output has room.
public protocol SoundOutput: AnyObject {
    var rate: Int { get }
    var channels: Int { get }
    /// Writes interleaved frames; throws when the output went away.
    func write(_ pcm: UnsafeBufferPointer<Int16>, frames: Int) throws(AudioProblem)
    /// Seconds between what was written and what is heard now (nil: unknown).
    var latency: Double? { get }
    /// Throws away what is buffered and not yet heard.
    func flush()
}

/// PulseAudio's simple API, opened at run time (`libpulse-simple.so.0`); PipeWire's pulse
/// server speaks it too.
public final class PulseOutput: SoundOutput {
    private let handle: OpaquePointer
    public let rate: Int
    public let channels: Int
    /// The buffering asked for: enough that a busy main thread never starves it, little
    /// enough that a pause is heard at once (a pause also throws the buffer away).
    public static let latencyMilliseconds = 60

    /// Connects, or says why not (no library, no server).
    public init(rate: Int = 48_000, channels: Int = 2, name: String = "story") throws(AudioProblem) {
        var message = [CChar](repeating: 0, count: 256)
        guard let handle = stories_sound_open(Int32(rate), Int32(channels), Int32(Self.latencyMilliseconds), name, &message, message.count) else {
            throw .noOutput(SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120))
        }
        self.handle = handle
        self.rate = rate
        self.channels = channels
    }

    deinit { stories_sound_close(handle) }

    public func write(_ pcm: UnsafeBufferPointer<Int16>, frames: Int) throws(AudioProblem) {
        guard let base = pcm.baseAddress, frames > 0 else { return }
        var message = [CChar](repeating: 0, count: 256)
        if stories_sound_write(handle, base, frames, &message, message.count) != 0 {
            throw .noOutput(SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120))
        }
    }

    public var latency: Double? {
        let microseconds = stories_sound_latency(handle)
        return microseconds < 0 ? nil : Double(microseconds) / 1_000_000
    }

    public func flush() { _ = stories_sound_flush(handle) }
}
