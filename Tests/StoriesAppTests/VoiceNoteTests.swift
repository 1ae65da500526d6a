import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing

/// Issue 47, point 3, through the real engine and the real picture pipeline on the virtual
/// clock: a voice note (sound alone) is one content type — shown as its waveform, heard by
/// a sound player of its own, lasting as long as its sound, said as a voice note.
@MainActor
@Suite struct VoiceNoteTests {
    nonisolated static let note = "media/priya-note.ogg" // 6.35 s of Opus, the demo's voice note

    static func feed(_ first: StoryItem.Content = .audio(Media(location: note))) -> MemoryFeed {
        let story = Story(id: "p", author: Author(name: "Priya"), items: [
            StoryItem(id: "p1", content: first, duration: 3, alt: "Priya's voice"),
            StoryItem(id: "p2", content: .text("after", background: RGB(0, 0, 0))),
        ])
        return MemoryFeed(load: FeedLoad(stories: [story], warnings: []))
    }

    func opened(_ sound: SoundState = SoundState()) -> AppDriver {
        let driver = AppDriver(width: 100, height: 24, source: Self.feed(), sound: sound)
        driver.press(.key(.enter))
        driver.settle()
        return driver
    }

    func heard(_ driver: AppDriver) -> Bool {
        driver.engine.state.media.playerPlan.sounds.contains { $0.location == Self.note && $0.audible }
    }

    @Test func itLastsAsLongAsItsSoundAndIsHeardOnScreen() throws {
        let driver = opened()
        #expect(driver.engine.state.media.status[Self.note] == .ready)
        let length = try #require(driver.engine.state.media.soundLengths[Self.note])
        #expect(abs(length - 6.35) < 0.1, "the sound's own length, not the feed's 3 s: \(length)")
        #expect(heard(driver))
        #expect(driver.engine.state.media.playerPlan.videos.isEmpty, "no video player: sound alone")
        #expect(driver.lines[1].contains("🔊"), "\(driver.lines[1])")
        driver.press(.key(.character(" ")))
        #expect(!heard(driver), "held: silent")
        driver.press(.key(.character(" ")))
        #expect(heard(driver))
        driver.wait(5)
        #expect(driver.engine.state.viewer?.itemIndex == 0, "still playing at 5 s (the feed said 3)")
        driver.wait(1.5)
        #expect(driver.engine.state.viewer?.itemIndex == 1, "over with its sound")
        #expect(!heard(driver))
    }

    /// Its sound leads its item's clock as a video's does.
    @Test func itsSoundLeadsTheItemsClock() throws {
        let driver = opened()
        driver.wait(1)
        driver.deliver(.mediaNews(.sound(Self.note, .heard(0.7))))
        let elapsed = try #require(driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime))
        #expect(abs(elapsed - 0.7) < 0.001, "\(elapsed)")
    }

    /// Shown as its waveform, drawn in cells like a photo; muted, the mark says so and nothing
    /// is opened; the screen reader says what it is.
    @Test func itIsShownAsItsWaveformAndSaidAsAVoiceNote() {
        let driver = opened()
        let picture = driver.lines[4..<20].joined()
        #expect(picture.contains("▀") || picture.contains("▄") || picture.contains("█"), "the waveform's cells:\n\(driver.text)")
        #expect(!driver.text.contains("cannot play"))
        let line = Announcer.itemLine(story: 0, item: 0, state: driver.engine.state)
        #expect(line.contains("voice note, Priya's voice"), "\(line)")
        driver.press(.key(.character("m")))
        #expect(!heard(driver) && driver.lines[1].contains("🔇"))
        let muted = opened(SoundState(enabled: false))
        let planned = muted.engine.state.media.playerPlan.sounds
        #expect(planned.map(\.location) == [Self.note] && planned.allSatisfy { !$0.open && !$0.audible },
                "planned, silent and not opened in a run that plays no sound: \(planned)")
    }

    /// A voice note whose bytes are no sound (an Ogg page of nothing) says so on the item,
    /// in words, as a photo that cannot be shown does, and the person goes on past it.
    @Test func bytesThatAreNoSoundSaySoAndTheStoryGoesOn() {
        var source = Self.feed()
        source.media = { location, _ in
            location == Self.note ? Data("OggS".utf8 + [UInt8](repeating: 0x5A, count: 400)) : nil
        }
        let driver = AppDriver(width: 100, height: 24, source: source)
        driver.press(.key(.enter))
        driver.settle()
        #expect(driver.text.contains("cannot play this voice note"), "\(driver.text)")
        #expect(driver.engine.state.media.playerPlan.sounds.isEmpty)
        driver.press(.key(.character("l")))
        #expect(driver.engine.state.viewer?.itemIndex == 1)
    }
}
