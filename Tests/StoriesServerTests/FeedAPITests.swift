@testable import StoriesFeedIO
import Foundation
import StoriesAssets
import StoriesCore
import Testing
@testable import StoriesServer
import StoriesTestSupport

/// The API without sockets: every route, every answer, every way out of the folder.
@Suite(.ownThread) struct FeedAPITests {
    let api: FeedAPI

    init() throws {
        api = try FeedAPI(directory: try #require(DemoFeed.directory))
    }

    func json(_ response: APIResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func pagesOfSummariesFollowTheirCursorsToTheEnd() throws {
        var cursor: String? = nil
        var ids: [String] = []
        repeat {
            let response = api.respond(APIRequest(path: "/v1/feed", query: ["limit": "4"].merging(cursor.map { ["cursor": $0] } ?? [:]) { a, _ in a }))
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-cache")
            let page = try json(response)
            let stories = try #require(page["stories"] as? [[String: Any]])
            #expect(stories.count <= 4)
            ids += stories.compactMap { $0["id"] as? String }
            #expect(stories.allSatisfy { ($0["itemIDs"] as? [String])?.isEmpty == false && ($0["author"] as? [String: Any])?["name"] is String })
            cursor = page["nextCursor"] as? String
        } while cursor != nil
        #expect(ids == (try FeedFolder(directory: try #require(DemoFeed.directory))).index.storyIDs, "every story once, in the feed's order")
    }

    @Test func theSameDocumentHasTheSameTagAndA304CarriesNoBody() throws {
        let first = api.respond(APIRequest(path: "/v1/feed"))
        let again = api.respond(APIRequest(path: "/v1/feed"))
        let tag = try #require(first.header("ETag"))
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 34, "a strong tag: \(tag)")
        #expect(again.header("ETag") == tag && again.body == first.body)
        for header in [tag, "W/\(tag)", "\"nope\", \(tag)", "*"] {
            let revalidated = api.respond(APIRequest(path: "/v1/feed", ifNoneMatch: header))
            #expect(revalidated.status == 304 && revalidated.body.isEmpty, "If-None-Match: \(header)")
            #expect(revalidated.header("ETag") == tag)
        }
        #expect(api.respond(APIRequest(path: "/v1/feed", ifNoneMatch: "\"other\"")).status == 200)
        let otherPage = api.respond(APIRequest(path: "/v1/feed", query: ["limit": "3"]))
        #expect(otherPage.header("ETag") != tag)
    }

    /// `If-None-Match` as RFC 9110 reads it: a list, weak comparison, `*`, spaces and tabs.
    @Test func ifNoneMatchIsReadAsAListWithWeakComparison() {
        let tag = "\"abc\""
        for header in [tag, " \"abc\"\t", "W/\"abc\"", "\"x\", \"abc\"", "\"x\",W/\"abc\" ,\"y\"", "*", " * "] {
            #expect(ETag.matches(header, tag), "\(header)")
        }
        #expect(ETag.matches("\"abc\"", "W/\"abc\""), "weak on either side")
        for header in ["", ",", "\"abcd\"", "\"ab\"", "abc", "\"x\", \"y\"", "W/", "**", "\"abc", String(repeating: "\"abc\",", count: 2000)] {
            #expect(!ETag.matches(header, tag), "\(header.prefix(20))")
        }
        #expect(!ETag.matches(nil, tag))
    }

    @Test func aStoryGoesOutAsItIsInTheFolder() throws {
        let response = api.respond(APIRequest(path: "/v1/stories/mika"))
        #expect(response.status == 200)
        let onDisk = try Data(contentsOf: try #require(DemoFeed.directory).appendingPathComponent("stories/mika.json"))
        #expect(response.body == onDisk)
        #expect(api.respond(APIRequest(path: "/v1/stories/mika", ifNoneMatch: response.header("ETag"))).status == 304)
        #expect(api.respond(APIRequest(path: "/v1/stories/nobody")).status == 404)
        #expect(api.respond(APIRequest(path: "/v1/stories/.hidden")).status == 404)
    }

    /// A seen batch's stories from memory when they were read within `recheckAfter`, never
    /// the disk: nothing until read once, the same items as a read after, nothing once the
    /// time to check again has come.
    @Test func keptItemsAreAnsweredFromMemoryOnly() throws {
        let api = try FeedAPI(directory: try #require(DemoFeed.directory), recheckAfter: 0.5)
        #expect(api.keptItemIDs(ofStories: ["mika"]) == nil)
        let read = api.itemIDs(ofStories: ["mika", "ayla"])
        let readAt = ContinuousClock.now
        #expect(read["mika"]?.isEmpty == false && read["ayla"]?.isEmpty == false)
        #expect(api.keptItemIDs(ofStories: ["mika", "ayla"]) == read)
        #expect(api.keptItemIDs(ofStories: ["mika", "nobody"]) == nil, "a story never read is asked of the disk")
        let dropped = Wait.until(5, every: 0.01) { api.keptItemIDs(ofStories: ["mika"]) == nil }
        let after = ContinuousClock.now - readAt
        #expect(dropped && after < .seconds(1.5), "asked of the disk once the half second is over (after \(after))")
    }

    @Test func mediaHasItsTypeALongLifeAndRanges() throws {
        let whole = api.respond(APIRequest(path: "/v1/media/media/deep-field.mp4"))
        #expect(whole.status == 200)
        #expect(whole.header("Content-Type") == "video/mp4")
        #expect(whole.header("Cache-Control") == "public, max-age=86400")
        #expect(whole.header("Accept-Ranges") == "bytes")
        #expect(whole.header("Content-Length") == String(whole.wholeBody().count))
        #expect(whole.body.isEmpty && whole.buffer != nil, "the kept bytes, not a copy")
        let total = whole.wholeBody().count
        let cases: [(String, Range<Int>)] = [("bytes=0-99", 0..<100), ("bytes=100-", 100..<total), ("bytes=-50", (total - 50)..<total),
                                             ("bytes=10-99999999", 10..<total)]
        for (header, range) in cases {
            let part = api.respond(APIRequest(path: "/v1/media/media/deep-field.mp4", range: header))
            #expect(part.status == 206, "\(header)")
            #expect(part.wholeBody() == whole.wholeBody().subdata(in: range), "\(header)")
            #expect(part.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)")
        }
        let beyond = api.respond(APIRequest(path: "/v1/media/media/deep-field.mp4", range: "bytes=\(total)-"))
        #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */\(total)")
        #expect(beyond.headers.filter { $0.0 == "Content-Type" }.map(\.1) == ["application/json; charset=utf-8"], "one type: the error's")
        #expect(beyond.header("ETag") == nil && beyond.header("Cache-Control") == "no-store")
        for ignored in ["bytes=0-1,5-6", "items=0-5", "bytes=abc", "bytes=9-2"] {
            #expect(api.respond(APIRequest(path: "/v1/media/media/deep-field.mp4", range: ignored)).status == 200, "\(ignored)")
        }
        let stale = api.respond(APIRequest(path: "/v1/media/media/deep-field.mp4", range: "bytes=0-9", ifRange: "\"old\""))
        #expect(stale.status == 200, "If-Range with another tag: the whole file")
        #expect(api.respond(APIRequest(path: "/v1/media/media/chelsea.jpg")).header("Content-Type") == "image/jpeg")
    }

    @Test func headAnswersLikeGetWithoutTheBody() {
        for path in ["/v1/feed", "/v1/stories/ayla", "/v1/media/media/chelsea.jpg", "/v1/home", "/v1/nope"] {
            let get = api.respond(APIRequest(method: "GET", path: path))
            let head = api.respond(APIRequest(method: "HEAD", path: path))
            #expect(head.status == get.status && head.body.isEmpty && head.length == 0, "\(path)")
            #expect(head.header("Content-Length") == String(get.length) && head.header("ETag") == get.header("ETag"), "\(path)")
        }
        #expect(api.respond(APIRequest(method: "POST", path: "/v1/feed")).status == 405)
    }

    @Test func errorsAreJSONWithAClearMessage() throws {
        let cases: [(String, [String: String], Int, String)] = [
            ("/v1/nope", [:], 404, "no such route: /v1/nope"),
            ("/", [:], 404, "no such route: /"),
            ("/v2/feed", [:], 404, "no such route: /v2/feed"),
            ("/v1/feed", ["limit": "0"], 400, "limit must be a whole number from 1 to 100"),
            ("/v1/feed", ["limit": "1e3"], 400, "limit must be a whole number from 1 to 100"),
            ("/v1/feed", ["cursor": "zzz"], 400, "cursor 'zzz' is not a page of this feed"),
            ("/v1/feed", ["cursor": "999"], 400, "cursor '999' is not a page of this feed"),
            ("/v1/feed", ["cursor": "\u{1B}[31mx"], 400, "cursor 'x' is not a page of this feed"),
        ]
        for (path, query, status, message) in cases {
            let response = api.respond(APIRequest(path: path, query: query))
            #expect(response.status == status, "\(path) \(query)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(try json(response)["error"] as? String == message)
        }
    }

    @Test func homeIsTheFoldersHomeDocumentOrNoSections() throws {
        let response = api.respond(APIRequest(path: "/v1/home"))
        #expect(response.status == 200)
        #expect(try json(response)["sections"] is [Any])
    }
}

/// A feed folder of our own, with ways out of it planted inside.
@Suite(.ownThread) struct ConfinementTests {
    let folder: URL
    let api: FeedAPI

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: folder.appendingPathComponent("stories"), withIntermediateDirectories: true)
        try fm.createDirectory(at: folder.appendingPathComponent("media"), withIntermediateDirectories: true)
        try #"{"version":1,"stories":["a","broken","leak","twin"]}"#.write(to: folder.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        try #"{"id":"a","author":{"name":"A"},"items":[{"id":"t","type":"text","text":"hi"}]}"#
            .write(to: folder.appendingPathComponent("stories/a.json"), atomically: true, encoding: .utf8)
        try #"{"id":"broken","author":{"name":"B"},"items":[{"id":"t","type":"text","text":"x","duration":"x"}]}"#
            .write(to: folder.appendingPathComponent("stories/broken.json"), atomically: true, encoding: .utf8)
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: folder.appendingPathComponent("media/ok.jpg"))
        try "TOP-SECRET-CONTENT".write(to: folder.appendingPathComponent(".secret"), atomically: true, encoding: .utf8)
        // Symlinks out of the folder: a file and a folder.
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("media/passwd").path, withDestinationPath: "/etc/passwd")
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("media/etc").path, withDestinationPath: "/etc")
        // A story file that is a link out of the folder, with a story in it.
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).json")
        try #"{"id":"leak","author":{"name":"OUTSIDE SECRET"},"items":[{"id":"t","type":"text","text":"x"}]}"#
            .write(to: outside, atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("stories/leak.json").path, withDestinationPath: outside.path)
        // The same bytes as a.json under another id.
        try fm.copyItem(at: folder.appendingPathComponent("stories/a.json"), to: folder.appendingPathComponent("stories/twin.json"))
        // A link to a hidden file inside the folder.
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("media/hid.jpg").path, withDestinationPath: "../.secret")
        // A symlink that stays inside is fine.
        try fm.createSymbolicLink(atPath: folder.appendingPathComponent("media/same.jpg").path, withDestinationPath: "ok.jpg")
        // A FIFO would block a reader for ever.
        #expect(mkfifo(folder.appendingPathComponent("media/pipe").path, 0o644) == 0)
        api = try FeedAPI(directory: folder, recheckAfter: 0)
    }

    @Test func nothingOutsideTheFolderIsEverSent() {
        let attempts = [
            "/v1/media/../feed.json", "/v1/media/media/../../../etc/passwd", "/v1/media/%2e%2e/%2e%2e/etc/passwd",
            "/v1/media/media%2f..%2f..%2f..%2fetc%2fpasswd", "/v1/media//etc/passwd", "/v1/media/%2Fetc%2Fpasswd",
            "/v1/media/media/passwd", "/v1/media/media/etc/passwd", "/v1/media/.secret", "/v1/media/media/./ok.jpg",
            "/v1/media/media\\..\\..\\etc\\passwd", "/v1/media/media/ok.jpg%00.png", "/v1/media/%ZZ", "/v1/media/media/pipe",
            "/v1/media/media", "/v1/stories/..%2Ffeed", "/v1/stories/%2e%2e", "/v1/media/media/hid.jpg", "/v1/stories/leak",
        ]
        for path in attempts {
            let response = api.respond(APIRequest(path: path))
            #expect([400, 404].contains(response.status), "\(path) → \(response.status)")
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(!text.contains("root:") && !text.contains("TOP-SECRET") && !text.contains("OUTSIDE"), "\(path)")
        }
        // Outside and missing answer alike: nothing tells what exists elsewhere.
        let a = api.respond(APIRequest(path: "/v1/media/media/etc/passwd")), b = api.respond(APIRequest(path: "/v1/media/media/etc/nonexistent"))
        #expect(a.status == 404 && a.body.count == b.body.count + "passwd".count - "nonexistent".count)
        #expect(api.respond(APIRequest(path: "/v1/media/media/ok.jpg")).status == 200)
        #expect(api.respond(APIRequest(path: "/v1/media/media/same.jpg")).status == 404, "no link is followed, not even one that stays inside")
    }

    @Test func aPageReadsItsStoriesByTheSameRulesAndNamesNoServerPath() throws {
        let page = try #require(try JSONSerialization.jsonObject(with: api.respond(APIRequest(path: "/v1/feed")).body) as? [String: Any])
        let text = String(decoding: api.respond(APIRequest(path: "/v1/feed")).body, as: UTF8.self)
        #expect(!text.contains("OUTSIDE"), "a story file linked out of the folder is not read for a page either")
        #expect(!text.contains(folder.path) && !text.contains(FileManager.default.temporaryDirectory.path))
        #expect((page["stories"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a"], "broken, leak and twin are left out")
        #expect((page["warnings"] as? [String])?.contains { $0.hasPrefix("skipped story 'leak'") } == true)
    }

    @Test func aStoryIsCheckedUnderItsOwnID() {
        #expect(api.respond(APIRequest(path: "/v1/stories/a")).status == 200)
        #expect(api.respond(APIRequest(path: "/v1/stories/twin")).status == 500, "a.json's bytes say id a, not twin")
    }

    @Test func aLargeFileIsServedInPiecesWithATagFromItsStat() throws {
        var big = Data(count: 6 << 20)
        big.withUnsafeMutableBytes { raw in for i in stride(from: 0, to: raw.count, by: 4096) { raw[i] = UInt8(i / 4096 % 251) } }
        try big.write(to: folder.appendingPathComponent("media/big.bin"))
        let part = api.respond(APIRequest(path: "/v1/media/media/big.bin", range: "bytes=4096-8191"))
        let partMatches = part.wholeBody() == big.subdata(in: 4096..<8192)
        #expect(part.status == 206 && partMatches)
        #expect(part.body.isEmpty && part.file?.range == 4096..<8192, "a part of the open file, not bytes held in memory")
        let tag = try #require(part.header("ETag"))
        #expect(tag.hasPrefix("\"s"))
        #expect(api.respond(APIRequest(path: "/v1/media/media/big.bin", ifNoneMatch: tag)).status == 304)
        let whole = api.respond(APIRequest(path: "/v1/media/media/big.bin"))
        let wholeMatches = whole.wholeBody() == big // (a Bool: a failing comparison of 6 MB is not diffed)
        #expect(wholeMatches && whole.body.isEmpty && whole.length == big.count)
        #expect(api.respond(APIRequest(method: "HEAD", path: "/v1/media/media/big.bin")).header("Content-Length") == String(big.count))
    }

    @Test func aBrokenStoryIsTheServersErrorAndItsPageSaysSo() throws {
        let broken = api.respond(APIRequest(path: "/v1/stories/broken"))
        #expect(broken.status == 500)
        let message = try #require((try JSONSerialization.jsonObject(with: broken.body) as? [String: Any])?["error"] as? String)
        #expect(message.contains("stories/broken.json") && message.contains("duration"), "\(message)")
        let page = try #require(try JSONSerialization.jsonObject(with: api.respond(APIRequest(path: "/v1/feed")).body) as? [String: Any])
        #expect((page["stories"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a"])
        #expect((page["warnings"] as? [String])?.first?.hasPrefix("skipped story 'broken': stories/broken.json:") == true)
    }

    /// Under load the disk is looked at again at most every `recheckAfter` seconds.
    @Test func aChangeShowsOnceTheRecheckWindowIsOver() throws {
        let held = try FeedAPI(directory: folder, recheckAfter: 600) // the window never ends in this test
        let short = try FeedAPI(directory: folder, recheckAfter: 0.2)
        let before = held.respond(APIRequest(path: "/v1/stories/a"))
        let pageBefore = short.respond(APIRequest(path: "/v1/feed"))
        _ = short.respond(APIRequest(path: "/v1/stories/a"))
        let readAt = ContinuousClock.now
        try #"{"id":"a","author":{"name":"Later"},"items":[{"id":"t","type":"text","text":"x"}]}"#
            .write(to: folder.appendingPathComponent("stories/a.json"), atomically: true, encoding: .utf8)
        #expect(held.respond(APIRequest(path: "/v1/stories/a")).header("ETag") == before.header("ETag"), "within the window")
        let changed = Wait.until(5, every: 0.01) { String(decoding: short.respond(APIRequest(path: "/v1/stories/a")).body, as: UTF8.self).contains("Later") }
        let after = ContinuousClock.now - readAt
        #expect(changed && after < .seconds(1.2), "the change shows once the 0.2 s window is over (after \(after))")
        #expect(short.respond(APIRequest(path: "/v1/feed")).header("ETag") != pageBefore.header("ETag"))
    }

    @Test func aChangedFileGetsANewTag() throws {
        let page = api.respond(APIRequest(path: "/v1/feed"))
        #expect(api.respond(APIRequest(path: "/v1/feed")).header("ETag") == page.header("ETag"), "kept while nothing changed")
        let before = api.respond(APIRequest(path: "/v1/stories/a"))
        try #"{"id":"a","author":{"name":"A2"},"items":[{"id":"t","type":"text","text":"hello"}]}"#
            .write(to: folder.appendingPathComponent("stories/a.json"), atomically: true, encoding: .utf8)
        let after = api.respond(APIRequest(path: "/v1/stories/a", ifNoneMatch: before.header("ETag")))
        #expect(after.status == 200 && after.header("ETag") != before.header("ETag"))
        #expect(String(decoding: after.body, as: UTF8.self).contains("A2"))
        let newPage = api.respond(APIRequest(path: "/v1/feed", ifNoneMatch: page.header("ETag")))
        #expect(newPage.status == 200 && String(decoding: newPage.body, as: UTF8.self).contains("A2"), "the page follows its story file")
        // A story broken after it was served is refused again (its new bytes are checked).
        try #"{"id":"a","items":[]}"#.write(to: folder.appendingPathComponent("stories/a.json"), atomically: true, encoding: .utf8)
        #expect(api.respond(APIRequest(path: "/v1/stories/a")).status == 500)
    }

    /// `stories serve ~/Pictures`: a folder without feed.json is served as the photo folder
    /// the viewer would make of it, its stories as documents the app reads, its files by path.
    @Test func aFolderOfPhotosIsServedAsItsPhotoFolder() throws {
        let media = try #require(DemoFeed.directory).appendingPathComponent("media")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-folder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let trip = root.appendingPathComponent("Space trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        for name in ["astronaut.jpg", "deep-field.mp4"] { try FileManager.default.copyItem(at: media.appendingPathComponent(name), to: trip.appendingPathComponent(name)) }
        try Data("Suiting up\n".utf8).write(to: trip.appendingPathComponent("astronaut.txt"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Empty"), withIntermediateDirectories: true)
        let folderAPI = try FeedAPI(directory: root, recheckAfter: 0)
        #expect(folderAPI.title == root.lastPathComponent)

        let page = try #require(try JSONSerialization.jsonObject(with: folderAPI.respond(APIRequest(path: "/v1/feed")).body) as? [String: Any])
        let stories = try #require(page["stories"] as? [[String: Any]])
        let id = "Space-trip-" + String(SeenStore.hash("Space trip").prefix(8))
        #expect(stories.map { $0["id"] as? String } == [id])
        let warnings = try #require(page["warnings"] as? [String])
        #expect(warnings.contains("Empty: no photos or videos in it") && !warnings.joined().contains(root.path), "\(warnings)")

        let response = folderAPI.respond(APIRequest(path: "/v1/stories/\(id)"))
        #expect(response.status == 200 && response.header("ETag") != nil)
        let (story, _) = try FeedDecoder.story(from: response.body, file: id, expectedID: id)
        #expect(story.author.name == "Space trip" && story.items.map(\.id).sorted() == ["astronaut.jpg", "deep-field.mp4"])
        #expect(story.items.first { $0.id == "astronaut.jpg" }?.caption == "Suiting up")
        let tag = try #require(response.header("ETag"))
        #expect(folderAPI.respond(APIRequest(path: "/v1/stories/\(id)", ifNoneMatch: tag)).status == 304)

        let photo = folderAPI.respond(APIRequest(path: "/v1/media/Space trip/astronaut.jpg"))
        #expect(photo.status == 200 && photo.header("Content-Type") == "image/jpeg")
        #expect(photo.wholeBody() == (try Data(contentsOf: trip.appendingPathComponent("astronaut.jpg"))))
        #expect(folderAPI.respond(APIRequest(path: "/v1/stories/nope")).status == 404)
        #expect(folderAPI.respond(APIRequest(path: "/v1/feed", query: ["cursor": "99"])).status == 400)
        #expect(folderAPI.respond(APIRequest(path: "/v1/home")).status == 200)

        // Only what the stories show is served: no notes, nothing deeper, nothing hidden.
        try Data("private".utf8).write(to: root.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: trip.appendingPathComponent("deeper"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: media.appendingPathComponent("astronaut.jpg"), to: trip.appendingPathComponent("deeper/x.jpg"))
        try FileManager.default.copyItem(at: media.appendingPathComponent("astronaut.jpg"), to: trip.appendingPathComponent(".hidden.jpg"))
        for path in ["notes.txt", "Space trip/astronaut.txt", "Space trip/deeper/x.jpg", "Space trip/.hidden.jpg"] {
            #expect(folderAPI.respond(APIRequest(path: "/v1/media/" + path)).status == 404, "\(path)")
        }
        #expect(folderAPI.respond(APIRequest(path: "/v1/media/Space trip/deep-field.mp4")).status == 200)
    }

    /// A folder served keeps up with it: a story folder added shows once the recheck window
    /// is over; a damaged cache file is said without the server's paths.
    @Test func aServedFolderKeepsUpAndKeepsItsPathsToItself() throws {
        let media = try #require(DemoFeed.directory).appendingPathComponent("media")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-folder-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let photos = root.appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("Cats"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: media.appendingPathComponent("chelsea.jpg"), to: photos.appendingPathComponent("Cats/chelsea.jpg"))
        let cache = PhotoFolderCache(feed: photos, root: root.appendingPathComponent("cache"), writeDelay: .milliseconds(1))
        let folderAPI = try FeedAPI(directory: photos, recheckAfter: 0, folderCache: cache)
        func ids() throws -> [String] {
            let page = try #require(try JSONSerialization.jsonObject(with: folderAPI.respond(APIRequest(path: "/v1/feed")).body) as? [String: Any])
            return (page["stories"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        #expect(try ids() == ["Cats"])
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("Dogs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: media.appendingPathComponent("coffee.jpg"), to: photos.appendingPathComponent("Dogs/coffee.jpg"))
        #expect(try ids().sorted() == ["Cats", "Dogs"], "the new folder is served")

        // A damaged cache file (the loose photos', read at start): the first page says so, in
        // words that name nothing of the server's.
        try FileManager.default.copyItem(at: media.appendingPathComponent("brick.jpg"), to: photos.appendingPathComponent("loose.jpg"))
        _ = try ids()
        cache.flush()
        try Data("{".utf8).write(to: cache.file(for: ""))
        let fresh = try FeedAPI(directory: photos, recheckAfter: 0,
                                folderCache: PhotoFolderCache(feed: photos, root: root.appendingPathComponent("cache")))
        let body = String(decoding: fresh.respond(APIRequest(path: "/v1/feed")).body, as: UTF8.self)
        #expect(body.contains("a damaged cache file on the server was set aside") && !body.contains(root.path), "\(body)")
    }
}

/// The server's files are opened from the folder's descriptor, and a large file served in
/// parts is read from the very descriptor its checks were made on: whatever is done to its
/// name meanwhile, the bytes sent are that file's.
@Suite(.ownThread) struct ConfinedFilesTests {
    @Test func aLargeFileReplacedOrTurnedIntoALinkBetweenPartsIsStillTheFileThatWasChecked() throws {
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("confined-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: folder) }
        try fm.createDirectory(at: folder.appendingPathComponent("media"), withIntermediateDirectories: true)
        let big = folder.appendingPathComponent("media/big.mp4")
        try Data(repeating: 1, count: ConfinedFiles.cacheableFileBytes + 1).write(to: big)
        let files = try ConfinedFiles(root: folder, recheckAfter: 0)
        let file = try files.read("media/big.mp4", maxBytes: 64 << 20)
        #expect(try file.bytes(in: 0..<4) == Data([1, 1, 1, 1]))

        try Data(repeating: 2, count: ConfinedFiles.cacheableFileBytes + 1).write(to: big, options: .atomic) // a new file, renamed in
        #expect(try file.bytes(in: 0..<4) == Data([1, 1, 1, 1]), "the file that was checked, not the one renamed in")
        let again = try files.read("media/big.mp4", maxBytes: 64 << 20)
        #expect(try again.bytes(in: 0..<4) == Data([2, 2, 2, 2]), "a new answer opens the new file")

        try fm.removeItem(at: big)
        try fm.createSymbolicLink(atPath: big.path, withDestinationPath: "/etc/passwd")
        #expect(try again.bytes(in: 0..<4) == Data([2, 2, 2, 2]), "never what a link put in its place leads to")
        #expect(throws: ConfinedFiles.Failure.notFound) { try files.read("media/big.mp4", maxBytes: 64 << 20) }

        #expect(mkfifo(folder.appendingPathComponent("media/pipe.mp4").path, 0o644) == 0)
        #expect(throws: ConfinedFiles.Failure.forbidden("not a regular file")) { try files.read("media/pipe.mp4", maxBytes: 64 << 20) }
        try Data(repeating: 3, count: 100).write(to: folder.appendingPathComponent("media/small.jpg"))
        #expect(throws: ConfinedFiles.Failure.tooLarge(100)) { try files.read("media/small.jpg", maxBytes: 99) }
    }
}
