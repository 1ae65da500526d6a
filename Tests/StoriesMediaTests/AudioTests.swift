import Foundation
import Testing
@testable import StoriesMedia
import StoriesTestSupport

/// Issue 32, points 1 and 2: a video's sound decoded and resampled for the output, and the
/// player that writes it and keeps its clock — against an output that keeps what it is
/// given (the real server's tests are `SoundEndToEndTests`).
@Suite(.ownThread) struct AudioDecoderTests {
    /// Everything the decoder gives, and the time of its first piece.
    static func decodeAll(_ decoder: AudioDecoder) throws -> (samples: [Int16], first: Double?) {
        var all: [Int16] = [], buffer: [Int16] = [], first: Double?
        while let piece = try decoder.read(into: &buffer, maxFrames: 1000) {
            if first == nil { first = piece.time }
            all += buffer[0..<(piece.frames * decoder.channels)]
        }
        return (all, first)
    }

    static func rms(_ samples: [Int16]) -> Double {
        samples.isEmpty ? 0 : (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// AAC, Opus, Vorbis and MP3 (MP4, WebM and Matroska), each a 440 Hz tone of a second
    /// (AAC: 0.5 s), come out at 48 kHz stereo as long as they are, and the tone's pitch
    /// is kept (its zero crossings, 880 a second, counted on the left channel).
    @Test(arguments: [("sound.mp4", "aac", 0.5), ("opus.webm", "opus", 1.0), ("vorbis.webm", "vorbis", 1.0), ("mp3.mkv", "mp3", 1.0)])
    func codecsDecodeToTheOutputsRate(file: String, codec: String, seconds: Double) throws {
        let decoder = try AudioDecoder(data: VideoFixture.data(file), rate: 48_000, channels: 2)
        #expect(decoder.codec.hasPrefix(codec), "\(decoder.codec)")
        let (samples, first) = try Self.decodeAll(decoder)
        let frames = samples.count / 2
        #expect(abs(Double(frames) / 48_000 - seconds) < 0.08, "\(file): \(frames) frames")
        #expect(abs(first ?? 9) < 0.03, "it starts with the pictures: \(first ?? -1)")
        #expect(Self.rms(samples) > 1_000, "a tone, not silence")
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let middle = left[(left.count / 4)..<(left.count * 3 / 4)]
        var crossings = 0
        var previous = middle.first ?? 0
        for sample in middle.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        let pitch = Double(crossings) / 2 / (Double(middle.count) / 48_000)
        if file != "sound.mp4" { #expect(abs(pitch - 440) < 15, "\(file): \(pitch) Hz") }
    }

    /// Sound with no picture reads too; a video without sound, a file that is no video and
    /// an empty one say there is none; a file cut in half gives the sound it has.
    @Test func whatHasNoSoundSaysSo() throws {
        let alone = try AudioDecoder(data: VideoFixture.data("audio.m4a"), rate: 48_000, channels: 1)
        #expect(try Self.decodeAll(alone).samples.count > 10_000)
        #expect(throws: AudioProblem.none) { try AudioDecoder(data: VideoFixture.data("colors.mp4")) }
        #expect(throws: AudioProblem.none) { try AudioDecoder(data: Data("not a video at all".utf8)) }
        #expect(throws: AudioProblem.none) { try AudioDecoder(data: Data()) }
        let whole = try VideoFixture.demo("liftoff.mp4")
        let cut = try AudioDecoder(data: whole.prefix(whole.count / 2), rate: 48_000, channels: 1)
        let got = try Self.decodeAll(cut).samples.count
        #expect(got < 6 * 48_000, "only what is there (\(got))")
    }

    /// Bytes of the sound's packets overwritten: the decoder skips what fails and goes on,
    /// never crashes, and the pictures of the same file still decode.
    @Test func aCorruptSoundIsSkippedNotFatal() throws {
        var bytes = [UInt8](try VideoFixture.demo("liftoff.mp4"))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let at = Int.random(in: (bytes.count / 8)..<bytes.count, using: &generator)
            bytes[at] = UInt8.random(in: 0...255, using: &generator)
        }
        let data = Data(bytes)
        if let decoder = try? AudioDecoder(data: data, rate: 48_000, channels: 1) {
            _ = try? Self.decodeAll(decoder)
        }
        let pictures = try VideoDecoder(data: data)
        var frames = 0
        while let _ = try? pictures.decodeNext() { frames += 1 }
        #expect(frames > 0)
    }

    /// A seek lands where it was asked (the player drops what comes before it).
    @Test func seekingGoesToThePlaceAsked() throws {
        let decoder = try AudioDecoder(data: VideoFixture.demo("liftoff.mp4"), rate: 48_000, channels: 1)
        #expect(decoder.seek(to: 3.0))
        var buffer: [Int16] = []
        let piece = try #require(try decoder.read(into: &buffer, maxFrames: 100))
        #expect(piece.time <= 3.0 && piece.time > 2.8, "\(piece.time)")
    }
}

/// An output that keeps what it is written and plays it, as the server would, in real
/// time from the first write: its latency is what is written and not yet played.
final class KeptOutput: SoundOutput, @unchecked Sendable {
    // `lock` guards everything below.
    private let lock = NSLock()
    private var kept: [Int16] = []
    private var flushes = 0
    private var failing = false
    /// Seconds of sound queued, and when the queue was last counted.
    private var queued = 0.0
    private var countedAt = AudioPlayer.now()
    let rate: Int, channels: Int
    init(rate: Int, channels: Int) { self.rate = rate; self.channels = channels }

    private func play() {
        let now = AudioPlayer.now()
        queued = max(0, queued - (now - countedAt))
        countedAt = now
    }
    func write(_ pcm: UnsafeBufferPointer<Int16>, frames: Int) throws(AudioProblem) {
        lock.lock(); defer { lock.unlock() }
        if failing { throw .noOutput("the server went away") }
        play()
        kept += pcm
        queued += Double(frames) / Double(rate)
    }
    var latency: Double? { lock.lock(); defer { lock.unlock() }; play(); return queued }
    func flush() { lock.lock(); flushes += 1; queued = 0; countedAt = AudioPlayer.now(); lock.unlock() }
    var samples: [Int16] { lock.lock(); defer { lock.unlock() }; return kept }
    var flushCount: Int { lock.lock(); defer { lock.unlock() }; return flushes }
    func fail() { lock.lock(); failing = true; lock.unlock() }
}

/// A box the output factory fills (the factory runs on the player's thread).
final class OutputBox: @unchecked Sendable {
    // `lock` guards `output`.
    private let lock = NSLock()
    private var made: KeptOutput?
    var output: KeptOutput? { lock.lock(); defer { lock.unlock() }; return made }
    func make(_ rate: Int, _ channels: Int) -> KeptOutput {
        let output = KeptOutput(rate: rate, channels: channels)
        lock.lock(); made = output; lock.unlock()
        return output
    }
}

@Suite(.serialized, .ownThread) struct AudioPlayerTests {
    static func wait(_ what: String, timeout: Double = 10, _ condition: () -> Bool) throws {
        let held = Wait.until(timeout, every: 0.002, condition)
        try #require(held, "timed out: \(what)")
    }

    /// It writes the clip's own sound from where it is told, runs a clock from it, is
    /// silenced (the output flushed, the clock stopped) by a pause, goes on from where it
    /// stopped, writes at the volume asked, and ends its thread on stop.
    @Test func playsFromWhereItIsToldAndStopsAtOnce() throws {
        let data = try VideoFixture.demo("liftoff.mp4")
        let box = OutputBox()
        let player = AudioPlayer(data: data, rate: 48_000, channels: 1) { rate, channels in box.make(rate, channels) }
        #expect(player.position == nil, "silent until told")
        player.play(from: 2.0)
        try Self.wait("writing") { (box.output?.samples.count ?? 0) > 48_000 / 2 }
        let position = try #require(player.position)
        #expect(position >= 2.0 && position < 2.5, "the clock starts where it was told: \(position)")
        // What it wrote is the clip's sound from 2 s.
        let reference = try AudioDecoder(data: data, rate: 48_000, channels: 1)
        var all: [Int16] = [], buffer: [Int16] = []
        while let piece = try reference.read(into: &buffer, maxFrames: 4096) { all += buffer[0..<piece.frames] }
        let written = try #require(box.output).samples
        let from = 2 * 48_000
        let compared = min(4_800, written.count)
        let differences = (0..<compared).map { abs(Int(written[$0]) - Int(all[from + $0])) }
        #expect((differences.max() ?? 0) <= 2, "the same samples from 2 s on")

        player.pause()
        try Self.wait("the pause") { player.position == nil && box.output?.flushCount ?? 0 >= 1 }
        let paused = box.output?.samples.count ?? 0
        let held2 = Wait.holds(for: 0.1, every: 0.01) { box.output?.samples.count == paused }
        #expect(held2, "nothing written while paused")
        player.volume = 0.5
        player.play()
        try Self.wait("playing on") { (box.output?.samples.count ?? 0) > paused + 4_800 }
        let resumed = try #require(player.position)
        #expect(resumed >= 2.0, "it went on from where it stopped, not the start: \(resumed)")
        player.stop()
        try Self.wait("stopped") { player.position == nil }
    }

    /// An output that goes away: the player says why and stops; one that cannot be opened
    /// at all: the same, before any sound.
    @Test func anOutputThatFailsIsSaid() throws {
        let data = try VideoFixture.demo("liftoff.mp4")
        let box = OutputBox()
        let player = AudioPlayer(data: data, rate: 48_000, channels: 1) { rate, channels in box.make(rate, channels) }
        player.play(from: 0)
        try Self.wait("writing") { (box.output?.samples.count ?? 0) > 0 }
        box.output?.fail()
        try Self.wait("the problem said") { player.problem == .noOutput("the server went away") }
        #expect(player.position == nil)

        let nowhere = AudioPlayer(data: data) { _, _ throws(AudioProblem) in throw AudioProblem.noOutput("no sound server (PulseAudio or PipeWire): Connection refused") }
        nowhere.play(from: 0)
        try Self.wait("no server said") { nowhere.problem != nil }
        #expect(nowhere.problem?.description.contains("no sound server") == true)
        let silent = AudioPlayer(data: try VideoFixture.data("colors.mp4")) { rate, channels in KeptOutput(rate: rate, channels: channels) }
        silent.play(from: 0)
        try Self.wait("no sound said") { silent.problem == AudioProblem.none }
    }
}
