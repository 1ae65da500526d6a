@testable import StoriesFeedIO
import Foundation
import Testing
@testable import StoriesCore

/// A folder of photos and videos, made by the test, read as a feed.
@Suite struct PhotoFolderTests {
    let utc = TimeZone(identifier: "UTC") ?? .current
    /// "Hiking trip" is no valid id as it is: its id carries a hash of the name.
    let hiking = "Hiking-trip-" + String(SeenStore.hash("Hiking trip").prefix(8))

    /// A JPEG start holding EXIF (`PhotoMetadataTests.jpeg`): the feed reads only headers.
    func photo(taken: String? = nil, caption: String? = nil) -> Data {
        var ifd0: [(Int, PhotoMetadataTests.Value)] = []
        if let caption { ifd0.append((0x010E, .ascii(caption))) }
        let exif: [(Int, PhotoMetadataTests.Value)] = taken.map { [(0x9003, .ascii($0))] } ?? []
        return PhotoMetadataTests.jpeg(littleEndian: true, ifd0: ifd0, exif: exif)
    }

    func makeFolder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-\(UUID().uuidString)/My Photos")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("Hiking trip"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("Only notes"), withIntermediateDirectories: true)
        func write(_ data: Data, _ path: String, modified: Date? = nil) throws {
            let url = root.appendingPathComponent(path)
            try data.write(to: url)
            if let modified { try fm.setAttributes([.modificationDate: modified], ofItemAtPath: url.path) }
        }
        let may = Date(timeIntervalSince1970: 1_714_500_000) // 30 April 2024
        try write(photo(taken: "2024:06:02 12:00:00", caption: "At the top"), "Hiking trip/b.jpg")
        try write(photo(taken: "2024:06:02 09:30:00"), "Hiking trip/a.jpg")
        try write(photo(), "Hiking trip/c.png", modified: Date(timeIntervalSince1970: 1_717_330_000)) // no EXIF: 2 June, 12:06
        try write(Data("Lunch by the lake\nmore lines".utf8), "Hiking trip/c.txt")
        try write(Data("not media".utf8), "Hiking trip/notes.md")
        try write(Data([0, 0, 0, 24]) + Data("ftypisom".utf8), "Hiking trip/clip.mp4", modified: Date(timeIntervalSince1970: 1_717_300_000))
        try write(Data("notes".utf8), "Only notes/todo.txt")
        try fm.setAttributes([.modificationDate: may], ofItemAtPath: root.appendingPathComponent("Only notes").path)
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_717_400_000)], ofItemAtPath: root.appendingPathComponent("Hiking trip").path)
        // Loose at the top: two days in May.
        try write(photo(taken: "2024:05:01 08:00:00"), "x.jpg")
        try write(photo(taken: "2024:05:01 18:00:00", caption: "Evening"), "y.jpg")
        try write(photo(taken: "2024:05:03 10:00:00"), "z.jpg")
        // Left out: hidden, not media, a link out of the folder, a FIFO and an escape in a name.
        try write(photo(), ".hidden.jpg")
        try write(Data("x".utf8), "readme.txt")
        let outside = root.deletingLastPathComponent().appendingPathComponent("secret.jpg")
        try photo().write(to: outside)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("link.jpg").path, withDestinationPath: outside.path)
        #expect(mkfifo(root.appendingPathComponent("pipe.jpg").path, 0o600) == 0)
        try write(photo(), "bad\u{1B}]0;x\u{07}.jpg")
        return root
    }

    @Test func subFoldersAreStoriesAndLooseFilesAreDaysNewestFirst() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try PhotoFolder(directory: root, timeZone: utc, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(feed.title == "My Photos")
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.map(\.id) == [hiking, "day-2024-05-03", "day-2024-05-01"], "\(page.stories.map(\.id))")
        #expect(page.stories.map(\.author.name) == ["Hiking trip", "3 May 2024", "1 May 2024"], "another year: with it")
        #expect(page.stories[0].itemIDs.sorted() == ["a.jpg", "b.jpg", "c.png", "clip.mp4"])
        #expect(page.warnings.contains { $0.message.contains("Only notes: no photos or videos in it") })
        #expect(page.warnings.contains { $0.message.contains("3 entries left out") }, "\(page.warnings)")
        #expect(page.warnings.allSatisfy { !$0.message.contains("\u{1B}") })
        #expect(page.nextCursor == nil)
    }

    @Test func aStoryIsInCaptureOrderWithCaptionsFromEXIFOrASidecar() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        let story = try feed.story(id: hiking).story
        #expect(story.items.map(\.id) == ["clip.mp4", "a.jpg", "b.jpg", "c.png"], "capture time, else the file's")
        #expect(story.items.map(\.caption) == [nil, nil, "At the top", "Lunch by the lake"])
        guard case .video(let clip) = story.items[0].content, case .image(let photo) = story.items[1].content else {
            Issue.record("kinds: \(story.items.map(\.content))")
            return
        }
        #expect(clip.location == "Hiking trip/clip.mp4" && photo.location == "Hiking trip/a.jpg")
        #expect(try feed.media(at: photo.location, maxBytes: 1 << 20) == (try Data(contentsOf: root.appendingPathComponent("Hiking trip/a.jpg"))))
        let day = try feed.story(id: "day-2024-05-01").story
        #expect(day.items.map(\.id) == ["x.jpg", "y.jpg"] && day.items[1].caption == "Evening")
    }

    @Test func nothingOutsideTheFolderOrSpecialIsEverRead() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        for location in ["../secret.jpg", "link.jpg", "pipe.jpg", "/etc/passwd", ".hidden.jpg", "Hiking trip/../../secret.jpg"] {
            #expect(throws: FeedError.self, "\(location)") { try feed.media(at: location, maxBytes: 1 << 20) }
        }
        #expect(throws: FeedError.self) { try feed.story(id: "nope") }
    }

    @Test func aMissingFolderAFileAndAnEmptyFolderSaySo() throws {
        #expect(throws: FeedError(file: "/nonexistent/photos", reason: "no such file or folder")) {
            try PhotoFolder(directory: URL(fileURLWithPath: "/nonexistent/photos"))
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let empty = try PhotoFolder(directory: root)
        let page = try empty.page(after: nil, limit: 10)
        #expect(page.stories.isEmpty && page.warnings.contains { $0.message.contains("no photos or videos here") })
        let file = root.appendingPathComponent("one.jpg")
        try Data([0xFF]).write(to: file)
        #expect(throws: FeedError(file: file.path, reason: "is a file; give a folder of photos and videos (to show one photo: stories print FILE, one video: stories play FILE)")) {
            try PhotoFolder(directory: file)
        }
        let loop = root.appendingPathComponent("loop"), dangling = root.appendingPathComponent("dangling")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: root.appendingPathComponent("nowhere").path)
        #expect(throws: FeedError(file: loop.path, reason: "a loop of symbolic links")) { try PhotoFolder(directory: loop) }
        #expect(throws: FeedError(file: dangling.path, reason: "a symbolic link to nothing")) { try PhotoFolder(directory: dangling) }
    }

    @Test func storyIDsAreSafeUniqueAndStable() {
        var used = Set<StoryID>()
        #expect(PhotoFolder.storyID(for: "Cats", used: &used) == "Cats", "a valid id stays as it is")
        let trip = PhotoFolder.storyID(for: "Hiking trip", used: &used)
        let slash = PhotoFolder.storyID(for: "Hiking/trip", used: &used)
        #expect(trip.hasPrefix("Hiking-trip-") && slash.hasPrefix("Hiking-trip-") && trip != slash, "names that read alike stay apart")
        #expect(PhotoFolder.storyID(for: "..", used: &used).hasPrefix("story-"))
        #expect(PhotoFolder.storyID(for: "山", used: &used).hasPrefix("shan-"), "its letters, in Latin")
        #expect(PhotoFolder.storyID(for: "🌞", used: &used).hasPrefix("story-"), "never a leading '-': ids are file names")
        #expect(PhotoFolder.storyID(for: "-rf", used: &used).hasPrefix("rf-"))
        #expect(used.allSatisfy(StoryIDRule.isValid))
        // The same name has the same id whatever other folders there are (seen state keeps to it).
        var other = Set<StoryID>()
        for name in ["Hiking-trip", "Hiking_trip", "a", "b"] { _ = PhotoFolder.storyID(for: name, used: &other) }
        #expect(PhotoFolder.storyID(for: "Hiking trip", used: &other) == trip)
        // Thousands of names that read alike: each its own id, quickly.
        var many = Set<StoryID>()
        for n in 0..<20_000 { _ = PhotoFolder.storyID(for: String(repeating: "山", count: 3) + String(n), used: &many) }
        #expect(many.count == 20_000)
    }

    @Test func dayNamesAreShortAndCarryTheYearOnlyWhenItIsAnother() {
        #expect(PhotoFolder.dayName("2024-06-02", timeZone: utc, now: Date(timeIntervalSince1970: 1_720_000_000)) == "2 Jun")
        #expect(PhotoFolder.dayName("2024-06-02", timeZone: utc, now: Date(timeIntervalSince1970: 1_800_000_000)) == "2 Jun 2024")
        #expect(PhotoFolder.dayName("2024-6-2", timeZone: utc) == "2024-6-2" && PhotoFolder.dayParts("2024-13-01") == nil)
        let root = try? makeFolder()
        defer { root.map { try? FileManager.default.removeItem(at: $0.deletingLastPathComponent()) } }
        let feed = root.flatMap { try? PhotoFolder(directory: $0, timeZone: utc, now: Date(timeIntervalSince1970: 1_720_000_000)) }
        #expect((try? feed?.page(after: nil, limit: 10))??.stories.map(\.author.name) == ["Hiking trip", "3 May", "1 May"])
    }

    @Test func aSubFoldersPictureIsItsAvatarFileElseItsFirstPhoto() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        #expect(try feed.story(id: hiking).story.author.avatar == "Hiking trip/a.jpg")
        try photo().write(to: root.appendingPathComponent("Hiking trip/Avatar.PNG"))
        let story = try PhotoFolder(directory: root, timeZone: utc).story(id: hiking).story
        #expect(story.author.avatar == "Hiking trip/Avatar.PNG")
        #expect(!story.items.contains { $0.id == "Avatar.PNG" }, "the picture is not one of the items")
        #expect(try feed.story(id: "day-2024-05-01").story.author.avatar == nil)
    }

    /// A voice note (by its ending: `.ogg`, `.m4a`, `.mp3` …) is an `audio` item, in its
    /// file's time, and never the story's picture.
    @Test func aVoiceNoteIsAnAudioItemAndNeverThePicture() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let note = root.appendingPathComponent("Hiking trip/0 note.ogg")
        try Data("OggS".utf8).write(to: note)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_717_310_000)], ofItemAtPath: note.path)
        let story = try PhotoFolder(directory: root, timeZone: utc).story(id: hiking).story
        #expect(story.items.map(\.id) == ["clip.mp4", "0 note.ogg", "a.jpg", "b.jpg", "c.png"], "\(story.items.map(\.id))")
        #expect(story.items[1].content == .audio(Media(location: "Hiking trip/0 note.ogg", bytes: 4)))
        #expect(story.author.avatar == "Hiking trip/a.jpg", "a sound is no picture")
        #expect(PhotoFolder.isMediaPath("Hiking trip/0 note.ogg") && PhotoFolder.isMediaPath("a.M4A"))
    }

    @Test func videosAreInTheirRecordingTimeFromTheMovieHeader() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        // Recorded at 10:00 on 2 June, copied later (its file time is 3 June).
        let clip = root.appendingPathComponent("Hiking trip/clip.mp4")
        try Data(VideoMetadataTests.movie(seconds: UInt64(1_717_322_400) + VideoMetadata.quickTimeEpoch)).write(to: clip)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_717_400_000)], ofItemAtPath: clip.path)
        let story = try PhotoFolder(directory: root, timeZone: utc).story(id: hiking).story
        #expect(story.items.map(\.id) == ["a.jpg", "clip.mp4", "b.jpg", "c.png"], "\(story.items.map(\.id))")
    }

    @Test func emptyFoldersArePassedOverSoAPageIsFull() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-paging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // 30 folders, every third with a photo: newest first, by their photos' times.
        for n in 0..<30 {
            let folder = root.appendingPathComponent(String(format: "F%02d", n))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if n % 3 == 0 {
                try photo().write(to: folder.appendingPathComponent("p.jpg"))
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(1_700_000_000 + n))],
                                                      ofItemAtPath: folder.appendingPathComponent("p.jpg").path)
            }
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(1_700_000_000 + n))], ofItemAtPath: folder.path)
        }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        let first = try feed.page(after: nil, limit: 4)
        #expect(first.stories.map(\.id) == ["F27", "F24", "F21", "F18"])
        let second = try feed.page(after: first.nextCursor, limit: 4)
        #expect(second.stories.map(\.id) == ["F15", "F12", "F09", "F06"])
        let third = try feed.page(after: second.nextCursor, limit: 4)
        #expect(third.stories.map(\.id) == ["F03", "F00"] && third.nextCursor == nil)
        #expect(feed.loadAll(pageSize: 4).stories.count == 10)
    }

    @Test func listingLimitsAndFoldersThatCannotBeReadAreSaid() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-limits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for n in 0..<25 { try photo().write(to: root.appendingPathComponent("p\(n).jpg")) }
        let feed = try PhotoFolder(directory: root, timeZone: utc, maxEntries: 10)
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.flatMap(\.itemIDs).count == 10)
        #expect(page.warnings.contains { $0.message.contains("25 entries; only the last 10 of its photos and videos, of its folders and of its captions by name are read") },
                "\(page.warnings)")
        #expect(page.stories.flatMap(\.itemIDs).sorted() == Array((0..<25).map { "p\($0).jpg" }.sorted().suffix(10)), "the last by name")

        var warnings: [FeedWarning] = []
        let open = try OpenFolder.open(root.path)
        #expect(PhotoFolder.list(open, relative: "p0.jpg", warnings: &warnings) == nil)
        #expect(PhotoFolder.list(open, relative: "gone", warnings: &warnings) == nil)
        #expect(warnings.map(\.message) == ["p0.jpg: cannot be read (no longer a folder)", "gone: cannot be read (gone since it was listed)"])
        // A story whose folder went away after the listing: said, not a crash.
        let trip = root.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        try photo().write(to: trip.appendingPathComponent("a.jpg"))
        let withTrip = try PhotoFolder(directory: root, timeZone: utc)
        #expect(try withTrip.page(after: nil, limit: 10).stories.contains { $0.id == "Trip" }, "listed")
        try FileManager.default.removeItem(at: trip)
        #expect(throws: FeedError.self) { try withTrip.story(id: "Trip") }
        let gone = try withTrip.page(after: nil, limit: 10).warnings.map(\.message)
        #expect(gone.contains("Trip: cannot be read (gone since it was listed)") && !gone.contains { $0.hasPrefix("Trip: no photos") }, "\(gone)")
    }

    @Test func aLooseDayIsTheDayTheCamerasClockShowed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-day-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // 23:30 in New York on 1 May is 2 May in UTC: the photo belongs to 1 May.
        let late = PhotoMetadataTests.jpeg(littleEndian: true, ifd0: [], exif: [(0x9003, .ascii("2023:05:01 23:30:00")), (0x9011, .ascii("-05:00"))])
        try late.write(to: root.appendingPathComponent("late.jpg"))
        let feed = try PhotoFolder(directory: root, timeZone: utc, now: Date(timeIntervalSince1970: 1_800_000_000))
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.map(\.id) == ["day-2023-05-01"] && page.stories.first?.author.name == "1 May 2023")
    }

    @Test func aHugeFolderIsAStoryOfItsLastThousandByName() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-huge-\(UUID().uuidString)")
        let album = root.appendingPathComponent("Album")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let bytes = photo()
        for n in 0..<1005 { try bytes.write(to: album.appendingPathComponent(String(format: "IMG_%04d.jpg", n))) }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.first?.itemIDs.count == PhotoFolder.maxItemsPerStory && page.stories.first?.itemIDs.first == "IMG_0005.jpg")
        #expect(page.warnings.contains { $0.message == "Album: 1005 photos and videos; the story shows the last 1000 by name" })
        let story = try feed.story(id: "Album").story
        #expect(Set(story.items.map(\.id)) == Set(page.stories.first?.itemIDs ?? []), "the ring's items are the story's")
        #expect(FeedWire.story(story).count < FeedDecoder.maxDocumentBytes)
    }

    /// Issue 27, point 5: a camera folder of 100 000 files, made in an order that is not the
    /// names' (the file system lists them in its own order anyway: hash order on ext4). Before,
    /// the first 40 000 names in listing order were kept, then sorted, so which photos showed
    /// depended on the file system and the newest were not among them. Now every name is read
    /// and the last by name are kept: the story is the newest thousand.
    @Test func aFolderOf100000CameraFilesShowsTheNewest() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-camera-\(UUID().uuidString)")
        let camera = root.appendingPathComponent("Camera")
        try FileManager.default.createDirectory(at: camera, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // Shuffled with a fixed generator: the order of creation says nothing about the names.
        var numbers = Array(0..<100_000)
        var seed: UInt64 = 27
        for i in stride(from: numbers.count - 1, to: 0, by: -1) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            numbers.swapAt(i, Int(seed >> 33) % (i + 1))
        }
        for n in numbers {
            let fd = open(camera.appendingPathComponent(String(format: "DSC%05d.JPG", n)).path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(fd >= 0)
            close(fd)
        }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        let page = try feed.page(after: nil, limit: 10)
        let items = try #require(page.stories.first?.itemIDs)
        #expect(items.count == PhotoFolder.maxItemsPerStory)
        #expect(items.sorted() == (99_000..<100_000).map { String(format: "DSC%05d.JPG", $0) }, "the newest thousand by name")
        #expect(page.warnings.contains { $0.message == "Camera: 100000 entries; only the last 20000 of its photos and videos, of its folders and of its captions by name are read" },
                "\(page.warnings.map(\.message))")
        let story = try feed.story(id: "Camera").story
        #expect(Set(story.items.map(\.id)) == Set(items), "the story is the same newest thousand")
    }

    /// A name's ending is what `NSString.pathExtension` says, in lower case, for the names a
    /// folder holds (it is asked of every one, so without bridging).
    @Test func anEndingIsWhatPathExtensionSays() {
        for name in ["IMG_1.JPG", "a.jpeg", "clip.MOV", "noext", ".hidden", "two.dots.png", "trailing.", "x.tar.gz", "é.WebP",
                     "a.verylongextension", "..", "a.b c"] {
            let expected = (name as NSString).pathExtension.lowercased()
            let ending = PhotoFolder.ending(of: name)
            #expect(ending == expected || (expected.utf8.count > 8 && ending.isEmpty), "\(name): \(ending) against \(expected)")
        }
    }

    /// The heap that keeps the last names: the same as sorting all and taking the end, for
    /// any order offered.
    @Test func lastByNameKeepsTheLastWhateverTheOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let names = (0..<500).map { _ in String(UInt32.random(in: 0...5000, using: &generator)) }
            var keep = LastByName(keeping: 37)
            for name in names { keep.offer(name) }
            #expect(keep.sorted() == Array(names.sorted().suffix(37)))
            #expect(keep.dropped == 500 - 37)
        }
    }

    @Test func whatIsLeftOutIsSaidAndAFolderOfFoldersSaysWhy() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-links-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("2024/Trip"), withIntermediateDirectories: true)
        try photo().write(to: root.appendingPathComponent("2024/Trip/a.jpg"))
        try fm.createDirectory(at: root.appendingPathComponent("Real"), withIntermediateDirectories: true)
        try photo().write(to: root.appendingPathComponent("Real/a.jpg"))
        try Data("  Two   spaces\tand a tab \n".utf8).write(to: root.appendingPathComponent("Real/a.txt"))
        defer { try? fm.removeItem(at: root) }
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("Phone").path, withDestinationPath: root.appendingPathComponent("Real").path)
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        let page = try feed.page(after: nil, limit: 10)
        #expect(page.stories.map(\.id) == ["Real"])
        let lines = page.warnings.map(\.message)
        #expect(lines.contains { $0.contains("1 entry left out (links") }, "a link to a folder is said: \(lines)")
        #expect(lines.contains("2024: no photos or videos in it (only its 1 folder; a story is one folder down, no deeper)"), "\(lines)")
        #expect(try feed.story(id: "Real").story.items.first?.caption == "Two spaces and a tab")
    }

    @Test func makingTheFeedReadsNothingTheFirstPageLists() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-lazy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let feed = try PhotoFolder(directory: root, timeZone: utc)
        // Made after the feed: the listing is the first page's, not `init`'s.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Later"), withIntermediateDirectories: true)
        try photo().write(to: root.appendingPathComponent("Later/a.jpg"))
        #expect(try feed.page(after: nil, limit: 10).stories.map(\.id) == ["Later"])
        #expect(feed.title == root.lastPathComponent)
    }

    @Test func aListingThatFailedIsTriedAgain() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-feed-retry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let feed = PhotoFolder(root: NamedFolder(try OpenFolder.open(root.path), recheckAfter: 0), directory: root, timeZone: utc)
        try FileManager.default.removeItem(at: root)
        #expect(throws: FeedError(file: root.path, reason: "cannot be read (removed since it was opened)")) { try feed.page(after: nil, limit: 10) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Back"), withIntermediateDirectories: true)
        try photo().write(to: root.appendingPathComponent("Back/a.jpg"))
        #expect(try feed.page(after: nil, limit: 10).stories.map(\.id) == ["Back"], "the failure was not kept; the folder made again under its name is read")
        #expect(feed.waitsOnNetwork, "a folder's calls run on queues of their own")
    }
}
