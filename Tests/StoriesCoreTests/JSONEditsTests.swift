import Foundation
import Testing
@testable import StoriesCore

/// Edits to a JSON document that leave the rest of it as its author wrote it.
@Suite struct JSONEditsTests {
    func setting(_ key: String, _ value: String, at path: [JSONEdits.PathElement], in text: String) throws -> String {
        let bytes = Array(text.utf8)
        let span = try #require(try JSONEdits.objects(in: bytes).first { $0.path == path })
        return String(decoding: JSONEdits.apply([JSONEdits.setting(key, to: value, in: span, of: bytes)], to: bytes), as: UTF8.self)
    }

    @Test func aMemberIsAddedInTheStyleOfTheObject() throws {
        let pretty = """
        {
            "items": [
                {"id": "a", "media": {
                        "path" :  "media/a.jpg",
                        "bytes" : 1.50e3
                    }}
            ]
        }
        """
        let edited = try setting("blurhash", "L00000fQfQfQ", at: [.key("items"), .index(0), .key("media")], in: pretty)
        let indent = String(repeating: " ", count: 16) // the first member's, after the brace
        #expect(edited == pretty.replacingOccurrences(of: "\"bytes\" : 1.50e3",
                                                      with: "\"bytes\" : 1.50e3,\n" + indent + "\"blurhash\" :  \"L00000fQfQfQ\""))
        #expect(try setting("k", "v", at: [], in: #"{"a":1}"#) == #"{"a":1,"k":"v"}"#)
        #expect(try setting("k", "v", at: [], in: "{ }") == #"{"k": "v" }"#)
    }

    @Test func aMemberThereHasOnlyItsValueReplaced() throws {
        #expect(try setting("blurhash", "new", at: [], in: #"{ "blurhash" : "old",  "z": [1, 2] }"#)
                == #"{ "blurhash" : "new",  "z": [1, 2] }"#)
        #expect(try setting("q", "a\"b\\c/d\u{1}", at: [], in: #"{"q":null}"#) == #"{"q":"a\"b\\c/d\u0001"}"#)
    }

    @Test func keysWithEscapesArePathsAsTheyRead() throws {
        let text = #"{"m\u00e9dia": {"x": 1}, "list": [[{"deep": {}}]]}"#
        let objects = try JSONEdits.objects(in: Array(text.utf8))
        #expect(objects.map(\.path) == [[], [.key("média")], [.key("list"), .index(0), .index(0)], [.key("list"), .index(0), .index(0), .key("deep")]])
    }

    @Test func onlyTheObjectsAskedForAreKept() throws {
        let text = Array(#"{"items": [{"media": {"path": "a"}}, {"media": {}}], "media": {}}"#.utf8)
        let picked = try JSONEdits.objects(in: text) { $0.count == 3 && $0.last == .key("media") }
        #expect(picked.map(\.path) == [[.key("items"), .index(0), .key("media")], [.key("items"), .index(1), .key("media")]])
        // 255 levels of arrays around a million empty objects: kept nothing, quickly.
        let deep = String(repeating: "[", count: 250) + Array(repeating: "{}", count: 200_000).joined(separator: ",") + String(repeating: "]", count: 250)
        #expect(try JSONEdits.objects(in: Array(deep.utf8)) { _ in false }.isEmpty)
    }

    @Test func anythingButJSONIsRefusedWithWhere() {
        #expect(throws: JSONEdits.Failure.self, "a key twice: which one a reader takes is not defined") {
            try JSONEdits.objects(in: Array(#"{"media": {"blurhash": "a", "blurhash": "b"}}"#.utf8))
        }
        for bad in ["", "{", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", #"{"a":tru}"#, "{\"a\":\"x\ny\"}", #"{"a":1} x"#, #"{"a":"\"}"#, "{\"a\":-}"] {
            #expect(throws: JSONEdits.Failure.self, "\(bad)") { try JSONEdits.objects(in: Array(bad.utf8)) }
        }
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONEdits.Failure.self) { try JSONEdits.objects(in: Array(deep.utf8)) }
    }
}
