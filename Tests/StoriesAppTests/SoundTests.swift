import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesUI
import Testing

/// Issue 32, points 3–5 through the real engine on the virtual clock: which video is heard
/// (the reducer's plan), the sound's clock leading the item's, `m`, and no output said
/// once. The runtime's side — players made, paused and let go as the plan says — is
/// heard through a real server in `SoundEndToEndTests`.
@MainActor
@Suite struct SoundTests {
    static let life = "media/life.webm" // 6 s, VP9 with a 220 Hz tone

    static func feed() -> MemoryFeed {
        let story = Story(id: "s", author: Author(name: "Sam"), items: [
            StoryItem(id: "s1", content: .video(Media(location: life))),
            StoryItem(id: "s2", content: .text("after", background: RGB(0, 0, 0))),
        ])
        let other = Story(id: "t", author: Author(name: "Tia"), items: [StoryItem(id: "t1", content: .video(Media(location: life)))])
        return MemoryFeed(load: FeedLoad(stories: [story, other], warnings: []))
    }

    func opened(_ sound: SoundState = SoundState()) -> AppDriver {
        let driver = AppDriver(width: 100, height: 24, source: Self.feed(), sound: sound)
        driver.press(.key(.enter))
        driver.settle()
        return driver
    }

    func audible(_ driver: AppDriver) -> Bool {
        driver.engine.state.media.playerPlan.sounds.contains { $0.location == Self.life && $0.audible }
    }

    /// Heard while it plays; not under a hold, the help, the g and i overlays, the problems
    /// box, Ctrl-Z or lost focus, nor once left; back when each ends.
    @Test func onlyThePlayingVideoWithNothingOverItIsHeard() {
        let driver = opened()
        #expect(driver.engine.state.media.videos[Self.life]?.hasAudio == true)
        #expect(audible(driver))
        #expect(driver.lines[1].contains("🔊"), "\(driver.lines[1])")
        #expect(driver.lines.last?.contains("m mute") == true, "\(driver.lines.last ?? "")")
        for (on, off) in [([InputEvent.key(.character(" "))], [InputEvent.key(.character(" "))]),
                          ([.key(.character("?"))], [.key(.escape)]),
                          ([.key(.character("g"))], [.key(.character("g"))]),
                          ([.key(.character("i"))], [.key(.character("i"))])] {
            driver.press(on)
            #expect(!audible(driver), "silent under \(on)")
            driver.press(off)
            #expect(audible(driver), "heard again after \(off)")
        }
        driver.deliver(.app(.suspend))
        #expect(!audible(driver), "Ctrl-Z")
        driver.deliver(.app(.resume))
        #expect(audible(driver))
        driver.deliver(.app(.focus(false)))
        #expect(!audible(driver), "the terminal in the background")
        driver.deliver(.app(.focus(true)))
        #expect(audible(driver))
        driver.press(.key(.escape))
        driver.settle()
        #expect(!audible(driver), "left")
    }

    /// The plan, not the runtime, says whose sound is opened ahead: the video on screen's
    /// while it is silenced (under the help) so it goes on with the picture, none while
    /// sound is off, none in a run that plays no sound.
    @Test func thePlanSaysWhoseSoundIsOpenedAhead() {
        func isOpen(_ driver: AppDriver) -> Bool {
            driver.engine.state.media.playerPlan.sounds.contains { $0.location == Self.life && $0.open }
        }
        let driver = opened()
        #expect(isOpen(driver) && audible(driver))
        driver.press(.key(.character("?")))
        #expect(!audible(driver) && isOpen(driver), "under the help it is silent, its sound still open")
        driver.press(.key(.escape))
        driver.press(.key(.character("m")))
        #expect(!isOpen(driver), "sound off: nothing is opened for it")
        driver.press(.key(.character("m")))
        #expect(isOpen(driver))
        let muted = opened(SoundState(enabled: false))
        #expect(!isOpen(muted), "a run that plays no sound opens none")
    }

    /// `m`: off and on, said on the notice line, the mark and the hint; the plan follows.
    @Test func mTurnsTheSoundOffAndOn() {
        let driver = opened()
        driver.press(.key(.character("m")))
        #expect(!audible(driver))
        #expect(driver.engine.state.media.sound.on == false)
        #expect(driver.text.contains("🔇 Sound off (m turns it on)"), "\(driver.text)")
        #expect(driver.lines[1].contains("🔇"))
        driver.press(.key(.character("g")), .key(.character("g"))) // the notice read: a key clears it
        let hint = driver.lines.last ?? ""
        #expect(hint.contains("m sound"), "the hint says m brings the sound: \(hint)")
        driver.press(.key(.character("m")))
        #expect(audible(driver))
        #expect(driver.text.contains("🔊 Sound on"))
        // In a run that plays none (a replay, --headless): the choice is kept, and said.
        let replay = opened(SoundState(enabled: false))
        #expect(!audible(replay))
        #expect(replay.lines[1].contains("🔇"))
        replay.press(.key(.character("m")), .key(.character("m")))
        #expect(replay.text.contains("this run plays none"), "\(replay.text)")
    }

    /// The sound leads: where it is heard becomes the item's time (the bar and the frames
    /// follow it); a late word from a video no longer heard changes nothing.
    @Test func theSoundsClockLeadsTheItems() throws {
        let driver = opened()
        driver.wait(1)
        let before = try #require(driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime))
        #expect(abs(before - 1) < 0.05)
        driver.deliver(.mediaNews(.sound(Self.life, .heard(0.8))))
        let after = try #require(driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime))
        #expect(abs(after - 0.8) < 0.001, "the item's clock is where the sound is: \(after)")
        driver.wait(0.5)
        #expect(abs((driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime) ?? 0) - 1.3) < 0.05)
        driver.press(.key(.character(" ")))
        let held = driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime)
        driver.deliver(.mediaNews(.sound(Self.life, .heard(5))))
        #expect(driver.engine.state.viewer?.playback.elapsed(at: driver.now.uptime) == held, "not heard: no lead")
    }

    /// No output: said once on the notice line, the mark says 🔇, nothing is planned to be
    /// heard, and the video plays on by its own clock.
    @Test func noOutputIsSaidOnceAndThePicturesPlayOn() {
        let driver = opened()
        driver.deliver(.mediaNews(.sound(Self.life, .unavailable("no sound server (PulseAudio or PipeWire): Connection refused"))))
        #expect(driver.text.contains("🔇 No sound: no sound server (PulseAudio or PipeWire)"), "\(driver.text)")
        #expect(!audible(driver))
        #expect(driver.lines[1].contains("🔇"))
        driver.press(.key(.character("l"))) // the next item; the notice goes with the key
        driver.deliver(.mediaNews(.sound(Self.life, .unavailable("again"))))
        #expect(!driver.text.contains("again"), "said once")
        #expect(driver.engine.state.media.sound.problem?.contains("no sound server") == true)
    }

    /// stories.conf: `sound` and `volume`, with bad values named.
    @Test func soundAndVolumeSettings() throws {
        let settings = try AppSettings().applying("sound = off\nvolume = 35\n", file: "stories.conf")
        #expect(settings.sound == false && settings.volume == 35)
        for (line, reason) in [("sound = loud", "sound takes on or off; got 'loud'"),
                               ("volume = 101", "volume takes a whole number from 0 to 100; got '101'"),
                               ("volume = -1", "volume takes a whole number from 0 to 100"),
                               ("volume = 99999999999999999999", "volume takes a whole number from 0 to 100")] {
            #expect(throws: ConfigError.self) { try AppSettings().applying(line, file: "stories.conf") }
            do { _ = try AppSettings().applying(line, file: "stories.conf") } catch {
                #expect(error.description.contains(reason), "\(error.description)")
            }
        }
        #expect(SoundState(volume: 400).volume == 100 && SoundState(volume: -3).volume == 0)
        #expect(!SoundState(volume: 0).audible, "volume 0 is silence")
    }
}
