import Foundation
import Testing
@testable import StoriesCore

/// Issue 33: where the accessibility and direction choices come from.
@Suite struct AccessibilitySettingsTests {
    @Test func settingsReadAndAutoIsNil() throws {
        let settings = try AppSettings().applying("cursor = focus\nscreen-reader = on\ndirection = RTL\nbidi = terminal\ngraphics = Kitty\n",
                                                  file: "s.conf")
        #expect(settings.cursor == .focus && settings.screenReader == true && settings.direction == .rightToLeft)
        #expect(settings.bidi == .terminal && settings.graphics == .kitty)
        let auto = try settings.applying("cursor = auto\ndirection = auto\nbidi = auto\ngraphics = auto\n", file: "s.conf")
        #expect(auto.cursor == nil && auto.direction == nil && auto.bidi == nil && auto.graphics == nil)
    }

    @Test(arguments: [
        ("ar", LayoutDirection.rightToLeft), ("ar_EG.UTF-8", .rightToLeft), ("he_IL@euro", .rightToLeft), ("fa-Arab-IR", .rightToLeft),
        ("ur", .rightToLeft), ("iw", .rightToLeft), ("ckb", .rightToLeft), ("en_GB.UTF-8", .leftToRight), ("ja", .leftToRight),
        ("arn", .leftToRight), // Mapudungun, not Arabic: the primary tag is compared whole
    ])
    func aLanguageTagSaysItsDirection(tag: String, direction: LayoutDirection) {
        #expect(LayoutDirection.of(language: tag) == direction)
    }

    @Test func aTagThatSaysNothingIsNil() {
        for tag in ["", "C", "POSIX", "C.UTF-8", "x", "12", String(repeating: "a", count: 10_000)] {
            #expect(LayoutDirection.of(language: tag) == nil, "\(tag.prefix(20))")
        }
    }

    @Test func theLocaleIsReadInPOSIXOrder() {
        #expect(LayoutDirection.locale(environment: ["LANG": "ar_EG.UTF-8"]) == .rightToLeft)
        #expect(LayoutDirection.locale(environment: ["LANG": "ar_EG.UTF-8", "LC_ALL": "en_US.UTF-8"]) == .leftToRight)
        #expect(LayoutDirection.locale(environment: ["LANG": "en_US.UTF-8", "LC_MESSAGES": "he_IL.UTF-8"]) == .rightToLeft)
        #expect(LayoutDirection.locale(environment: ["LC_ALL": "", "LANG": "fa_IR.UTF-8"]) == .rightToLeft, "an empty one is not set")
        #expect(LayoutDirection.locale(environment: [:]) == nil)
    }

    @Test func aScreenReaderIsLikelyOnlyWhereSomethingSaysSo() {
        #expect(CursorMode.auto(environment: [:], brailleSocketExists: false) == .hidden)
        #expect(CursorMode.auto(environment: ["ACCESSIBILITY_ENABLED": "1"], brailleSocketExists: false) == .focus)
        #expect(CursorMode.auto(environment: ["ACCESSIBILITY_ENABLED": "0"], brailleSocketExists: false) == .hidden)
        #expect(CursorMode.auto(environment: ["GNOME_ACCESSIBILITY": "true"], brailleSocketExists: false) == .focus)
        #expect(CursorMode.auto(environment: ["SPEAKUP": ""], brailleSocketExists: false) == .focus)
        #expect(CursorMode.auto(environment: [:], brailleSocketExists: true) == .focus)
        #expect(ScreenReaderHint.likely(environment: ["BRLAPI_HOST": "localhost:0"], brailleSocketExists: false) == "BRLAPI_HOST is set")
    }

    @Test func terminalsThatReorderThemselvesAreLeftToIt() {
        #expect(BidiMode.auto(environment: [:]) == .app)
        #expect(BidiMode.auto(environment: ["VTE_VERSION": "7006"]) == .app, "VTE is told not to")
        #expect(BidiMode.auto(environment: ["KONSOLE_VERSION": "230804"]) == .terminal)
        #expect(BidiMode.auto(environment: ["MLTERM": "3.9.3"]) == .terminal)
    }

    @Test func aFeedSaysItsDirectionOrItsLanguageOrIsRefused() throws {
        func index(_ json: String) throws(FeedError) -> FeedIndex { try FeedDecoder.index(from: Data(json.utf8), file: "feed.json") }
        #expect(try index(#"{"version":1,"stories":[],"direction":"rtl"}"#).direction == .rightToLeft)
        #expect(try index(#"{"version":1,"stories":[],"language":"he-IL"}"#).direction == .rightToLeft)
        #expect(try index(#"{"version":1,"stories":[],"language":"de","direction":"rtl"}"#).direction == .rightToLeft, "direction wins")
        #expect(try index(#"{"version":1,"stories":[]}"#).direction == nil)
        #expect(throws: FeedError.self) { try index(#"{"version":1,"stories":[],"direction":"up"}"#) }
        do {
            _ = try index(#"{"version":1,"stories":[],"language":"\u001b[2Jar"}"#)
            Issue.record("a hostile language tag was taken")
        } catch {
            #expect(error.description.contains("feed.json: language: expected a language tag"), "\(error.description)")
            #expect(!error.description.contains("\u{1B}"))
        }
        let (_, page) = try FeedDecoder.page(from: Data(#"{"version":1,"stories":[],"nextCursor":null,"direction":"rtl"}"#.utf8), file: "p")
        #expect(page.direction == .rightToLeft)
        // What the server writes, the client reads back.
        let written = FeedWire.page(FeedPage(stories: [], nextCursor: nil, direction: .rightToLeft), title: "T")
        #expect(try FeedDecoder.page(from: written, file: "p").page.direction == .rightToLeft)
    }
}
