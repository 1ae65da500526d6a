import Foundation
import Testing
@testable import StoriesMedia
import StoriesCells
import StoriesAssets
import StoriesTestSupport

/// Issue 47, point 3: a voice note's picture is its waveform, drawn from its sound, with the
/// sound's length; sound alone is recognised by its bytes (MP3, WAV, FLAC, and M4A, Ogg and
/// WebM that hold no pictures), and anything else is not taken for it.
@Suite(.ownThread) struct WaveformTests {
    /// A 16-bit mono WAV at 8 kHz: `seconds` of a 440 Hz tone at `loudness` (0–1) for each
    /// part, one after another.
    static func wav(_ parts: [(seconds: Double, loudness: Double)], claiming claimed: Int? = nil) -> Data {
        var samples: [Int16] = []
        for part in parts {
            for n in 0..<Int(part.seconds * 8000) {
                samples.append(Int16(part.loudness * 30_000 * sin(2 * Double.pi * 440 * Double(n) / 8000)))
            }
        }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let body = samples.flatMap { le16(Int(UInt16(bitPattern: $0))) }
        var data = Array("RIFF".utf8) + le32(36 + body.count) + Array("WAVEfmt ".utf8)
        data += le32(16) + le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) + le16(16)
        data += Array("data".utf8) + le32(claimed ?? body.count) + body
        return Data(data)
    }

    /// How much of a band of columns is bar (light) rather than card (dark).
    static func barShare(_ image: RGBImage, columns: Range<Int>) -> Double {
        var bar = 0
        for y in 0..<image.height { for x in columns where image[x, y].r > 0x60 { bar += 1 } }
        return Double(bar) / Double(image.height * columns.count)
    }

    @Test func loudStretchesAreTallBarsAndSilenceASliver() throws {
        let data = Self.wav([(1.0, 0.9), (1.0, 0.0)])
        #expect(SoundContainer.sniff(data) == .wav)
        let (image, seconds) = try Waveform.picture(data)
        #expect(abs(seconds - 2.0) < 0.05, "\(seconds)")
        let half = image.width / 2
        let loud = Self.barShare(image, columns: 0..<half), quiet = Self.barShare(image, columns: half..<image.width)
        #expect(loud > 0.15 && quiet < 0.02, "the loud second's bars are tall, the silent second's a sliver: \(loud) against \(quiet)")
    }

    /// The demo's voice note (Opus in Ogg, no pictures): through the still decoder, as the
    /// pipeline takes it, a waveform and its length.
    @Test func anOggOfSoundAloneIsAVoiceNote() throws {
        let media = try #require(DemoFeed.directory).appendingPathComponent("media")
        let data = try Data(contentsOf: media.appendingPathComponent("priya-note.ogg"))
        let still = try StillDecoder.still(data, minimumSize: (200, 100))
        let seconds = try #require(still.soundSeconds)
        #expect(abs(seconds - 6.35) < 0.1, "\(seconds)")
        #expect(still.image.width >= 480 && still.image.height >= 270)
        // A photo and a video are not voice notes.
        let photo = try StillDecoder.still(Data(contentsOf: media.appendingPathComponent("coffee.jpg")))
        #expect(photo.soundSeconds == nil)
        let video = try StillDecoder.still(Data(contentsOf: media.appendingPathComponent("liftoff.mp4")))
        #expect(video.soundSeconds == nil, "a video with sound is a video")
    }

    /// A header that says the sound is longer than it is (a WAV whose data chunk claims an
    /// hour) is not believed: the note lasts as long as what decodes.
    @Test func aHeaderThatClaimsMoreIsNotBelieved() throws {
        let lying = Self.wav([(1.0, 0.5)], claiming: 8000 * 2 * 3600)
        let (_, seconds) = try Waveform.picture(lying)
        #expect(abs(seconds - 1.0) < 0.05, "\(seconds)")
    }

    /// The fixture M4A of sound alone (AAC, no video stream) is a voice note.
    @Test func anM4AOfSoundAloneIsAVoiceNote() throws {
        let still = try StillDecoder.still(VideoFixture.data("audio.m4a"))
        #expect(still.soundSeconds != nil)
    }

    /// Bytes that only look like sound, cut short or empty: an error with words, never a
    /// crash or a picture of nothing.
    @Test func whatIsNoSoundIsSaidSo() {
        #expect(SoundContainer.sniff(Data("RIFF0000AVI LIST".utf8)) == nil)
        #expect(SoundContainer.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])) == nil, "a JPEG is not MP3")
        let wav = Self.wav([(0.5, 0.5)])
        for bad in [Data("ID3".utf8) + Data(repeating: 0, count: 50), wav.prefix(40), Data("OggS".utf8) + Data(repeating: 0x5A, count: 400)] {
            #expect(throws: MediaError.self) { _ = try StillDecoder.still(bad) }
        }
    }
}
