import Foundation
import StoriesCore
import StoriesFeedIO

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
        let thread = Thread { [self] in
            Thread.current.name = "stories.audio" // from inside: Foundation on Linux names only the running thread
            nameThisThread("stories.audio") // and may miss one that runs before `start` returns
            run()
        }
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Plays from `time` seconds of the video (nil: where it last stopped).
    public func play(from time: Double? = nil) {
        condition.lock()
        startThread()
        if wanted != .stopped {
            // Without a time, the thread goes on from where it stopped (`stoppedAt`, which it
            // sets itself when it has paused).
            if let time {
                startAt = time.isFinite ? min(Self.longest, max(0, time)) : 0
                heard = nil // the clock is the new place's once it is heard there
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
        // A server that stopped taking sound but did not go away (a suspended sink): no
        // sound is heard, so the pictures go by their own clock rather than wait for it.
        if !ended, now - heard.at > Self.stalledAfter { return nil }
        let time = heard.time + (now - heard.at)
        return ended ? time : min(time, writtenUntil)
    }

    /// No write for this long while playing: the server is not taking sound.
    static let stalledAfter = 0.5
    /// The furthest into a video a sound is placed, seconds.
    static let longest = 86_400.0

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
        let pieceFrames = Int(Double(rate) * Self.piece)
        var buffer = [Int16](repeating: 0, count: pieceFrames * channels)
        let silence = [Int16](repeating: 0, count: pieceFrames * channels)
        /// A piece read and not yet due (after a gap in the sound, or the first, decoded
        /// while the player waits to be told to play): written when it is.
        var held: (frames: Int, time: Double)?
        // The first piece decoded now, before `play`: a start from the beginning goes
        // straight to it.
        do throws(AudioProblem) {
            if let first = try decoder.read(into: &buffer, maxFrames: pieceFrames) { held = (first.frames, first.time) }
        } catch {
            say(error)
            return
        }
        var fresh = held != nil // nothing read past the first piece yet
        var expected = 0.0 // the time of the next sample to write
        var playing = false
        while true {
            // What the server holds, asked outside the lock (it may wait on the server).
            let buffered = playing ? output.latency : nil
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
            if playing, startAt == nil, let buffered, buffered > Self.ahead {
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
                // Somewhere else, or going on after a pause: what the server still holds of
                // the old place goes first. The decoder starts 80 ms early and what comes
                // before the place is dropped, so a codec that fades in after a jump (Opus)
                // has done so by then.
                if playing { output.flush() }
                if fresh, let first = held, time <= first.time + 0.001 {
                    // From the start, and the first piece is still there: no seek.
                } else {
                    decoder.seek(to: max(0, time - 0.08))
                    held = nil
                }
                fresh = false
                expected = time
                playing = true
                condition.lock()
                ended = false
                framesWritten = 0
                writtenUntil = time
                heard = (time, Self.now())
                condition.unlock()
            }
            let piece: (frames: Int, time: Double)
            if let kept = held {
                piece = kept
                held = nil
            } else {
                let read: (frames: Int, time: Double)?
                do throws(AudioProblem) {
                    read = try decoder.read(into: &buffer, maxFrames: pieceFrames)
                } catch {
                    say(error)
                    return
                }
                guard let read else {
                    // The sound ended: the clock runs on by the wall clock; wait to be told.
                    condition.lock()
                    ended = true
                    while wanted == .playing, startAt == nil { condition.wait() }
                    condition.unlock()
                    continue
                }
                piece = (read.frames, min(Self.longest, max(-Self.longest, read.time)))
            }
            if piece.time > expected + 0.005 {
                // A gap in the sound (or a sound that starts after the pictures): silence, a
                // piece at a time, the piece read kept until it is due.
                let frames = min(pieceFrames, max(1, Int(((piece.time - expected) * Double(rate)).rounded())))
                if !write(silence, from: 0, frames: frames, to: output) { return }
                expected += Double(frames) / Double(rate)
                held = piece
                continue
            }
            // From before where it is to be (a seek lands on a packet before the place).
            let start = piece.time < expected - 0.5 / Double(rate)
                ? min(piece.frames, Int(((expected - piece.time) * Double(rate)).rounded())) : 0
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
