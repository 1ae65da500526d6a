import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia

/// A rendered video's sound: what the app would have played, taken from its state as each
/// frame is drawn — the sound the player plan marks audible (the video or voice note on
/// screen, its item's clock running, sound on and no overlay over it), from where its item's
/// clock is, at its volume — decoded from the bytes the engine holds and laid on the video's
/// timeline; silence where nothing is heard. Streams: only the decoders of what is playing
/// are held.
@MainActor
final class SoundTrack {
    private struct Heard: Equatable {
        var location: String
        var run: Int?
        /// The item's clock (seconds into the sound) at `time`.
        var position: Double
        var volume: Int
    }

    private let write: ([Int16]) throws -> Void
    private var heard: Heard?
    private var since = 0.0
    /// Output frames written so far (48 kHz).
    private var written: Int64 = 0
    private var decoders: [String: AudioDecoder] = [:]
    /// Where the decoder of what is heard is, in seconds into its sound.
    private var decodedTo: Double?
    /// Just sought to this position: the first read may begin before it.
    private var seeking: Double?
    static let rate = VideoEncoder.soundRate

    init(write: @escaping ([Int16]) throws -> Void) { self.write = write }

    /// A frame drawn at `time`: the sound since the last one is laid down, and what is heard
    /// from now on read from the state.
    func frame(at time: Double, engine: AppEngine) throws {
        try fill(until: time)
        let state = engine.state
        var now: Heard?
        if let sound = state.media.playerPlan.sounds.first(where: \.audible), let viewer = state.viewer {
            now = Heard(location: sound.location, run: sound.run, position: viewer.playback.elapsed(at: state.now.uptime),
                        volume: state.media.playerPlan.volume)
            if decoders[sound.location] == nil, let data = engine.mediaData(for: sound.location) {
                decoders[sound.location] = try? AudioDecoder(data: data, rate: Self.rate, channels: 2)
                decodedTo = nil
            }
        }
        // Let go of what is no longer heard (a new run of the same sound starts again).
        for location in decoders.keys where location != now?.location { decoders[location] = nil }
        if now?.location != heard?.location || now?.run != heard?.run { decodedTo = nil }
        heard = now
        since = time
    }

    /// Lays down the sound up to `time` (the end of the video), a second at a time at most:
    /// a long still stretch is many small buffers, never one large one.
    func fill(until time: Double) throws {
        let target = Int64((max(0, time) * Double(Self.rate)).rounded())
        while written < target { try fill(frames: Int(min(target - written, Int64(Self.rate)))) }
    }

    private func fill(frames count: Int) throws {
        guard count > 0 else { return }
        var pcm = [Int16](repeating: 0, count: count * 2)
        if let heard, let decoder = decoders[heard.location] {
            // Where the item's clock says the sound is now; seek when the decoder is not there.
            let position = heard.position + (Double(written) / Double(Self.rate) - since)
            if decodedTo.map({ abs($0 - position) > 0.05 }) ?? true {
                _ = decoder.seek(to: max(0, position))
                decodedTo = max(0, position)
                seeking = max(0, position)
            }
            var offset = 0
            var buffer: [Int16] = []
            let gain = Double(min(100, max(0, heard.volume))) / 100
            while offset < count, let read = try? decoder.read(into: &buffer, maxFrames: count - offset), read.frames > 0 {
                // A seek lands on the packet before the position: what comes before it is skipped.
                let early = seeking.map { max(0, min(read.frames, Int(($0 - read.time) * Double(Self.rate)))) } ?? 0
                seeking = nil
                for i in (early * 2)..<(read.frames * 2) { pcm[offset * 2 + i - early * 2] = Int16(Double(buffer[i]) * gain) }
                offset += read.frames - early
            }
            decodedTo = (decodedTo ?? 0) + Double(count) / Double(Self.rate)
        }
        try write(pcm)
        written += Int64(count)
    }
}
