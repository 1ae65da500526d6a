import Dispatch
import Foundation
import Testing
@testable import StoriesCore

@Suite struct RelationMapTests {
    private struct Model: ViewModel {
        var key: String
        var value: Int
    }

    /// Thousands of random inserts, updates and deletes: after each, the relation map is
    /// the one built from scratch from the models in order.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theMapAlwaysEqualsOneRebuiltFromScratch(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var list = ViewModelList<Model>()
        var nextKey = 0
        for step in 0..<3000 {
            switch random.next(10) {
            case 0..<4:
                let model = Model(key: "k\(nextKey)", value: step)
                nextKey += 1
                list.insert(model, at: random.next(list.count + 1))
            case 4..<7 where list.count > 0:
                var model = list[random.next(list.count)]
                model.value = step
                let updated = list.update(model)
                #expect(updated)
                #expect(list.model(for: model.key)?.value == step)
            case 7..<10 where list.count > 0:
                let key = list[random.next(list.count)].key
                let removed = list.remove(key)
                #expect(removed?.key == key)
                #expect(list.model(for: key) == nil)
            default:
                let updated = list.update(Model(key: "never", value: 0))
                let removed = list.remove("never")
                #expect(!updated && removed == nil)
            }
            let rebuilt = Dictionary(uniqueKeysWithValues: list.models.enumerated().map { ($0.element.key, $0.offset) })
            guard list.positions == rebuilt else {
                Issue.record("step \(step): the map drifted from the models")
                return
            }
        }
        #expect(list.count > 100)
    }

    @Test func insertingAKeyThatIsThereReplacesItInPlace() {
        var list = ViewModelList([Model(key: "a", value: 1), Model(key: "b", value: 2)])
        list.insert(Model(key: "a", value: 9), at: 2)
        #expect(list.models == [Model(key: "a", value: 9), Model(key: "b", value: 2)])
    }
}

@Suite struct ViewModelFactoryTests {
    let now = Date(timeIntervalSince1970: 1_795_240_800)

    @Test func ringBubblesSayWhatIsNewAndWhereTheViewerWouldOpen() {
        let story = Story(id: "s", author: Author(name: "Ayla Demir", handle: "ayla"), items: [
            StoryItem(id: "1", content: .text("first\nline", background: RGB(0, 0, 0)), createdAt: now.addingTimeInterval(-7200)),
            StoryItem(id: "2", content: .text("t", background: RGB(0, 0, 0)), caption: "second caption", createdAt: now.addingTimeInterval(-300)),
        ])
        var seen = SeenState()
        let fresh = ViewModelFactory.ringBubble(StorySummary(story), story: story, seen: seen, now: now)
        #expect(fresh.summary == "2 items, new · 5m")
        #expect(fresh.preview == "first line")
        #expect(fresh.initials == "AD" && !fresh.isSeen)
        seen.markSeen(story: "s", item: "1")
        let half = ViewModelFactory.ringBubble(StorySummary(story), story: story, seen: seen, now: now)
        #expect(half.summary == "2 items, 1 new · 5m")
        #expect(half.preview == "second caption")
        seen.markSeen(story: "s", item: "2")
        let done = ViewModelFactory.ringBubble(StorySummary(story), story: nil, seen: seen, now: now)
        #expect(done.isSeen && done.summary == "2 items, all seen · 5m" && done.preview == nil)
    }

    @Test func captionsAreWrappedToTheWidthTheyWereBuiltFor() {
        let caption = String(repeating: "word ", count: 40)
        let story = Story(id: "s", author: Author(name: "N"), items: [
            StoryItem(id: "1", content: .text("t", background: RGB(0, 0, 0)), caption: caption),
        ])
        for width in [40, 80, 120] {
            let page = ViewModelFactory.viewerItems(story, now: now, width: width)[0]
            #expect(page.width == width)
            #expect(page.captionLines.allSatisfy { $0.displayWidth <= width - 4 })
            #expect(page.captionLines.joined(separator: " ").split(separator: " ").count == 40, "no word lost")
        }
    }

    /// Hostile text from a feed's JSON bytes: escape sequences, bidi controls and a
    /// 10 000-character name go through the decoder and the factory and come out clean and
    /// cut to width.
    @Test func hostileTextIsCleanAndCutToWidth() throws {
        let longName = String(repeating: "W", count: 10_000)
        let json = Data(#"{"id":"s","author":{"name":"\#(longName)\u001b[2J\u202e","handle":"x\u0007y"},"items":[{"id":"1","type":"text","text":"a\u001b]0;pwned\u0007b","caption":"c\u202ed\u009b31m e"}]}"#.utf8)
        let story = try FeedDecoder.story(from: json, file: "stories/s.json", expectedID: "s").0
        let bubble = ViewModelFactory.ringBubble(StorySummary(story), story: story, seen: SeenState(), now: now)
        let pages = ViewModelFactory.viewerItems(story, now: now, width: 80)
        let texts = [bubble.name, bubble.fullName, bubble.summary, bubble.handle ?? "", bubble.preview ?? "",
                     pages[0].authorName, pages[0].detail] + pages[0].captionLines
        #expect(story.items[0].textContent == "ab", "a whole escape sequence goes, payload and all; the text around it stays")
        #expect(bubble.preview == "cd e")
        #expect(pages[0].captionLines == ["cd e"])
        for text in texts {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || (0x202A...0x202E).contains($0.value) },
                    "\(text.debugDescription.prefix(80))")
        }
        #expect(bubble.name.displayWidth <= ViewModelFactory.bubbleNameWidth)
        #expect(bubble.fullName.displayWidth <= 400)
        #expect(pages[0].authorName.displayWidth <= 80)
    }

    /// Invalid UTF-8 inside a JSON string: the document is refused with an error that names
    /// the file (one story is skipped, the feed goes on); nothing half-decoded gets through.
    @Test func invalidUTF8InTheJSONBytesIsAClearErrorNamingTheFile() {
        var json = Data(#"{"id":"s","author":{"name":"ok"},"items":[{"id":"1","type":"text","text":"a"#.utf8)
        json.append(contentsOf: [0xFF, 0xFE, 0xC3])
        json.append(contentsOf: Data(#"b"}]}"#.utf8))
        #expect {
            _ = try FeedDecoder.story(from: json, file: "stories/s.json", expectedID: "s")
        } throws: { error in
            guard let error = error as? FeedError else { return false }
            return error.file == "stories/s.json" && error.reason.hasPrefix("not valid JSON")
        }
    }
}
