import Foundation
import Testing
@testable import StoriesCore

/// The one reader of everything the project reads (`JSONValue.parse`) and the one writer
/// (`JSONValue.data`, and `JSONText` by hand for seen receipts, batches and changes):
/// checked against Foundation's.
@Suite struct JSONParserTests {
    /// The same values on every run (StoriesCore's SplitMix64).
    typealias Seeded = SplitMix

    static let awkward: [String] = ["", "a", "\"", "\\", "/", "\u{0}", "\u{1f}", "\u{7f}", "\n\r\t\u{8}\u{c}", "é", "日本", "😀", "\u{2028}", "a\"b\\c", "\u{FEFF}x"]

    static func randomString(_ random: inout Seeded) -> String {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in awkward.randomElement(using: &random) ?? "" }.joined()
    }

    /// A random document as Foundation's values (what JSONSerialization writes) and as ours.
    static func randomValue(_ random: inout Seeded, depth: Int = 0) -> (Any, JSONValue) {
        switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &random) {
        case 0: return (NSNull(), .null)
        case 1:
            let flag = Bool.random(using: &random)
            return (flag, .bool(flag))
        case 2:
            let number: Double = [0, -0.5, 1, 42, 1e21, -3.25e-7, 9_007_199_254_740_991, Double(Int.random(in: -1000...1000, using: &random))]
                .randomElement(using: &random) ?? 0
            return (number, .number(number))
        case 3:
            let text = randomString(&random)
            return (text, .string(text))
        case 4:
            let pairs = (0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth + 1) }
            return (pairs.map(\.0), .array(pairs.map(\.1)))
        default:
            var foundation: [String: Any] = [:], ours: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let key = randomString(&random), (a, b) = randomValue(&random, depth: depth + 1)
                foundation[key] = a
                ours[key] = b
            }
            return (foundation, .object(ours))
        }
    }

    @Test func whatFoundationWritesIsReadAsTheSameValues() throws {
        var random = Seeded(seed: 34)
        for _ in 0..<2000 {
            let (foundation, ours) = Self.randomValue(&random)
            let data = try JSONSerialization.data(withJSONObject: foundation, options: [.fragmentsAllowed])
            #expect(try JSONValue.parse(data, file: "a.json") == ours, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Foundation's decoder, as `JSONValue.parse` used it before (nil: refused).
    static func foundationReads(_ data: Data) -> JSONValue? {
        struct Wrapped: Decodable {
            let value: JSONValue
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() { value = .null }
                else if let flag = try? container.decode(Bool.self) { value = .bool(flag) }
                else if let number = try? container.decode(Double.self) { value = .number(number) }
                else if let text = try? container.decode(String.self) { value = .string(text) }
                else if let elements = try? container.decode([Wrapped].self) { value = .array(elements.map(\.value)) }
                else { value = .object(try container.decode([String: Wrapped].self).mapValues(\.value)) }
            }
        }
        return try? JSONDecoder().decode(Wrapped.self, from: data).value
    }

    /// Documents broken byte by byte: never a crash, and the same verdict as Foundation's
    /// decoder except where this reader is stricter on purpose (a key named twice; a number
    /// that rounds to zero; a control character or lone surrogate Foundation let by).
    @Test func brokenDocumentsGetTheSameVerdictAsFoundations() throws {
        var random = Seeded(seed: 2026)
        let seed = Array(#"{"id": "ayla", "items": [{"id": "a-1", "duration": 5.5e0, "caption": "caf\u00e9 \ud83d\ude00", "seen": [true, false, null]}], "n": -12}"#.utf8)
        let alphabet = Array(#"{}[]:,"\\/ ue0123456789-+.Eetrfalsn"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        // Both verdicts must come up often, or the comparison says little.
        var bothRead = 0, bothRefused = 0
        for _ in 0..<4000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random) ?? 0
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: at)
                }
            }
            let data = Data(bytes)
            let theirs = Self.foundationReads(data)
            do {
                let ours = try JSONValue.parse(data, file: "a.json")
                #expect(theirs == ours, "\(String(decoding: bytes, as: UTF8.self))")
                if theirs == ours { bothRead += 1 }
            } catch {
                #expect(error.reason.hasPrefix("not valid JSON at line 1, column ") || error.reason.hasPrefix("nested more than"), "\(error)")
                let stricter = ["twice in one object", "control character", "lone surrogate", "escape"].contains { error.reason.contains($0) }
                #expect(theirs == nil || stricter, "Foundation read \(String(decoding: bytes, as: UTF8.self)); we said \(error)")
                if theirs == nil { bothRefused += 1 }
            }
        }
        #expect(bothRead >= 400, "only \(bothRead) broken documents were still JSON to both readers")
        #expect(bothRefused >= 2000, "only \(bothRefused) broken documents were refused by both readers")
    }

    @Test func eachRefusalSaysWhatAndWhere() {
        let cases: [(String, String)] = [
            ("", "line 1, column 1: the document ends early"),
            ("{\"a\": 1,\n \"b\" 2}", "line 2, column 6: expected ':'"),
            ("[1 2]", "line 1, column 4: expected ',' or ']'"),
            ("{\"a\": 1 \"b\"}", "line 1, column 9: expected ',' or '}'"),
            ("{1: 2}", "line 1, column 2: expected a key"),
            ("{\"a\": 1, \"a\": 2}", "line 1, column 10: the key \"a\" twice in one object"),
            ("\"abc", "line 1, column 1: a string that never ends"),
            ("\"a\u{1}\"", "line 1, column 3: a control character in a string"),
            ("\"\\ud800\"", "line 1, column 2: a lone surrogate in a \\u escape"),
            ("\"\\udc00\\ud800\"", "line 1, column 2: a lone surrogate in a \\u escape"),
            ("\"\\u12\"", "line 1, column 2: a \\u escape without four hex digits"),
            ("\"\\x\"", "line 1, column 2: an escape JSON does not have"),
            ("01", "line 1, column 1: not a number (a leading zero)"),
            ("1.", "line 1, column 1: not a number"),
            ("-", "line 1, column 1: not a number"),
            ("+1", "line 1, column 1: expected a value"),
            ("1e400", "line 1, column 1: a number too large"),
            ("tru", "line 1, column 1: expected a value"),
            ("{} x", "line 1, column 4: more after the document"),
            ("\u{0B}1", "line 1, column 1: expected a value"),
        ]
        for (text, reason) in cases {
            do {
                let value = try JSONValue.parse(Data(text.utf8), file: "a.json")
                Issue.record("\(text.debugDescription) read as \(value)")
            } catch {
                #expect(error.description == "a.json: not valid JSON at \(reason)", "\(text.debugDescription)")
            }
        }
        // Bytes that are not UTF-8, inside a string.
        do {
            _ = try JSONValue.parse(Data([0x5B, 0x22, 0xFF, 0x22, 0x5D]), file: "a.json")
            Issue.record("read bytes that are not UTF-8")
        } catch {
            #expect(error.description == "a.json: not valid JSON at line 1, column 2: a string that is not UTF-8")
        }
    }

    /// What Foundation's decoder let through stays let through: a feed that loaded loads.
    @Test func whatLoadedBeforeStillLoads() throws {
        #expect(try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)), file: "a.json") == .array([.number(1)]))
        #expect(try JSONValue.parse(Data("[1, 2,]".utf8), file: "a.json") == .array([.number(1), .number(2)]))
        #expect(try JSONValue.parse(Data("{\"a\": 1,}".utf8), file: "a.json") == .object(["a": .number(1)]))
        #expect(try JSONValue.parse(Data(" \n\t\r-0.5E+2 ".utf8), file: "a.json") == .number(-50))
        #expect(try JSONValue.parse(Data(#""\ud83d\ude00 \u00e9\/""#.utf8), file: "a.json") == .string("😀 é/"))
    }

    @Test func deepNestingIsRefusedWithoutGoingDeep() {
        // Far past the limit: refused where the limit is passed, without recursing further.
        let text = String(repeating: "[", count: 100_000)
        do {
            _ = try JSONValue.parse(Data(text.utf8), file: "a.json")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "a.json: nested more than 64 deep at line 1, column 65")
        }
    }

    /// "Must not be empty" means what it meant with Foundation's trimming: nothing but
    /// characters of `whitespacesAndNewlines` (every one of the Basic Multilingual Plane,
    /// where all of them are).
    @Test func onlyWhiteSpaceIsEmptyAsFoundationSays() {
        for value in 0...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let field = JSONField(value: .string(String(scalar) + " \n"), file: "a.json", path: "id")
            let empty = (try? field.nonEmptyString()) == nil
            #expect(empty == CharacterSet.whitespacesAndNewlines.contains(scalar), "U+\(String(value, radix: 16))")
        }
    }

    // MARK: - Writing

    /// The one writer: whatever it writes, on one line or indented, Foundation's reader and
    /// ours read back as the value written (numbers, escapes, nesting, empty containers).
    @Test func whatTheWriterWritesFoundationAndWeReadAsWritten() throws {
        var random = Seeded(seed: 48)
        for n in 0..<2000 {
            let (_, value) = Self.randomValue(&random)
            for pretty in [false, true] {
                let data = value.data(pretty: pretty)
                let text = String(decoding: data, as: UTF8.self)
                #expect(try JSONValue.parse(data, file: "a.json") == value, "\(text)")
                #expect(Self.foundationReads(data) == value, "\(text)")
                #expect(pretty || !text.contains("\n"), "one line: \(text)")
            }
            if n == 0 { #expect(JSONValue.object(["b": 1, "a": .array([true, .null])]).text() == #"{"a":[true,null],"b":1}"#) }
        }
        #expect(JSONValue.string("a/b").text() == #""a/b""#)
        #expect(JSONValue.number(.nan).text() == "null")
        #expect(JSONValue.number(3).text() == "3")
        #expect(JSONValue.number(-0.5).text() == "-0.5")
        #expect(JSONValue.object(["a": .array([1, 2]), "b": .object([:])]).text(pretty: true) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    @Test func receiptsBatchesAndChangesAreTheBytesTheWriterWrites() throws {
        var random = Seeded(seed: 7)
        for _ in 0..<300 {
            let entries = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                SeenWire.Entry(story: Self.randomString(&random), item: Self.randomString(&random),
                               at: Bool.random(using: &random) ? Int64.random(in: 0...9_007_199_254_740_991, using: &random) : nil)
            }
            let tooltips = (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.randomString(&random) }
            let ignored = entries.prefix(2).map { SeenWire.Ignored(story: $0.story, item: $0.item, reason: "no story '\($0.story)'") }
            let next = Int64.random(in: 0...1_000_000, using: &random)
            func entry(_ entry: SeenWire.Entry) -> JSONValue {
                var out: [String: JSONValue] = ["story": .string(entry.story), "item": .string(entry.item)]
                if let at = entry.at { out["at"] = .number(Double(at)) }
                return .object(out)
            }
            let seen = JSONValue.array(entries.map(entry))
            #expect(SeenWire.batch(.init(entries: entries, tooltips: tooltips))
                    == JSONValue.object(["version": 1, "seen": seen, "tooltips": .strings(tooltips)]).data())
            let ignoredValue = JSONValue.array(ignored.map { .object(["story": .string($0.story), "item": .string($0.item), "reason": .string(SafeText.line($0.reason))]) })
            #expect(SeenWire.receipt(.init(next: next, recorded: entries.count, ignored: ignored))
                    == JSONValue.object(["next": .number(Double(next)), "recorded": .int(entries.count), "version": 1, "ignored": ignoredValue]).data())
            let more = Bool.random(using: &random)
            #expect(SeenWire.changes(.init(entries: entries, tooltips: tooltips, next: next, more: more))
                    == JSONValue.object(["next": .number(Double(next)), "more": .bool(more), "seen": seen, "tooltips": .strings(tooltips), "version": 1]).data())
            // And changes read back as they were written.
            let valid = [SeenWire.Entry(story: "ayla", item: Self.randomString(&random).isEmpty ? "a" : "a-\(next)", at: next)]
            let written = SeenWire.Changes(entries: valid, tooltips: ["tip.\(next)"], next: next, more: more)
            #expect(try SeenWire.decodeChanges(SeenWire.changes(written), file: "t") == written)
        }
    }

    /// What the app reads of a receipt reads back the same once written again (fuzz-seen's
    /// property): a long reason full of spaces and control characters is made printable and
    /// cut once, not cut where a second reading would trim a space it left at the end.
    @Test func aReceiptReadIsTheSameWrittenAndReadAgain() throws {
        let reasons = [String(repeating: " ", count: 80) + "+ " + String(repeating: "word \u{0C}", count: 60),
                       String(repeating: "ab ", count: 100),
                       String(repeating: "abcd ", count: 60), // the 200th character a space
                       "plain", "\u{1B}[31mred\u{1B}[0m  and  spaced   "]
        for reason in reasons {
            let body = JSONValue.object(["next": 3, "recorded": 0, "version": 1,
                                         "ignored": .array([.object(["story": "x", "item": "y", "reason": .string(reason)])])]).data()
            let read = try SeenWire.decodeReceipt(body, file: "t")
            #expect(try SeenWire.decodeReceipt(SeenWire.receipt(read), file: "t") == read, "\(reason.debugDescription)")
            #expect(read.ignored.first.map { $0.reason.count <= 200 && !$0.reason.contains("\u{1B}") } == true)
        }
    }
}
