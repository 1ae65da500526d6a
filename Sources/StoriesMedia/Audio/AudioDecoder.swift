import CStoriesVideo
import Foundation
import StoriesCore

/// Why a video plays without sound (issue 32): said once, never a failure of the video.
public enum AudioProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file has no sound: nothing to say about it.
    case none
    /// The sound cannot be read (an unknown codec, headers out of bounds, corrupt).
    case unreadable(String)
    /// There is nowhere to play it (no PulseAudio library, no server: over ssh, in a
    /// container) or the server went away.
    case noOutput(String)

    public var description: String {
        switch self {
        case .none: "the video has no sound"
        case .unreadable(let why): "its sound cannot be played: \(why)"
        case .noOutput(let why): why
        }
    }
}

/// One video's sound, decoded by FFmpeg and resampled to `rate` Hz and `channels`
/// channels of signed 16-bit samples. Not thread-safe: one thread at a time (an
/// `AudioPlayer`'s own).
public final class AudioDecoder {
    private let handle: OpaquePointer
    public let rate: Int
    public let channels: Int
    /// The sound's own rate and channels, its codec, and where it starts after the
    /// pictures (seconds).
    public let sourceRate: Int, sourceChannels: Int, codec: String, offset: Double
    public let duration: Double?

    public init(data: Data, rate: Int = 48_000, channels: Int = 2) throws(AudioProblem) {
        guard VideoContainer.sniff(data) != nil || SoundContainer.sniff(data) != nil else { throw .none }
        VideoLog.install()
        var info = stories_audio_info()
        var message = [CChar](repeating: 0, count: 256)
        var pointer: OpaquePointer?
        let status = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return Int32(STORIES_AUDIO_NONE) }
            return stories_audio_open(base, raw.count, Int32(rate), Int32(channels), &pointer, &info, &message, message.count)
        }
        let why = SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120)
        guard status == Int32(STORIES_AUDIO_OK), let pointer else {
            throw status == Int32(STORIES_AUDIO_NONE) ? .none : .unreadable(why.isEmpty ? "unknown" : why)
        }
        handle = pointer
        self.rate = rate
        self.channels = channels
        sourceRate = Int(info.sample_rate)
        sourceChannels = Int(info.channels)
        codec = withUnsafeBytes(of: info.codec) { SafeText.line(String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self), maxColumns: 30) }
        offset = info.offset
        duration = info.duration > 0 ? info.duration : nil
    }

    deinit { stories_audio_close(handle) }

    /// Up to `maxFrames` frames into `buffer` (resized to hold them): how many, and the
    /// first one's time from the video's start; nil at the end of the sound.
    public func read(into buffer: inout [Int16], maxFrames: Int) throws(AudioProblem) -> (frames: Int, time: Double)? {
        let wanted = max(1, min(maxFrames, 1 << 16))
        if buffer.count < wanted * channels { buffer = [Int16](repeating: 0, count: wanted * channels) }
        var time = 0.0
        var message = [CChar](repeating: 0, count: 256)
        let got = buffer.withUnsafeMutableBufferPointer { pcm in
            stories_audio_read(handle, pcm.baseAddress, Int32(wanted), &time, &message, message.count)
        }
        if got < 0 {
            throw .unreadable(SafeText.line(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), maxColumns: 120))
        }
        return got == 0 ? nil : (Int(got), time.isFinite ? time : 0)
    }

    /// Goes to `seconds` from the video's start (the packet at or before it).
    @discardableResult
    public func seek(to seconds: Double) -> Bool { stories_audio_seek(handle, seconds) == 0 }

    public var corruptPackets: Int { Int(stories_audio_corrupt_packets(handle)) }
}
