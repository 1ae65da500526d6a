import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoriesCore
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 34, point 3: each viewer's home worked out from their seen state.
@Suite(.ownThread) struct ViewerHomeTests {
    static let template = Data(#"""
    {"version":1,"sections":[
      {"id":"continue","style":"cards","title":"Continue","cells":[
        {"id":"a","title":"A","progress":"seen","hide":"seen","tooltip":{"id":"tip-a","text":"hi"},"action":{"type":"story","story":"ayla"}},
        {"id":"m","title":"M","badge":{"text":"{new} new","color":"green"},"action":{"type":"story","story":"mika"}},
        {"id":"x","title":"X","progress":"seen","badge":{"text":"{new}"},"action":{"type":"story","story":"nobody"}},
        {"id":"fixed","title":"F","progress":0.5,"subtitle":[{"text":"kept","italic":true}]}]},
      {"id":"done","style":"list","cells":[{"id":"d","title":"D","hide":"seen","action":{"type":"story","story":"mika"}}]},
      {"id":"more","style":"list","cells":[{"id":"n","title":"N","action":{"type":"sections","title":"In","sections":[
        {"id":"inner","style":"list","cells":[{"id":"i","title":"I","progress":"seen","action":{"type":"story","story":"ayla"}}]}]}}]}
    ]}
    """#.utf8)
    static let items: [StoryID: Set<ItemID>] = ["ayla": ["a1", "a2", "a3", "a4"], "mika": ["m1", "m2"]]

    static func cells(_ data: Data?) throws -> [String: [String: Any]] {
        let bytes = try #require(data)
        let root = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        var found: [String: [String: Any]] = [:]
        func walk(_ sections: [Any]) {
            for case let section as [String: Any] in sections {
                for case let cell as [String: Any] in section["cells"] as? [Any] ?? [] {
                    found[cell["id"] as? String ?? ""] = cell
                    if let nested = (cell["action"] as? [String: Any])?["sections"] as? [Any] { walk(nested) }
                }
            }
        }
        walk(root["sections"] as? [Any] ?? [])
        return found
    }

    @Test func aNewViewerAndOneWhoHasWatched() throws {
        #expect(ViewerHome.stories(in: Self.template) == ["ayla", "mika", "nobody"])
        let fresh = try Self.cells(ViewerHome.personalize(Self.template, seen: .init(items: [:], tooltips: []), items: Self.items))
        #expect(fresh["a"]?["progress"] as? Double == 0 && fresh["a"]?["tooltip"] != nil && fresh["a"]?["hide"] == nil)
        #expect((fresh["m"]?["badge"] as? [String: Any])?["text"] as? String == "2 new")
        #expect(fresh["x"]?["progress"] == nil && fresh["x"]?["badge"] == nil, "a story the feed lacks: nothing worked out")
        #expect(fresh["fixed"]?["progress"] as? Double == 0.5 && fresh["fixed"]?["subtitle"] != nil)
        #expect(fresh["d"] != nil && fresh["i"]?["progress"] as? Double == 0)

        let watched = ViewerHome.Seen(items: ["ayla": ["a1", "a2", "a3"], "mika": ["m1", "m2", "gone"]], tooltips: ["tip-a"])
        let data = ViewerHome.personalize(Self.template, seen: watched, items: Self.items)
        let cells = try Self.cells(data)
        #expect(cells["a"]?["progress"] as? Double == 0.75 && cells["a"]?["tooltip"] == nil, "shown once, on any terminal")
        #expect(cells["m"]?["badge"] == nil, "nothing new: no badge")
        #expect(cells["d"] == nil && cells["i"]?["progress"] as? Double == 0.75)
        let text = String(decoding: data ?? Data(), as: UTF8.self)
        #expect(!text.contains(#""id":"done""#), "a section left with no cells is left out: \(text)")
        // The app reads what the server worked out.
        let bytes = try #require(data)
        let load = try HomeDecoder.decode(bytes, file: "home")
        #expect(load.layout.sections.map(\.id) == ["continue", "more"])
        #expect(ViewerHome.personalize(Data("[1]".utf8), seen: watched, items: Self.items) == nil)
    }

    @Test func eachViewerHasTheirOwnHomeAndTagAndAnUnchangedOneIs304() async throws {
        let setup = try await SeenServerTests.setup(["ayla", "bo"])
        let ayla = try #require(setup.tokens["ayla"]), bo = try #require(setup.tokens["bo"])
        try await setup.server.application().test(.live) { client in
            func home(_ token: String, tag: String? = nil) async throws -> TestResponse {
                var headers = SeenServerTests.auth(token)
                if let tag { headers[.ifNoneMatch] = tag }
                return try await client.execute(uri: "/v1/home", method: .get, headers: headers)
            }
            let first = try await home(ayla)
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.vary] == "Accept-Encoding, Authorization" && first.headers[.cacheControl] == "private, no-cache")
            #expect(try await home(ayla, tag: tag).status == .notModified)
            // Ayla watches half of the Launch Club: her home moves, Bo's does not.
            let bos = try await home(bo)
            let bosTag = try #require(bos.headers[.eTag])
            _ = try await client.execute(uri: "/v1/seen", method: .put, headers: SeenServerTests.auth(ayla),
                                         body: SeenServerTests.batch([("rocket", "club-rocket"), ("rocket", "club-t1")], tooltips: ["demo-tip-continue"]))
            let moved = try await home(ayla, tag: tag)
            #expect(moved.status == .ok)
            let cells = try Self.cells(Data(buffer: moved.body))
            #expect(cells["continue-rocket"]?["progress"] as? Double == 0.4 && cells["continue-rocket"]?["tooltip"] == nil)
            #expect(try await home(bo, tag: bosTag).status == .notModified, "Bo's home is his own")
            #expect(moved.headers[.eTag] != bosTag)
            // The whole story watched: its Continue watching card goes.
            _ = try await client.execute(uri: "/v1/seen", method: .put, headers: SeenServerTests.auth(ayla),
                                         body: SeenServerTests.batch(["club-hubble", "club-liftoff", "club-deep-field"].map { ("rocket", $0) }))
            let done = try Self.cells(Data(buffer: try await home(ayla).body))
            #expect(done["continue-rocket"] == nil && done["continue-mika"] != nil)
        }
    }
}
