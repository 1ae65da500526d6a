@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// Issue 29, point 7: a folder as a newcomer's photos are — trips of other years copied
/// today, names with accents and emoji, days long ago.
@Suite struct FolderFirstHourTests {
    let utc = TimeZone(identifier: "UTC") ?? .current

    @Test func storiesAreOrderedByWhenTheirPhotosWereTakenNotWhenTheFolderChanged() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-order-\(UUID().uuidString)")
        let fm = FileManager.default
        defer { try? fm.removeItem(at: root) }
        let today = Date(timeIntervalSince1970: 1_795_000_000) // November 2026
        func folder(_ name: String, photos: [(String, String?)], changed: Date) throws {
            let dir = root.appendingPathComponent(name)
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            for (file, taken) in photos {
                try PhotoFolderTests().photo(taken: taken).write(to: dir.appendingPathComponent(file))
                try fm.setAttributes([.modificationDate: changed], ofItemAtPath: dir.appendingPathComponent(file).path)
            }
            try fm.setAttributes([.modificationDate: changed], ofItemAtPath: dir.path)
        }
        // Copied today, taken in 2024: after a walk taken (and copied) in October 2026.
        try folder("Trip 2024", photos: [("IMG_0001.jpg", "2024:07:01 10:00:00"), ("IMG_0002.jpg", "2024:07:09 18:00:00")], changed: today)
        try folder("Walk", photos: [("a.jpg", "2026:10:20 09:00:00")], changed: Date(timeIntervalSince1970: 1_792_000_000))
        // No capture time at all: its files' time counts (September 2026).
        try folder("Scans", photos: [("s.jpg", nil)], changed: Date(timeIntervalSince1970: 1_789_000_000))
        let feed = try PhotoFolder(directory: root, timeZone: utc, now: today)
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.map(\.author.name) == ["Walk", "Scans", "Trip 2024"])
        #expect(page.stories.last?.latest == Date(timeIntervalSince1970: 1_720_548_000), "the newest photo's capture time (9 July 2024, 18:00)")
    }

    @Test func namesBeyondASCIIKeepTheirLettersInTheirIDs() {
        var used = Set<StoryID>()
        let summer = PhotoFolder.storyID(for: "Été 2025 🌞", used: &used)
        #expect(summer.hasPrefix("Ete-2025-") && summer.count == "Ete-2025-".count + 8, "\(summer)")
        #expect(PhotoFolder.storyID(for: "Лето", used: &used).hasPrefix("Leto-"))
        #expect(PhotoFolder.storyID(for: "Crème brûlée!!", used: &used).hasPrefix("Creme-brulee-"))
        // ASCII names keep the ids they always had (the seen state follows them).
        #expect(PhotoFolder.storyID(for: "Hiking trip", used: &used) == "Hiking-trip-" + String(SeenStore.hash("Hiking trip").prefix(8)))
        #expect(PhotoFolder.storyID(for: "Été 2025 🌞", used: &used) != summer, "a second folder of the same name is told apart")
        var again = Set<StoryID>()
        #expect(PhotoFolder.storyID(for: "Été 2025 🌞", used: &again) == summer, "stable from run to run")
        #expect(used.allSatisfy(StoryIDRule.isValid))
    }

    @Test func agesOlderThanAWeekAreDates() {
        let now = Date(timeIntervalSince1970: 1_795_240_800) // 21 Nov 2026
        #expect(RelativeTime.short(from: now.addingTimeInterval(-6 * 86_400), to: now) == "6d")
        #expect(RelativeTime.day(now.addingTimeInterval(-18 * 86_400), now: now, timeZone: utc) == "3 Nov")
        #expect(RelativeTime.day(Date(timeIntervalSince1970: 1_730_592_000), now: now, timeZone: utc) == "3 Nov 2024")
        #expect(!RelativeTime.short(from: Date(timeIntervalSince1970: 1_730_592_000), to: now).hasSuffix("w"))
    }

    @Test func aDayStoryOfAnotherYearKeepsItsYearInTheBubbleAndUnderIt() {
        let old = StorySummary(id: "day-2024-11-03", author: Author(name: "3 Nov 2024"), itemIDs: ["a.jpg"])
        let late = StorySummary(id: "day-2024-11-26", author: Author(name: "26 Nov 2024"), itemIDs: ["a.jpg"])
        let now = StorySummary(id: "day-2026-11-02", author: Author(name: "2 Nov"), itemIDs: ["a.jpg"])
        let date = Date(timeIntervalSince1970: 1_795_240_800)
        let bubbles = [old, late, now].map { ViewModelFactory.ringBubble($0, story: nil, seen: SeenState(), now: date) }
        #expect(bubbles.map(\.name) == ["3 Nov’24", "26 Nov’24", "2 Nov"])
        #expect(bubbles.map(\.initials) == ["3N’24", "26N’24", "2N"])
        #expect(bubbles.allSatisfy { $0.name.displayWidth <= ViewModelFactory.bubbleNameWidth && $0.initials.displayWidth <= 6 })
    }
}
