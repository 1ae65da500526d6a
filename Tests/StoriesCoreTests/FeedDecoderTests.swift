import Foundation
import Testing
@testable import StoriesCore

@Suite struct FeedDecoderTests {
    @Test func decodesAFullStory() throws {
        let json = """
        {"id":"s","author":{"name":"Ayla \\u001b[31mDemir","handle":"ayla"},"unknownField":true,
         "items":[
          {"id":"a","type":"image","media":{"path":"media/a.jpg","width":288,"height":512,"bytes":100,"blurhash":"LKO2"},
           "duration":4,"caption":"Hello","createdAt":"2026-11-20T18:00:00Z","link":{"title":"More","url":"https://example.org"},
           "alt":"A cat\\u001b]0;owned\\u0007 on\\na mat"},
          {"id":"b","type":"text","text":"Hi\\nthere","background":"#1d3557"}
         ]}
        """
        let (story, warnings) = try decodeStory(json)
        #expect(warnings.isEmpty)
        #expect(story.author.name == "Ayla Demir", "the colour sequence is cut out whole")
        #expect(story.author.handle == "ayla")
        #expect(story.items.count == 2)
        #expect(story.items[0].content == .image(Media(location: "media/a.jpg", width: 288, height: 512, bytes: 100, blurhash: "LKO2")))
        #expect(story.items[0].duration == 4)
        #expect(story.items[0].createdAt == Date(timeIntervalSince1970: 1_795_197_600))
        #expect(story.items[0].link == Link(title: "More", url: "https://example.org"))
        #expect(story.items[0].alt == "A cat on a mat", "alt is one line, its control sequences cut out")
        #expect(story.items[1].alt == nil)
        #expect(story.items[1].content == .text("Hi\nthere", background: RGB(0x1d, 0x35, 0x57)))
        #expect(story.items[1].duration == StoryItem.defaultDuration)
    }

    @Test(arguments: [
        (#"{"id":"s","items":[]}"#, "stories/s.json: author: missing"),
        (#"{"id":"s","author":{"name":""},"items":[]}"#, "stories/s.json: author.name: must not be empty"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","duration":-3}]}"#,
         "stories/s.json: items[0].duration: expected seconds between 0 and 60, found -3.0"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{"path":"../etc/passwd"}}]}"#,
         "stories/s.json: items[0].media.path: '../etc/passwd' must be a relative path inside the feed folder: a path may not have empty, '.' or '..' parts"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{"path":"media/.hidden.jpg"}}]}"#,
         "stories/s.json: items[0].media.path: 'media/.hidden.jpg' must be a relative path inside the feed folder: hidden files are not served"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{"path":"media//a.jpg"}}]}"#,
         "stories/s.json: items[0].media.path: 'media//a.jpg' must be a relative path inside the feed folder: a path may not have empty, '.' or '..' parts"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{"path":"a.jpg","width":"wide"}}]}"#,
         "stories/s.json: items[0].media.width: expected a number, found a string"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{}}]}"#,
         "stories/s.json: items[0].media: needs a \"path\" or a \"url\""),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","background":"red"}]}"#,
         "stories/s.json: items[0].background: expected a colour like \"#1d3557\""),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","createdAt":"yesterday"}]}"#,
         "stories/s.json: items[0].createdAt: expected an ISO 8601 time like \"2026-11-20T18:00:00Z\", found \"yesterday\""),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t"},{"id":"x","type":"text","text":"u"}]}"#,
         "stories/s.json: items[1].id: 'x' is used by an earlier item"),
        (#"{"id":"s","author":{"name":"A"},"items":[]}"#, "stories/s.json: items: the story has no items to show"),
        (#"{"id":"other","author":{"name":"A"},"items":[]}"#,
         "stories/s.json: id: 'other' does not match the id 's' the feed lists"),
        (#"["not an object"]"#, "stories/s.json: expected an object, found an array"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"a\u0007b","type":"text","text":"t"}]}"#,
         "stories/s.json: items[0].id: expected an item id of 1 to 1024 bytes of printable characters"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","link":{"title":"t","url":"https://a b"}}]}"#,
         "stories/s.json: items[0].link.url: a link may not hold spaces or control characters"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","link":{"title":"t","url":"javascript:alert(1)"}}]}"#,
         "stories/s.json: items[0].link.url: expected an http or https URL"),
        (#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"image","media":{"url":"https://e.org/a\u00a0b.jpg"}}]}"#,
         "stories/s.json: items[0].media.url: a link may hold only the characters of a URI (others percent-encoded)"),
    ])
    func errorsNameTheFileTheFieldAndTheReason(json: String, message: String) {
        #expect(throws: FeedError.self) { try decodeStory(json) }
        do {
            _ = try decodeStory(json)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func invalidJSONSaysSo() {
        do {
            _ = try decodeStory("{\"id\": ")
            Issue.record("expected an error")
        } catch {
            #expect(error.file == "stories/s.json")
            #expect(error.reason.hasPrefix("not valid JSON"))
        }
    }

    @Test func unknownItemTypesAreSkippedWithAWarning() throws {
        let items = #"[{"id":"p","type":"poll","question":"?"},{"id":"t","type":"text","text":"kept"}]"#
        let (story, warnings) = try decodeStory(TemporaryFeed.story("s", items: items))
        #expect(story.items.map(\.id) == ["t"])
        #expect(warnings == [FeedWarning("stories/s.json: items[0].type: unknown item type 'poll'; item skipped")])
    }

    @Test func oversizedDocumentsAreRefusedBeforeParsing() {
        let big = Data(repeating: 0x20, count: FeedDecoder.maxDocumentBytes + 1)
        #expect(throws: FeedError(file: "feed.json", reason: "4194305 bytes is larger than the 4 MB a feed document may be")) {
            try FeedDecoder.index(from: big, file: "feed.json")
        }
    }

    @Test func indexChecksVersionAndIDs() throws {
        #expect(throws: FeedError(file: "feed.json", field: "version", reason: "unsupported version 2; this build reads version 1")) {
            try FeedDecoder.index(from: Data(#"{"version":2,"stories":[]}"#.utf8), file: "feed.json")
        }
        #expect(throws: FeedError(file: "feed.json", field: "version", reason: "missing; this build reads version 1")) {
            try FeedDecoder.index(from: Data(#"{"stories":[]}"#.utf8), file: "feed.json")
        }
        // A story file may leave the version out (it had none at first), but not say another.
        let story = #"{"id":"a","author":{"name":"A"},"items":[{"id":"1","type":"text","text":"hi"}]"#
        #expect(try FeedDecoder.story(from: Data((story + "}").utf8), file: "a.json", expectedID: "a").0.items.count == 1)
        #expect(throws: FeedError(file: "a.json", field: "version", reason: "unsupported version 2; this build reads version 1")) {
            try FeedDecoder.story(from: Data((story + #","version":2}"#).utf8), file: "a.json", expectedID: "a")
        }
        #expect(throws: FeedError(file: "feed.json", field: "stories[0]", reason: "'../x' is not a valid id (letters, digits, '-', '_', '.'; not starting with '.')")) {
            try FeedDecoder.index(from: Data(#"{"version":1,"stories":["../x"]}"#.utf8), file: "feed.json")
        }
        let index = try FeedDecoder.index(from: Data(#"{"version":1,"title":"T\u0007","stories":["a","b","a"]}"#.utf8), file: "feed.json")
        #expect(index.title == "T")
        #expect(index.storyIDs == ["a", "b"])
        #expect(index.warnings.count == 1)
    }
}

/// What `stories init` and a served folder write is what the decoder reads back.
@Suite struct FeedWireStoryTests {
    @Test func aStoryWrittenOutReadsBackTheSame() throws {
        let story = Story(id: "Space-trip", author: Author(name: "Space trip", handle: "nasa", avatar: "Space trip/a.jpg"), items: [
            StoryItem(id: "a.jpg", content: .image(Media(location: "Space trip/a.jpg", width: 640, height: 480, bytes: 1234, blurhash: "LEHV6nWB2yk8")),
                      caption: "Suiting \"up\" / ok", createdAt: Date(timeIntervalSince1970: 1_717_322_400), alt: "Two people in white suits"),
            StoryItem(id: "clip 1.mp4", content: .video(Media(location: "Space trip/clip 1.mp4")), duration: 12.5),
            StoryItem(id: "note.ogg", content: .audio(Media(location: "Space trip/note.ogg", bytes: 20804)), alt: "A voice"),
            StoryItem(id: "t", content: .text("Hello\nthere", background: RGB(0x1d, 0x35, 0x57)),
                      link: Link(title: "More", url: "https://example.com/a?b=c")),
            StoryItem(id: "remote", content: .image(Media(location: "https://example.com/p.jpg"))),
        ])
        for pretty in [false, true] {
            let data = FeedWire.story(story, pretty: pretty)
            let (read, warnings) = try FeedDecoder.story(from: data, file: "x.json", expectedID: "Space-trip")
            #expect(read == story && warnings.isEmpty)
        }
        #expect(String(decoding: FeedWire.story(story, pretty: true), as: UTF8.self).contains("\n  \"author\": {"))
    }
}

/// Bad JSON says where; deep JSON is refused before decoding, with the limit named.
@Suite struct FeedJSONPlaceTests {
    @Test func invalidJSONSaysLineAndColumn() {
        let text = "{\n  \"id\": \"a\",\n  \"author\": {\"name\": \"A\"},\n  \"items\": [ {\"id\": \"x\" \"type\": \"text\"} ]\n}"
        do {
            _ = try FeedDecoder.story(from: Data(text.utf8), file: "a.json", expectedID: "a")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "a.json: not valid JSON at line 4, column 25: expected ',' or '}'", "\(error)")
        }
    }

    @Test func aByteOrderMarkAndCRLFLineEndsReadLikePlainJSON() throws {
        let plain = "{\n\"version\": 1,\n\"title\": \"T\",\n\"stories\": [\"a\"]\n}\n"
        let expected = try FeedDecoder.index(from: Data(plain.utf8), file: "feed.json")
        let marked = Data([0xEF, 0xBB, 0xBF]) + Data(plain.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let read = try FeedDecoder.index(from: marked, file: "feed.json")
        #expect(read.title == expected.title && read.storyIDs == expected.storyIDs)
    }

    /// Every text field is bounded where it is read, so no frame that measures or wraps one
    /// works on megabytes: names, handles, titles, link titles and quoted values to a number
    /// of columns, captions and text cards to a number of characters, ids and addresses to
    /// bytes (refused past it: a cut address would lead somewhere else).
    @Test func everyTextFieldIsBoundedWhereItIsRead() throws {
        let huge = String(repeating: "word ", count: 60_000)
        let marks = "e" + String(repeating: "\u{301}", count: 300_000)
        let item: [String: Any] = ["id": "1", "type": "text", "text": huge, "caption": huge, "alt": huge,
                                   "link": ["title": huge, "url": "https://example.org/" + String(repeating: "u", count: 2000)]]
        let document: [String: Any] = ["id": "s", "author": ["name": huge, "handle": marks],
                                       "items": [item, ["id": "2", "type": huge, "text": "t"], ["id": "3", "type": "text", "text": marks]]]
        let (story, warnings) = try FeedDecoder.story(from: try JSONSerialization.data(withJSONObject: document), file: "s.json", expectedID: "s")
        #expect(story.author.name.displayWidth <= SafeText.Limit.name && story.author.name.hasSuffix("…"))
        #expect(try #require(story.author.handle).unicodeScalars.count <= SafeText.maxScalarsPerCluster)
        #expect(story.items[0].textContent?.count == SafeText.Limit.textCard && story.items[0].textContent?.hasSuffix("…") == true)
        #expect(story.items[0].caption?.count == SafeText.Limit.caption)
        #expect(try #require(story.items[0].alt).displayWidth <= SafeText.Limit.caption)
        #expect(try #require(story.items[0].link).title.displayWidth <= SafeText.Limit.linkTitle)
        #expect(try #require(story.items[1].textContent).unicodeScalars.count <= SafeText.maxScalarsPerCluster,
                "marks by the hundred thousand on one letter are cut before they are kept")
        #expect(warnings.count == 1 && warnings[0].message.count < 200, "\(warnings.map(\.message.count))")

        let tooLong = try JSONSerialization.data(withJSONObject: ["id": "s", "author": ["name": "A"],
            "items": [["id": "1", "type": "text", "text": "t", "link": ["title": "t", "url": "https://e.org/" + String(repeating: "u", count: 2040)]]]])
        #expect(throws: FeedError.self) { try FeedDecoder.story(from: tooLong, file: "s.json", expectedID: "s") }

        let index = try FeedDecoder.index(from: try JSONSerialization.data(withJSONObject: ["version": 1, "title": huge, "stories": ["a"]]), file: "feed.json")
        #expect(index.title.displayWidth <= SafeText.Limit.title)
        #expect(FeedWarning(huge).message.displayWidth <= SafeText.Limit.message)
        #expect(FeedError(file: huge, reason: huge).description.displayWidth <= SafeText.Limit.message)
    }

    /// A duration of almost nothing is held at the floor: a clock firing every 5e-324 s
    /// would never let a virtual-clock replay end.
    @Test func aTinyDurationIsHeldAtTheFloor() throws {
        for tiny in ["5e-324", "0.0001", "0.49"] {
            let (story, _) = try decodeStory(#"{"id":"s","author":{"name":"A"},"items":[{"id":"x","type":"text","text":"t","duration":"# + tiny + "}]}")
            #expect(story.items[0].duration == StoryItem.minimumDuration, "\(tiny)")
        }
        #expect(StoryItem.minimumDuration == 0.5)
    }

    /// A story shows at most 1000 items and says so; items skipped for an unknown type are
    /// said one by one for the first few, then counted.
    @Test func aStoryOfTensOfThousandsOfItemsShowsTheFirstThousand() throws {
        let items = (0..<60_000).map { ["id": "\($0)", "type": $0 < 30 ? "hologram" : "text", "text": "t"] }
        let data = try JSONSerialization.data(withJSONObject: ["id": "s", "author": ["name": "A"], "items": items])
        let (story, warnings) = try FeedDecoder.story(from: data, file: "s.json", expectedID: "s")
        #expect(story.items.count == FeedDecoder.maxItemsPerStory)
        #expect(story.items.first?.id == "30")
        #expect(warnings.map(\.message).suffix(2) == ["s.json: 20 more items skipped like those",
                                                      "s.json: items: 60000 items; the story shows the first 1000"].reversed())
        #expect(warnings.count == 12)
    }

    @Test func nestingPastTheLimitIsRefusedAtOnce() throws {
        let deep = "{\"id\":\"a\",\"x\":" + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}"
        do {
            _ = try FeedDecoder.story(from: Data(deep.utf8), file: "a.json", expectedID: "a")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "a.json: nested more than 64 deep at line 1, column 78", "\(error)")
        }
        // Brackets inside strings are text, not nesting.
        #expect(try JSONValue.parse(Data(("[\"" + String(repeating: "[", count: 100) + "\\\"\"]").utf8), file: "a.json")
                == .array([.string(String(repeating: "[", count: 100) + "\"")]))
    }
}
