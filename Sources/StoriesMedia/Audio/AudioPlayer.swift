import Foundation
import StoriesCore

/// One video's sound, played on a thread of its own (issue 32): decoded, resampled and
/// written to the sound server in 20 ms pieces, and the clock the video's pictures follow —
/// the time of what is heard now (what was written less what the server still holds).
/// Told what to do (`play(from:)`, `pause`, `stop`) and decides nothing: the app's effects
/// say when. A pause throws away what the server holds, so it is silent within a piece
/// (20 ms) and the server's answer; playing again starts where it was heard to stop.
/// Without an output, or without sound in the file, it says why once (`problem`) and the
/// pictures keep their own clock.
public final class AudioPlayer: @unchecked Sendable {
    // `condition` guards every `var` below; the thread reads them under it and does its
    // decoding and writing outside it.
    private let condition = NSCondition()
    private enum Wanted: Equatable { case paused, playing, stopped }
    private var wanted = Wanted.paused
    /// Where to start when next told to play (nil: where it stopped).
    private var startAt: Double?
    /// What is heard: its time in the video and the monotonic time it was measured at;
    /// nil while silent.
    private var heard: (time: Double, at: Double)?
    /// The time of the last sample written (the clock never runs past what was written
    /// while sound is still coming).
    private var writtenUntil = 0.0
    private var ended = false
    private var stoppedAt = 0.0
    private var volumeLevel = 1.0
    private var problemSaid: AudioProblem?
    private var started = false
    /// Frames written since the last `play` (tests).
    private var framesWritten = 0

    private let data: Data
    private let makeOutput: @Sendable (Int, Int) throws(AudioProblem) -> SoundOutput
    private let rate: Int, channels: Int
    /// The piece written at a time.
    static let piece = 0.02
    /// How far ahead of what is heard the sound is written: the server holds this much.
    static let ahead = 0.15

    public init(data: Data, rate: Int = 48_000, channels: Int = 2,
                output: @escaping @Sendable (Int, Int) throws(AudioProblem) -> SoundOutput = { rate, channels throws(AudioProblem) in
                    try PulseOutput(rate: rate, channels: channels)
                }) {
        self.data = data
        self.rate = rate
        self.channels = channels
        makeOutput = output
    }

    deinit { stop() }

    /// Why there is no sound, once known (no sound in the file, no server, …).
    public var problem: AudioProblem? {
        condition.lock(); defer { condition.unlock() }
        return problemSaid
    }

    /// Opens the sound and the output ahead of time, silent: `play` then starts at once.
    public func prepare() {
        condition.lock()
        startThread()
        condition.unlock()
    }

    /// Starts the thread (under `condition`).
    private func startThread() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.qualityOfService = .userInteractive
        thread.name = "stories.audio"
        thread.start()
    }

    /// Plays from `time` seconds of the video (nil: where it last stopped).
    public func play(from time: Double? = nil) {
        condition.lock()
        startThread()
        if wanted != .stopped {
            if let time {
                startAt = max(0, time)
                heard = nil // the clock is the new place's once it is heard there
            } else if startAt == nil, wanted != .playing {
                startAt = stoppedAt
            }
            wanted = .playing
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Silence at once; `play()` goes on from here.
    public func pause() {
        condition.lock()
        if wanted == .playing { wanted = .paused }
        condition.broadcast()
        condition.unlock()
    }

    /// Silence for good: the thread ends and the output is closed.
    public func stop() {
        condition.lock()
        wanted = .stopped
        condition.broadcast()
        condition.unlock()
    }

    /// 0…1 (0: silent, the clock still running).
    public var volume: Double {
        get { condition.lock(); defer { condition.unlock() }; return volumeLevel }
        set { condition.lock(); volumeLevel = newValue.isFinite ? min(1, max(0, newValue)) : 1; condition.unlock() }
    }

    /// The time in the video of what is heard now, seconds; nil while nothing plays (not
    /// started, paused, or no sound). Past the sound's end it runs on by the wall clock.
    public var position: Double? {
        condition.lock(); defer { condition.unlock() }
        guard wanted == .playing, let heard else { return nil }
        let now = Self.now()
        let time = heard.time + (now - heard.at)
        return ended ? time : min(time, writtenUntil)
    }

    /// Frames written since the last start (tests).
    public var written: Int { condition.lock(); defer { condition.unlock() }; return framesWritten }

    /// The monotonic clock (seconds) the sound is timed by.
    public static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    // MARK: - The thread

    private func say(_ problem: AudioProblem) {
        condition.lock()
        if problemSaid == nil { problemSaid = problem }
        heard = nil
        condition.unlock()
    }

    private func run() {
        let decoder: AudioDecoder
        let output: SoundOutput
        do throws(AudioProblem) {
            decoder = try AudioDecoder(data: data, rate: rate, channels: channels)
            output = try makeOutput(rate, channels)
        } catch {
            say(error)
            return
        }
        var buffer = [Int16](repeating: 0, count: Int(Double(rate) * Self.piece) * channels)
        var silence = [Int16]()
        var expected = 0.0 // the time of the next sample to write
        var playing = false
        while true {
            condition.lock()
            if wanted == .paused, playing {
                // Told to pause: what the server holds is thrown away, and the clock stops
                // at what was heard.
                let now = Self.now()
                stoppedAt = heard.map { min($0.time + (now - $0.at), writtenUntil) } ?? expected
                heard = nil
                playing = false
                condition.unlock()
                output.flush()
                continue
            }
            while wanted == .paused { condition.wait() }
            if wanted == .stopped {
                heard = nil
                condition.unlock()
                output.flush()
                return
            }
            // Far enough ahead: wait (a pause or stop wakes it at once) rather than block in
            // a write the server would hold until it has room.
            if playing, startAt == nil, let buffered = output.latency, buffered > Self.ahead {
                _ = condition.wait(until: Date(timeIntervalSinceNow: min(0.02, buffered - Self.ahead + 0.005)))
                condition.unlock()
                continue
            }
            let level = volumeLevel
            var restartAt = startAt
            startAt = nil
            if !playing, restartAt == nil { restartAt = stoppedAt }
            condition.unlock()

            if let time = restartAt {
                decoder.seek(to: time)
                expected = time
                playing = true
                condition.lock()
                ended = false
                framesWritten = 0
                writtenUntil = time
                heard = (time, Self.now())
                condition.unlock()
            }
            let piece: (frames: Int, time: Double)?
            do throws(AudioProblem) {
                piece = try decoder.read(into: &buffer, maxFrames: Int(Double(rate) * Self.piece))
            } catch {
                say(error)
                return
            }
            guard let piece else {
                // The sound ended: the clock runs on by the wall clock; wait to be told.
                condition.lock()
                ended = true
                while wanted == .playing, startAt == nil { condition.wait() }
                condition.unlock()
                continue
            }
            var start = 0
            if piece.time < expected - 0.5 / Double(rate) {
                // From before where it is to start (a seek lands on the packet before it).
                start = min(piece.frames, Int(((expected - piece.time) * Double(rate)).rounded()))
            } else if piece.time > expected + 0.005 {
                // A gap in the sound (or a stream that starts after the pictures): silence.
                let frames = min(Int(((piece.time - expected) * Double(rate)).rounded()), rate * 2)
                if silence.count < frames * channels { silence = [Int16](repeating: 0, count: frames * channels) }
                if !write(silence, from: 0, frames: frames, to: output) { return }
                expected += Double(frames) / Double(rate)
            }
            let frames = piece.frames - start
            guard frames > 0 else { continue }
            if level < 1 {
                for index in (start * channels)..<(piece.frames * channels) {
                    buffer[index] = Int16(clamping: Int((Double(buffer[index]) * level).rounded()))
                }
            }
            if !write(buffer, from: start, frames: frames, to: output) { return }
            expected += Double(frames) / Double(rate)
        }

        func write(_ pcm: [Int16], from frame: Int, frames: Int, to output: SoundOutput) -> Bool {
            do throws(AudioProblem) {
                try pcm.withUnsafeBufferPointer { all throws(AudioProblem) in
                    try output.write(UnsafeBufferPointer(rebasing: all[(frame * channels)..<((frame + frames) * channels)]), frames: frames)
                }
            } catch {
                say(error)
                return false
            }
            let latency = output.latency ?? 0
            condition.lock()
            framesWritten += frames
            writtenUntil = expected + Double(frames) / Double(rate)
            heard = (writtenUntil - latency, Self.now())
            condition.unlock()
            return true
        }
    }
}
