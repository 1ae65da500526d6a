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
    /// Connects, or says why not (no library, no server). `server`: its address
    /// ("unix:/path/native"; nil: the default, or PULSE_SERVER).
    public init(server: String? = nil, rate: Int = 48_000, channels: Int = 2, name: String = "story") throws(AudioProblem) {
        var message = [CChar](repeating: 0, count: 256)
        guard let handle = stories_sound_open(server, Int32(rate), Int32(channels), name, &message, message.count) else {
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

/// Listens to what the sound server plays (a sink's monitor source): what the tests and
/// `stories bench sound` hear. Each piece read comes with the monotonic time its first
/// sample was played, from the server's latency, so what was heard can be set beside what
/// was shown.
public final class SoundRecorder {
    private let handle: OpaquePointer
    public let rate: Int
    public let channels: Int

    /// `server`: the sound server's address ("unix:/path/native"; nil: the default).
    public init(server: String? = nil, device: String?, rate: Int = 48_000, channels: Int = 1, pieceMilliseconds: Int = 5) throws(AudioProblem) {
        var message = [CChar](repeating: 0, count: 256)
        guard let handle = stories_sound_record(server, device, Int32(rate), Int32(channels), Int32(pieceMilliseconds), &message, message.count) else {
            throw .noOutput(SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120))
        }
        self.handle = handle
        self.rate = rate
        self.channels = channels
    }

    deinit { stories_sound_close(handle) }

    /// `frames` frames as they come (blocking), and the monotonic time (seconds, the clock
    /// `AudioPlayer` and `stories play --stats` use) of the first of them.
    public func read(frames: Int) throws(AudioProblem) -> (samples: [Int16], startedAt: Double) {
        var samples = [Int16](repeating: 0, count: max(1, frames) * channels)
        var message = [CChar](repeating: 0, count: 256)
        let status = samples.withUnsafeMutableBufferPointer { stories_sound_read(handle, $0.baseAddress, max(1, frames), &message, message.count) }
        let now = AudioPlayer.now()
        guard status == 0 else {
            throw .noOutput(SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120))
        }
        let latency = Double(max(0, stories_sound_latency(handle))) / 1_000_000
        return (samples, now - latency - Double(frames) / Double(rate))
    }
}
